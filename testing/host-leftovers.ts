/** The leftover-process checks of host-leftovers-*.test.ts: launch the app, kill it, look at `ps`. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { holdsWithin, until } from './until';

const BIN = fileURLToPath(new URL('../bin/loopdeck.mjs', import.meta.url));
/** The stand-in that holds only an SSH link and its watcher (starts in a fraction of the app's time). */
export const DRIVER = fileURLToPath(new URL('./watch-driver.ts', import.meta.url));

/** A process as `ps` shows it. */
export interface Proc {
  readonly pid: number;
  readonly pgid: number;
  readonly state: string;
  readonly args: string;
}

/** Every live process (zombies run nothing, they only wait for a parent to reap them). */
export function processes(): Proc[] {
  const out = execFileSync('ps', ['-ww', '-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), state: m[3] ?? '', args: m[4] ?? '' }))
    .filter((p) => !p.state.startsWith('Z') && p.pid !== process.pid);
}

/** What is still running of a round: anything naming its folder, or in the app's process group. */
export function leftovers(marker: string, app: number): Proc[] {
  return processes().filter((p) => p.args.includes(marker) || p.pgid === app);
}

/** A runner folder with one started cycle, and a config that reads it through `hostYaml`. */
export function runner(hostYaml: string): { dir: string; runs: string; cycle: string; args: string[]; env: NodeJS.ProcessEnv } {
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

/** Kill every app launched since the last call that is still running (for `afterEach`). */
export function killLaunched(): void {
  for (const app of launched) {
    try {
      if (app.pid && app.exitCode === null && app.signalCode === null) process.kill(-app.pid, 'SIGKILL');
    } catch {
      // its group has ended by itself
    }
  }
  launched.clear();
}

/**
 * A child process in a process group of its own; resolves once it printed `ready` (with `ready`
 * empty: after `afterMs`, started or not).
 */
export async function launch(args: string[], env: NodeJS.ProcessEnv, ready: string, afterMs = 0): Promise<{ app: ChildProcess; exited: Promise<void>; output: () => string }> {
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
    return { app, exited, output: () => out };
  }
  await until(() => gone || out.includes(ready), 30_000, `${args[1] ?? 'the app'} to start`);
  if (gone) throw new Error(`${args.join(' ')} exited: ${out}`);
  return { app, exited, output: () => out };
}

/** Run `round` `n` times, `atOnce` at a time. */
export async function inBatches(n: number, atOnce: number, round: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < n; i += atOnce) await Promise.all(Array.from({ length: Math.min(atOnce, n - i) }, (_, j) => round(i + j)));
}

/** Kill the app, then wait (bounded) until nothing of the round runs; fail listing what is left. */
export async function killAndExpectNothingLeft(app: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals, marker: string): Promise<void> {
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

