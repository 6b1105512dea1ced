import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdsWithin, until } from '../../../testing/until';
import { parseWatchLine } from './watch-frames';
import { watcherCommand } from './watcher-perl';
import { HEARTBEAT_MS, MAX_FRAME_BYTES } from './watcher-script';

/** Which watcher a test runs: the shell one, or the Perl one hosts with perl get. */
type Mode = 'sh' | 'perl';

/**
 * The watcher script run by a local sh, as sshd would run it (its input a pipe held open, as the
 * channel's is); every line that wakes a poll (`changed`, the end of a first listing, a `+` frame, a `~` change) is
 * timestamped, and all lines but heartbeats are kept.
 */
function run(mode: Mode, dirs: string[], statMs: number, env: NodeJS.ProcessEnv = process.env, heartbeatMs = HEARTBEAT_MS): { child: ChildProcess; wakes: number[]; lines: string[] } {
  const child = spawn('sh', ['-c', watcherCommand(dirs, statMs, mode, heartbeatMs)], { env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
  const wakes: number[] = [];
  const lines: string[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const got = (rest + chunk.toString()).split('\n');
    rest = got.pop() ?? '';
    for (const l of got) {
      if (l === '.') continue;
      lines.push(l);
      if (l === 'changed' || l === 'listed' || l.startsWith('+') || l.startsWith('~')) wakes.push(Date.now());
    }
  });
  return { child, wakes, lines };
}

/** The watcher's first report is in: `changed` (sh), or the end of its listing (Perl). */
const firstReport = (lines: readonly string[]): boolean => lines.includes('changed') || lines.includes('listed');

/** Whether the watcher's sh has exited. */
const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** The link is gone, as sshd shows it to the command: its input ends and its output is closed. */
function linkGone(child: ChildProcess): void {
  child.stdin?.end();
  child.stdout?.destroy();
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

/**
 * The tails naming `marker` that follow their files: a tail is listed by ps before it has opened
 * them, and an append in that gap is at its start (`-n0`), seen only by the next listing. GNU tail
 * makes its inotify descriptor after the files are open and at their end, and reads what came
 * since once its watches are set: from then on no append is missed.
 */
function following(marker: string): number {
  return running(marker).filter((p) => p.args.startsWith('tail -n0 -q -F -- ') && inotifyOpen(p.pid)).length;
}

/** Whether process `pid` has an inotify descriptor open (a `tail -F` that follows its files). */
function inotifyOpen(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === 'anon_inode:inotify';
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * A watched folder holding an empty `a.log`, and an environment whose PATH finds first the `tail`
 * `script` returns (given the test's folder).
 */
function withTail(script: (dir: string) => string): { watched: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'tail'), script(dir));
  chmodSync(join(bin, 'tail'), 0o755);
  const watched = join(dir, 'w');
  mkdirSync(watched);
  writeFileSync(join(watched, 'a.log'), '');
  return { watched, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } };
}

/** A file's text, or '' while it does not exist. */
function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
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

/** Watchers a test started: their process groups are killed after each test. */
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

describe.each(['sh', 'perl'] as const)('the %s watcher', (mode) => {

  it('lists every 50 ms where tail -F cannot run, whatever the listing interval asked', async () => {
    const { watched, env } = withTail(() => '#!/bin/sh\nexit 1\n'); // a host whose tail has no -F
    const { child, wakes } = run(mode, [watched], 5000, env);
    children.push(child);
    // The fallback is on once the watcher sleeps 50 ms between listings (it starts on the 5 s one).
    const fallback = (): boolean => processes().some((p) => p.pgid === child.pid && p.args === 'sleep 0.050');
    // (Perl sees its tail end at once and lists every 50 ms from then on: no sleep process to see.)
    await until(() => wakes.length > 0 && (mode === 'perl' || fallback()), 10_000, 'the first listing and the 50 ms fallback');
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
    const { child, wakes } = run(mode, [watched], 60_000);
    children.push(child);
    await until(() => wakes.length > 0 && following('-odd name.log') > 0, 10_000, 'the first listing and its tail');
    const t0 = Date.now();
    appendFileSync(join(watched, '-odd name.log'), 'x\n');
    await until(() => wakes.some((t) => t >= t0), 20_000, 'a wake after the append'); // tail -F, not the 60 s listing
  }, 45_000);

  // A tail that ends while its next starts leaves a gap an append can fall into, caught only by
  // the next listing (60 s here). The first tail follows the names the first listing saw, so
  // nothing ends it before a change: one tail until the append, then (sh) one more.
  it('starts its first tail after the first listing, and again only when woken', async () => {
    const real = execFileSync('sh', ['-c', 'command -v tail'], { encoding: 'utf8' }).trim();
    let started = '';
    // Every `tail -F` the watcher starts writes its pid (which exec keeps) to a file first.
    const { watched, env } = withTail((dir) => {
      started = join(dir, 'tails');
      return `#!/bin/sh\ncase " $* " in *" -F "*) echo $$ >>${JSON.stringify(started)} ;; esac\nexec ${JSON.stringify(real)} "$@"\n`;
    });
    const { child, wakes } = run(mode, [watched], 60_000, env);
    children.push(child);
    const starts = (): number[] => readFileSafe(started).split('\n').filter(Boolean).map(Number);
    const follows = (pid: number | undefined): boolean => pid !== undefined && inotifyOpen(pid);
    await until(() => wakes.length > 0 && follows(starts().at(-1)), 10_000, 'the first report and a tail that follows');
    const t0 = Date.now();
    appendFileSync(join(watched, 'a.log'), 'x\n');
    await until(() => wakes.some((t) => t >= t0), 20_000, 'a wake after the append');
    // sh starts a tail after each wake; Perl keeps its one.
    const expected = mode === 'sh' ? 2 : 1;
    await until(() => starts().length >= expected && follows(starts().at(-1)), 20_000, 'the tail after the wake');
    expect(starts()).toHaveLength(expected);
  }, 60_000);

  it.each(['SIGTERM', 'SIGHUP', 'SIGINT'] as const)('ends its events loop and every tail on %s', async (signal) => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run(mode, [watched], 250);
    children.push(child);
    await until(() => wakes.length > 0 && running(watched).some((p) => p.args.startsWith('tail -n0 -q -F -- ')), 10_000, 'the watcher and its tail');
    process.kill(child.pid ?? 0, signal);
    await expectNothingLeft(watched, `left running after ${signal} of the watcher`);
  }, 20_000);

  // (GNU tail also ends once its reader is gone; BSD tail only on its next write.)
  it('ends the tail that woke it at once, not on that tail\'s next write', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run(mode, [watched], 5000);
    children.push(child);
    const tails = (): number => running(watched).filter((p) => p.args.startsWith('tail -n0 -q -F -- ')).length;
    await until(() => wakes.length > 0 && tails() === 1 && following(watched) === 1, 10_000, 'the watcher and its tail');
    for (let i = 1; i <= 5; i++) {
      const before = wakes.length;
      appendFileSync(join(watched, 'a.log'), 'x\n');
      // The next append only once the tail started after this wake follows the file.
      await until(() => wakes.length > before && tails() === 1 && following(watched) === 1, 20_000, `wake ${i} with one tail running`);
    }
    // No more writes: a tail left over from a wake would stay, so exactly one follows the folder.
    expect(await holdsWithin(() => tails() > 1, 500)).toBe(false);
  }, 120_000);

  it('streams what is appended to a file with its offset and stat, and names other changes', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const file = join(watched, 'remediate.log');
    writeFileSync(file, 'first\n');
    // Appends wake it at once (tail -F); a truncation is seen by the listing, every 250 ms.
    const { child, lines } = run(mode, [watched], 250);
    children.push(child);
    await until(() => firstReport(lines) && running(watched).some((p) => p.args.startsWith('tail -n0 -q -F -- ')), 10_000, 'the first listing and its tail');
    // Rebuild the file from the frames alone: every byte, at its offset, once.
    let copy = Buffer.from(readFileSync(file));
    let frames = 0;
    for (let i = 0; i < 40; i++) {
      appendFileSync(file, `line ${i} ${'é'.repeat(i % 7)}\n`);
      if (i % 10 === 0) await until(() => lines.filter((l) => l.startsWith('+')).length > frames, 20_000, `frame after line ${i}`);
      frames = lines.filter((l) => l.startsWith('+')).length;
    }
    const want = readFileSync(file);
    await until(() => {
      for (const l of lines.splice(0)) {
        const got = parseWatchLine(l);
        if (got.kind !== 'grew') continue;
        expect(got.path).toBe(file);
        expect(got.stat.size).toBe(got.from + got.bytes.length);
        // The overlap repeats bytes the copy already has: they must be the same.
        expect(got.bytes.subarray(0, copy.length - got.from)).toEqual(copy.subarray(got.from));
        copy = Buffer.concat([copy.subarray(0, got.from), got.bytes]);
      }
      return copy.length === want.length;
    }, 10_000, 'frames up to the end of the file');
    expect(copy.equals(want)).toBe(true);
    // A truncation is not a growth: anything may have changed.
    truncateSync(file, 0);
    await until(() => lines.includes('changed'), 20_000, '`changed` after the truncation');
    expect(lines.filter((l) => l.startsWith('+'))).toEqual([]);
  }, 90_000);

  it('sends a file that grew past a frame as a change to read by requests, and without base64 as sh or Perl can', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const watched = join(dir, 'w');
    mkdirSync(watched);
    const file = join(watched, 'a.log');
    writeFileSync(file, '');
    const big = run(mode, [watched], 5000);
    children.push(big.child);
    await until(() => firstReport(big.lines) && following(watched) > 0, 10_000, 'the watcher');
    appendFileSync(file, 'x'.repeat(MAX_FRAME_BYTES + 1));
    // What is said is the subject, not how soon: the woken listing says it, or the 5 s one. The
    // waits here are hang limits (a full run, four files at once on two cores, passed 5 s).
    await until(() => big.lines.some((l) => l.startsWith('~')), 20_000, 'a `~` line');
    expect(parseWatchLine(big.lines.find((l) => l.startsWith('~')) ?? '')).toMatchObject({ kind: 'touched', path: file, stat: { size: MAX_FRAME_BYTES + 1 } });
    expect(big.lines.some((l) => l.startsWith('+'))).toBe(false);
    process.kill(-(big.child.pid ?? 0), 'SIGKILL');

    // Without base64 (sh: a base64 that does not work; Perl: no MIME::Base64): sh sends the
    // change to be read by requests, Perl the bytes as hex.
    const lib = join(dir, 'lib');
    mkdirSync(join(lib, 'MIME'), { recursive: true });
    writeFileSync(join(lib, 'MIME', 'Base64.pm'), 'die "no MIME::Base64 here\\n";\n');
    writeFileSync(join(lib, 'base64'), '#!/bin/sh\nexit 127\n');
    chmodSync(join(lib, 'base64'), 0o755);
    const none = run(mode, [watched], 5000, { ...process.env, PATH: `${lib}:${process.env.PATH ?? ''}`, PERL5LIB: lib });
    children.push(none.child);
    await until(() => firstReport(none.lines) && following(watched) > 0, 10_000, 'the second watcher');
    const size = MAX_FRAME_BYTES + 1;
    appendFileSync(file, 'small\n');
    await until(() => none.lines.some((l) => l.startsWith(mode === 'sh' ? '~' : '+')), 20_000, 'a line after the append without base64');
    const got = parseWatchLine(none.lines.find((l) => l.startsWith(mode === 'sh' ? '~' : '+')) ?? '');
    if (mode === 'sh') expect(got).toMatchObject({ kind: 'touched', path: file, stat: { size: size + 6 } });
    else {
      expect(got).toMatchObject({ kind: 'grew', path: file, from: size - 64, stat: { size: size + 6 } });
      expect(got.kind === 'grew' && got.bytes.toString()).toBe(`${'x'.repeat(64)}small\n`);
    }
  }, 90_000);

});

