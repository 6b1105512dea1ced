import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../config/load-config';
import { FileReadError } from '../sources/file-source';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { LoopFollower, TIMES_ONLY_MS } from './loop-follower';

class CountingSource extends LocalSource {
  lists = 0;
  override list(path: string) {
    this.lists += 1;
    return super.list(path);
  }
}

describe('LoopFollower', () => {
  it('reads the two newest cycles every poll and older, finished ones every 20th, deriving all each time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-hot-'));
    const runs = join(dir, 'runs');
    const dates = ['2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29'];
    for (const d of dates) {
      mkdirSync(join(runs, d), { recursive: true });
      writeFileSync(join(runs, d, 'audit.status'), `audit ${d}T00:00:00+00:00 STARTED\n`);
    }
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, cap: 20h } }\n`);
    const source = new CountingSource('r');
    const follower = new LoopFollower('l', cfg.loops.l!, source, Store.open(':memory:'));
    const status = (s: Awaited<ReturnType<LoopFollower['poll']>>, date: string) => s.cycles.find((c) => c.date === date)?.phases[0]?.status;

    await follower.poll(new Date('2026-11-29T06:00:00Z'));
    source.lists = 0;
    const hot = await follower.poll(new Date('2026-11-29T06:00:01Z'));
    expect(source.lists).toBe(3); // the runs folder and the two newest cycles
    // The oldest cycle is past its cap now: derived afresh although not read.
    expect(status(hot, '2026-11-26')).toBe('incomplete');
    expect(status(hot, '2026-11-29')).toBe('running');

    appendFileSync(join(runs, '2026-11-26', 'audit.status'), 'audit 2026-11-26T00:40:00+00:00 OK\n');
    appendFileSync(join(runs, '2026-11-29', 'audit.status'), 'audit 2026-11-29T00:40:00+00:00 OK\n');
    const next = await follower.poll(new Date('2026-11-29T06:00:02Z'));
    expect(status(next, '2026-11-29')).toBe('ok');
    let late = next;
    for (let i = 0; i < 20 && status(late, '2026-11-26') !== 'ok'; i++) late = await follower.poll(new Date('2026-11-29T06:00:03Z'));
    expect(status(late, '2026-11-26')).toBe('ok');
  });
});

describe('LoopFollower and lines that only move a file time', () => {
  afterEach(() => vi.restoreAllMocks());

  it('derives a running phase\'s cycle for none of them, and a finished one shown by file times at most every TIMES_ONLY_MS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-times-'));
    const runs = join(dir, 'runs');
    const day = join(runs, '2026-11-29');
    mkdirSync(day, { recursive: true });
    // audit runs (young); remediate started over 20 h before `now` without an outcome: past its cap.
    writeFileSync(join(day, 'audit.status'), 'audit 2026-11-29T05:00:00+00:00 STARTED\n');
    writeFileSync(join(day, 'audit.log'), 'tool_use Read a\n');
    writeFileSync(join(day, 'remediate.status'), 'remediate 2026-11-28T08:00:00+00:00 STARTED\n');
    writeFileSync(join(day, 'remediate.log'), 'tool_use Read a\n');
    const at = (iso: string): Date => new Date(iso);
    for (const f of ['remediate.status', 'remediate.log']) utimesSync(join(day, f), at('2026-11-29T04:00:00Z'), at('2026-11-29T04:00:00Z'));
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, phases: [audit, remediate], cap: 20h } }\n`);
    const follower = new LoopFollower('l', cfg.loops.l!, new LocalSource('r'), Store.open(':memory:'));
    let wall = 1_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => wall);
    const now = at('2026-11-29T06:00:00Z');
    const first = await follower.poll(now);
    const phase = (p: typeof first, name: string) => p.cycles[0]?.phases.find((x) => x.name === name);
    expect(phase(first, 'audit')?.status).toBe('running');
    expect(phase(first, 'remediate')).toMatchObject({ status: 'incomplete', endedAt: '2026-11-29T04:00:00.000Z', timesFrom: 'files' });

    // A line in the running audit: nothing it shows moved, nothing is derived or published.
    appendFileSync(join(day, 'audit.log'), 'tool_use Read b\n');
    expect((await follower.poll(now)).upserted).toEqual([]);
    // Lines in the remediate past its cap: its end (the log's time) moves, shown at most every TIMES_ONLY_MS.
    appendFileSync(join(day, 'remediate.log'), 'tool_use Read b\n');
    utimesSync(join(day, 'remediate.log'), at('2026-11-29T05:00:00Z'), at('2026-11-29T05:00:00Z'));
    wall += 100;
    expect((await follower.poll(now)).upserted).toEqual([]);
    wall += TIMES_ONLY_MS;
    const later = await follower.poll(now);
    expect(later.upserted.map((c) => c.date)).toEqual(['2026-11-29']);
    expect(phase(later, 'remediate')?.endedAt).toBe('2026-11-29T05:00:00.000Z');
    // A line that makes a record (a verdict) is derived at once, whatever the throttle.
    appendFileSync(join(day, 'remediate.status'), 'remediate 2026-11-29T05:30:00+00:00 OK\n');
    wall += 10;
    expect(phase(await follower.poll(now), 'remediate')?.status).toBe('ok');
  });
});

