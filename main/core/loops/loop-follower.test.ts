import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { FileReadError } from '../sources/file-source';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { LoopFollower } from './loop-follower';

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
    appendFileSync(join(day, 'deliver.status'), 'deliver 2026-11-29T05:00:00+00:00 OK\n');
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