describe('the sh watcher', () => {
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
    const { child, wakes } = run('sh', [watched], 250, { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
    children.push(child);
    const tailUp = (): boolean => running(watched).some((p) => p.args.startsWith(`${realTail} -n0 -q -F -- `));
    const tailStarting = (): boolean => running(watched).some((p) => p.args.includes(`${bin}/tail -n0`));
    await until(() => wakes.length > 0 && tailUp() && !tailStarting(), 15_000, 'the watcher and its tail');
    appendFileSync(join(watched, 'a.log'), 'x\n');
    await until(tailStarting, 20_000, 'the next tail starting after the wake');
    linkGone(child);
    await until(() => exited(child), 10_000, 'the watcher to exit once its input ended');
    rmSync(watched, { recursive: true, force: true });
    await expectNothingLeft(watched, 'left running after the link was gone');
  }, 60_000);
});

describe('the perl watcher', () => {
  it('reports first its listing, every entry with its stat, then `listed` (and `changed` where a name is not plain)', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'remediate.log'), 'one\n');
    mkdirSync(join(watched, '2026-12-02'));
    const { child, lines } = run('perl', [watched, join(watched, 'not-there')], 250);
    children.push(child);
    await until(() => lines.includes('listed'), 10_000, 'the first listing');
    const entries = lines.slice(0, lines.indexOf('listed')).map((l) => parseWatchLine(l));
    const want = (name: string): object => {
      const st = statSync(join(watched, name));
      return { kind: 'entry', path: join(watched, name), stat: expect.objectContaining({ ino: String(st.ino), size: st.size, mtimeMs: Math.floor(st.mtimeMs / 1000) * 1000, kind: st.isDirectory() ? 'directory' : 'file' }) };
    };
    expect(entries).toEqual([want('2026-12-02'), want('remediate.log')]);
    expect(lines).not.toContain('changed');
    // After it, a change is reported as before.
    appendFileSync(join(watched, 'remediate.log'), 'two\n');
    await until(() => lines.some((l) => l.startsWith('+')), 10_000, 'a frame');

    const odd = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(odd, 'caf\u00e9.log'), 'x\n');
    const second = run('perl', [odd], 250);
    children.push(second.child);
    await until(() => second.lines.includes('listed'), 10_000, 'the second listing');
    await until(() => second.lines.includes('changed'), 10_000, '`changed` for the name that is not plain');
  }, 30_000);

  it('ends with its tail once the link is gone, with nothing written to the folder', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run('perl', [watched], 250);
    children.push(child);
    await until(() => wakes.length > 0 && running(watched).some((p) => p.args.startsWith('tail -n0 -q -F -- ')), 10_000, 'the watcher and its tail');
    linkGone(child);
    await until(() => exited(child), 10_000, 'the watcher to exit once its input ended');
    await expectNothingLeft(watched, 'left running after the link was gone');
  }, 20_000);
});