describe('LoopFollower with files it cannot read', () => {
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-unreadable-'));
    const runs = join(dir, 'runs');
    const day = join(runs, '2026-11-29');
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, 'audit.status'), 'audit 2026-11-29T00:00:00+00:00 STARTED\naudit 2026-11-29T00:40:00+00:00 OK\n');
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, phases: [audit, remediate, deliver], cap: 20h } }\n`);
    return { day, loop: cfg.loops.l! };
  };

  it('reports a named pipe and a looping link as problems of their files, and derives every other phase', async () => {
    const { day, loop } = setup();
    execFileSync('mkfifo', [join(day, 'remediate.status')]);
    execFileSync('ln', ['-s', 'deliver.log', join(day, 'deliver.log')]);
    const store = Store.open(':memory:');
    const follower = new LoopFollower('l', loop, new LocalSource('r'), store);
    const state = await follower.poll(new Date('2026-11-29T06:00:00Z'));
    expect(state.cycles[0]?.phases.find((p) => p.name === 'audit')?.status).toBe('ok');
    expect(store.problems().map((p) => p.message)).toEqual([
      `${join(day, 'deliver.log')} is a symbolic link that cannot be followed, not a regular file; not read.`,
      `${join(day, 'remediate.status')} is a named pipe (FIFO), not a regular file; not read.`,
    ]);
    // Polling goes on: a later stamp of the readable phase still lands.
    appendFileSync(join(day, 'deliver.status'), 'deliver 2026-11-29T05:00:00+00:00 0 PR(s), nothing to merge\n');
    const next = await follower.poll(new Date('2026-11-29T06:00:01Z'));
    expect(next.cycles[0]?.phases.find((p) => p.name === 'deliver')?.status).toBe('ok');
  });

  it('keeps a file that cannot be read (permission denied) to its own phase', async () => {
    const { day, loop } = setup();
    writeFileSync(join(day, 'remediate.log'), 'some transcript\n');
    const denied = join(day, 'remediate.log');
    // Tests run as root, where chmod 000 denies nothing: this source fails the one read as EACCES would.
    class DenyingSource extends LocalSource {
      override read(path: string, offset: number, length: number): Promise<Buffer> {
        if (path === denied) return Promise.reject(new FileReadError(`Cannot read ${path}: EACCES: permission denied, open '${path}'`));
        return super.read(path, offset, length);
      }
    }
    const store = Store.open(':memory:');
    const state = await new LoopFollower('l', loop, new DenyingSource('r'), store).poll(new Date('2026-11-29T06:00:00Z'));
    expect(state.cycles[0]?.phases.find((p) => p.name === 'audit')?.status).toBe('ok');
    expect(store.problems()).toEqual([{ source: denied, line: null, message: `Cannot read ${denied}: EACCES: permission denied, open '${denied}'` }]);
  });

  it('drops the problems of a file deleted from the cycle', async () => {
    const { day, loop } = setup();
    writeFileSync(join(day, 'remediate.gates.rc'), 'junk\n'.repeat(100));
    const store = Store.open(':memory:');
    const follower = new LoopFollower('l', loop, new LocalSource('r'), store);
    await follower.poll(new Date('2026-11-29T06:00:00Z'));
    expect(store.problems()).toHaveLength(21);
    rmSync(join(day, 'remediate.gates.rc'));
    await follower.poll(new Date('2026-11-29T06:00:01Z'));
    expect(store.problems()).toEqual([]);
  });
});

describe('LoopFollower and the phase signals', () => {
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-signals-'));
    const runs = join(dir, 'runs');
    const day = join(runs, '2026-11-29');
    mkdirSync(day, { recursive: true });
    const at = (iso: string): Date => new Date(iso);
    writeFileSync(join(day, 'remediate.status'), 'remediate 2026-11-29T05:00:00+00:00 STARTED\n');
    writeFileSync(join(day, 'remediate.log'), `${'tool_use Read a\n'.repeat(3)}stream watchdog: no progress for 600s, killing the agent\n`);
    for (const f of ['remediate.status', 'remediate.log']) utimesSync(join(day, f), at('2026-11-29T05:50:00Z'), at('2026-11-29T05:50:00Z'));
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, phases: [remediate], cap: 20h } }\n`);
    return { day, loop: cfg.loops.l!, at };
  };

  it('takes a watchdog kill read before a restart from the stored marks, and shows no signal for cycles restored with the host down', async () => {
    const { loop, at } = setup();
    const store = Store.open(':memory:');
    const first = await new LoopFollower('l', loop, new LocalSource('r'), store).poll(at('2026-11-29T06:00:00Z'));
    expect(first.cycles[0]?.phases[0]?.signal).toMatchObject({ kind: 'watchdog', line: 4, since: '2026-11-29T05:50:00.000Z' });
    store.flushPositions();
    // Restored while the host is down: what the store holds, without a signal (whether the transcript grew is not known).
    const again = new LoopFollower('l', loop, new LocalSource('r'), store);
    const restored = again.restore(at('2026-11-29T06:01:00Z'));
    expect(restored?.cycles[0]?.phases[0]?.status).toBe('running');
    expect(restored?.cycles[0]?.phases[0]?.signal).toBeUndefined();
    // The host answers: nothing new to read, and the kill comes back from the stored marks.
    const read = await again.poll(at('2026-11-29T06:02:00Z'));
    expect(read.cycles[0]?.phases[0]?.signal).toMatchObject({ kind: 'watchdog', line: 4 });
  });

  it('turns a silent phase hung by the clock on a quiet poll, at the loop\'s silence', async () => {
    const { loop, at, day } = setup();
    writeFileSync(join(day, 'remediate.log'), 'tool_use Read a\ntool_use Read b\n');
    utimesSync(join(day, 'remediate.log'), at('2026-11-29T05:50:00Z'), at('2026-11-29T05:50:00Z'));
    const follower = new LoopFollower('l', loop, new LocalSource('r'), Store.open(':memory:'));
    expect((await follower.poll(at('2026-11-29T06:00:00Z'))).cycles[0]?.phases[0]?.signal).toBeUndefined();
    expect((await follower.poll(at('2026-11-29T06:19:00Z'), { quiet: true })).upserted).toEqual([]);
    const hung = await follower.poll(at('2026-11-29T06:20:00Z'), { quiet: true });
    expect(hung.upserted[0]?.phases[0]?.signal).toMatchObject({ kind: 'hung', line: 2, since: '2026-11-29T05:50:00.000Z' });
  });
});

