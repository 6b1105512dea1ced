import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdsWithin, until } from '../../testing/until';
import { watcherScript } from './watcher-script';

/** The watcher script run by a local sh, as sshd would run it; `changed` lines are timestamped. */
function run(dirs: string[], statMs: number, env: NodeJS.ProcessEnv = process.env): { child: ChildProcess; wakes: number[] } {
  const child = spawn('sh', ['-c', watcherScript(dirs, statMs)], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const wakes: number[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (l === 'changed') wakes.push(Date.now());
  });
  return { child, wakes };
}

/** Live processes (zombies run nothing). */
function processes(): { pid: number; pgid: number; args: string }[] {
  return execFileSync('ps', ['-ww', '-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && !(m[3] ?? '').startsWith('Z'))
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), args: m[4] ?? '' }));
}

/** Live processes whose command line names `marker`. */
function running(marker: string): { pid: number; args: string }[] {
  return processes().filter((p) => p.args.includes(marker));
}

/** Wait until nothing names `marker`; else kill what is left (by pid) and fail listing it. */
async function expectNothingLeft(marker: string, what: string): Promise<void> {
  if (await holdsWithin(() => running(marker).length === 0, 10_000, 50)) return;
  const left = running(marker);
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  expect(left.map((p) => p.args.slice(0, 160)), what).toEqual([]);
}

describe('the watcher script', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) {
      try {
        if (c.pid) process.kill(-c.pid, 'SIGKILL');
      } catch {
        // the group has ended by itself
      }
    }
  });

  it('lists every 50 ms where tail -F cannot run, whatever the listing interval asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tail'), '#!/bin/sh\nexit 1\n'); // a host whose tail has no -F
    chmodSync(join(bin, 'tail'), 0o755);
    const watched = join(dir, 'w');
    mkdirSync(watched);
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run([watched], 5000, { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
    children.push(child);
    // The fallback is on once the watcher sleeps 50 ms between listings (it starts on the 5 s one).
    const fallback = (): boolean => processes().some((p) => p.pgid === child.pid && p.args === 'sleep 0.050');
    await until(() => wakes.length > 0 && fallback(), 10_000, 'the first listing and the 50 ms fallback');
    const t0 = Date.now();
    appendFileSync(join(watched, 'a.log'), 'x\n');
    // With the 5 s listing this would take up to 5 s; the fallback lists every 50 ms.
    await until(() => wakes.some((t) => t >= t0), 2000, 'a wake after the append');
  }, 15_000);

  it('copes with names that need quoting (spaces, quotes, a leading dash)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const watched = join(dir, "it's a -dir");
    mkdirSync(watched);
    writeFileSync(join(watched, '-odd name.log'), '');
    const { child, wakes } = run([watched], 5000);
    children.push(child);
    await until(() => wakes.length > 0 && running('-odd name.log').some((p) => p.args.startsWith('tail -n0 -q -F -- ')), 10_000, 'the first listing and its tail');
    const t0 = Date.now();
    appendFileSync(join(watched, '-odd name.log'), 'x\n');
    await until(() => wakes.some((t) => t >= t0), 2000, 'a wake after the append'); // tail -F, not the 5 s listing
  }, 15_000);

  // The link went while the events loop was starting a tail (a busy host: here a tail that takes
  // 2 s to start): the kick appended and removed at exit came before that tail opened the kick
  // file, so its events loop waited in `head` forever, with the tail, on a folder nobody writes
  // to again.
  it('ends its events loop and every tail once the link is gone, even while a tail is starting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const realTail = execFileSync('sh', ['-c', 'command -v tail'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'tail'), `#!/bin/sh\nsleep 2\nexec ${realTail} "$@"\n`);
    chmodSync(join(bin, 'tail'), 0o755);
    const watched = join(dir, 'w');
    mkdirSync(watched);
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run([watched], 250, { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
    children.push(child);
    const tailUp = (): boolean => running(watched).some((p) => p.args.startsWith(`${realTail} -n0 -q -F -- `));
    const tailStarting = (): boolean => running(watched).some((p) => p.args.includes(`${bin}/tail -n0`));
    await until(() => wakes.length > 0 && tailUp() && !tailStarting(), 15_000, 'the watcher and its tail');
    appendFileSync(join(watched, 'a.log'), 'x\n');
    await until(tailStarting, 5000, 'the next tail starting after the wake');
    child.stdout?.destroy(); // the link is gone: the next heartbeat fails
    await until(() => child.exitCode !== null || child.signalCode !== null, 5000, 'the watcher to exit');
    rmSync(watched, { recursive: true, force: true });
    await expectNothingLeft(watched, 'left running after the link was gone');
  }, 40_000);

  it.each(['SIGTERM', 'SIGHUP', 'SIGINT'] as const)('ends its events loop and every tail on %s', async (signal) => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run([watched], 250);
    children.push(child);
    await until(() => wakes.length > 0 && running(watched).some((p) => p.args.startsWith('tail -n0 -q -F -- ')), 10_000, 'the watcher and its tail');
    process.kill(child.pid ?? 0, signal);
    await expectNothingLeft(watched, `left running after ${signal} of the watcher`);
  }, 20_000);

  // (GNU tail also ends once its reader is gone; BSD tail only on its next write.)
  it('ends the tail that woke it at once, not on that tail\'s next write', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run([watched], 5000);
    children.push(child);
    const tails = (): number => running(watched).filter((p) => p.args.startsWith('tail -n0 -q -F -- ')).length;
    await until(() => wakes.length > 0 && tails() === 1, 10_000, 'the watcher and its tail');
    for (let i = 1; i <= 5; i++) {
      const before = wakes.length;
      appendFileSync(join(watched, 'a.log'), 'x\n');
      await until(() => wakes.length > before && tails() === 1, 5000, `wake ${i} with one tail running`);
    }
    // No more writes: a tail left over from a wake would stay, so exactly one follows the folder.
    expect(await holdsWithin(() => tails() > 1, 500)).toBe(false);
  }, 30_000);
});