describe.each(['sh', 'perl'] as const)('the %s watcher and its link', (mode) => {
  // sshd closes the command's input with the channel (a close, or the connection gone): that
  // ends the watcher at once, whatever it was doing, with nothing written to the link. Without
  // the reader of its input it would run on until its next heartbeat, a minute away.
  it('ends at once when its input ends, though its output is still open', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run(mode, [watched], 250);
    children.push(child);
    await until(() => wakes.length > 0 && running(watched).some((p) => p.args.startsWith('tail -n0 -q -F -- ')), 10_000, 'the watcher and its tail');
    child.stdin?.end();
    await until(() => exited(child), 10_000, 'the watcher to exit once its input ended');
    // Not the heartbeat: it is further away than the wait above.
    expect(HEARTBEAT_MS).toBeGreaterThan(10_000);
    await expectNothingLeft(watched, 'left running after its input ended');
  }, 30_000);

  // The backstop, for a host whose sshd keeps the input open: a heartbeat that cannot be written.
  it('ends at its next heartbeat once its output is gone, its input left open', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run(mode, [watched], 250, process.env, 1000);
    children.push(child);
    await until(() => wakes.length > 0, 10_000, 'the watcher');
    child.stdout?.destroy();
    await until(() => exited(child), 12_000, 'the watcher to exit at its next heartbeat');
    await expectNothingLeft(watched, 'left running after its output was gone');
  }, 30_000);
});