describe('LoopFollower and per-phase caps', () => {
  it('holds deliver to its own 3 h cap while remediate keeps the loop\'s 20 h cap, and counts continuation rounds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-caps-'));
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, '2026-11-29'), { recursive: true });
    // Remediate resumed once (two STARTED) and still runs; deliver started 4 h ago, no outcome.
    writeFileSync(join(runs, '2026-11-29', 'remediate.status'), 'remediate 2026-11-29T00:00:00+00:00 STARTED\nremediate 2026-11-29T01:00:00+00:00 FAILED 75\nremediate 2026-11-29T01:05:00+00:00 STARTED\n');
    writeFileSync(join(runs, '2026-11-29', 'deliver.status'), 'deliver 2026-11-29T02:00:00+00:00 STARTED\n');
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, cap: 20h, caps: { deliver: 3h } } }\n`);
    const follower = new LoopFollower('l', cfg.loops.l!, new LocalSource('r'), Store.open(':memory:'));
    const phase = (s: Awaited<ReturnType<LoopFollower['poll']>>, name: string) => s.cycles.find((c) => c.date === '2026-11-29')?.phases.find((p) => p.name === name);

    const early = await follower.poll(new Date('2026-11-29T04:59:00Z'));
    expect(phase(early, 'deliver')?.status).toBe('running');
    const late = await follower.poll(new Date('2026-11-29T06:00:00Z'));
    expect(phase(late, 'deliver')).toMatchObject({ status: 'incomplete', reason: 'STARTED stamp but no outcome after 4h (cap 3h)' });
    expect(phase(late, 'deliver')?.rounds).toBeUndefined();
    expect(phase(late, 'remediate')).toMatchObject({ status: 'running', rounds: 2 });
    rmSync(dir, { recursive: true, force: true });
  });
});
