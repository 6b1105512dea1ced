import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../../testing/sshd';
import { sshHostYaml } from '../../testing/ssh-fixture';
import { holdsWithin, until } from '../../testing/until';

const BIN = fileURLToPath(new URL('../../bin/loopdeck.mjs', import.meta.url));
const DRIVER = fileURLToPath(new URL('../../testing/watch-driver.ts', import.meta.url));
const ROUNDS = 20;
const SERVE_ROUNDS = 4;
const AT_ONCE = 4;

/** A process as `ps` shows it. */
interface Proc {
  readonly pid: number;
  readonly pgid: number;
  readonly state: string;
  readonly args: string;
}

/** Every live process (zombies run nothing, they only wait for a parent to reap them). */
function processes(): Proc[] {
  const out = execFileSync('ps', ['-ww', '-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), state: m[3] ?? '', args: m[4] ?? '' }))
    .filter((p) => !p.state.startsWith('Z') && p.pid !== process.pid);
}

/** What is still running of a round: anything naming its folder, or in the app's process group. */
function leftovers(marker: string, app: number): Proc[] {
  return processes().filter((p) => p.args.includes(marker) || p.pgid === app);
}

/** A runner folder with one started cycle, and a config that reads it through `hostYaml`. */
function runner(hostYaml: string): { dir: string; runs: string; cycle: string; args: string[]; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-leftover-'));
  const runs = join(dir, 'runs');
  const day = new Date().toISOString().slice(0, 10);
  mkdirSync(join(runs, day), { recursive: true });
  writeFileSync(join(runs, day, 'audit.status'), `audit ${day}T00:00:04+00:00 STARTED\n`);
  writeFileSync(join(dir, 'config.yaml'), `hosts:\n  runner: ${hostYaml}\nloops:\n  reliability: { host: runner, runs: ${JSON.stringify(runs)} }\n`);
  const home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  return {
    dir,
    runs,
    cycle: join(runs, day),
    args: [BIN, 'serve', '--config', join(dir, 'config.yaml'), '--data', join(dir, 'data'), '--port', '0'],
    env: { ...process.env, HOME: home, SSH_AUTH_SOCK: '' },
  };
}

/** Every app a test launched: whatever a failed test left running is killed after it. */
const launched = new Set<ChildProcess>();
afterEach(() => {
  for (const app of launched) {
    try {
      if (app.pid && app.exitCode === null && app.signalCode === null) process.kill(-app.pid, 'SIGKILL');
    } catch {
      // its group has ended by itself
    }
  }
  launched.clear();
});

/**
 * A child process in a process group of its own; resolves once it printed `ready` (with `ready`
 * empty: after `afterMs`, started or not).
 */
async function launch(args: string[], env: NodeJS.ProcessEnv, ready: string, afterMs = 0): Promise<{ app: ChildProcess; exited: Promise<void> }> {
  const app = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  launched.add(app);
  let out = '';
  app.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  app.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => app.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  if (!ready) {
    await new Promise((r) => setTimeout(r, afterMs));
    return { app, exited };
  }
  await until(() => gone || out.includes(ready), 30_000, `${args[1] ?? 'the app'} to start`);
  if (gone) throw new Error(`${args.join(' ')} exited: ${out}`);
  return { app, exited };
}

/** Run `round` `n` times, `atOnce` at a time. */
async function inBatches(n: number, atOnce: number, round: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < n; i += atOnce) await Promise.all(Array.from({ length: Math.min(atOnce, n - i) }, (_, j) => round(i + j)));
}

/** Kill the app, then wait (bounded) until nothing of the round runs; fail listing what is left. */
async function killAndExpectNothingLeft(app: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals, marker: string): Promise<void> {
  const pid = app.pid ?? 0;
  process.kill(pid, signal);
  await exited;
  if (!(await holdsWithin(() => leftovers(marker, pid).length === 0, 15_000, 100))) {
    const left = leftovers(marker, pid);
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    expect(left.map((p) => `${p.pid} ${p.args.slice(0, 200)}`), `left running 15 s after ${signal} of the app`).toEqual([]);
  }
}

describe('nothing Loopdeck starts on a host outlives the app', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 50 });
  }, 30_000);
  afterAll(async () => {
    await sshd?.stop();
  });

  // The first rounds run the real `loopdeck serve`; the rest a stand-in holding only the link
  // and its watcher (watch-driver.ts), which starts in a fraction of the time.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    `over SSH: after ${ROUNDS} rounds of %s of the app (${SERVE_ROUNDS} of \`loopdeck serve\`), no watcher, tail or shell is left on the host`,
    async (signal) => {
      await inBatches(ROUNDS, AT_ONCE, async (i) => {
        const r = runner(sshHostYaml(sshd));
        const driver = [
          '--import',
          'tsx',
          DRIVER,
          JSON.stringify({ port: sshd.port, user: sshd.user, key: sshd.clientKey, knownHosts: sshd.knownHosts, dirs: [r.runs, r.cycle] }),
        ];
        const { app, exited } = i < SERVE_ROUNDS ? await launch(r.args, r.env, 'Loopdeck is serving at') : await launch(driver, r.env, 'connected');
        const onHost = (): Proc[] => processes().filter((p) => p.args.includes(r.dir) && p.pid !== app.pid);
        // The watcher (Perl here, the shell one where there is no perl) and its tail both name the
        // runs folder on their command lines.
        await until(
          () => {
            const ps = onHost();
            return ps.some((p) => /^((ba|da)?sh -c |perl -e )/.test(p.args)) && ps.some((p) => p.args.startsWith('tail -n0 -q -F -- '));
          },
          20_000,
          `the watcher and its tail on the host (${r.dir})`,
        );
        await killAndExpectNothingLeft(app, exited, signal, r.dir);
      });
    },
    180_000,
  );

  // Most rounds kill the app while it is still starting (whatever it runs then, tsx's esbuild
  // included, must end with it); every fourth once it serves.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    `on a local host: after ${ROUNDS} rounds of %s of \`loopdeck serve\`, no process it started is left`,
    async (signal) => {
      await inBatches(ROUNDS, 5, async (i) => {
        const r = runner('{ local: true }');
        const { app, exited } = await launch(r.args, r.env, i % 4 === 0 ? 'Loopdeck is serving at' : '', (i * 397) % 1500);
        await killAndExpectNothingLeft(app, exited, signal, r.dir);
      });
    },
    180_000,
  );
});
