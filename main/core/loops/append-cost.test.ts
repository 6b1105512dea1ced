import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { LoopFollower } from './loop-follower';

/** A LocalSource that counts the requests a follower makes. */
class CountingSource extends LocalSource {
  readonly calls = { stat: 0, read: 0, list: 0 };
  override stat(path: string) {
    this.calls.stat += 1;
    return super.stat(path);
  }
  override read(path: string, offset: number, length: number) {
    this.calls.read += 1;
    return super.read(path, offset, length);
  }
  override list(path: string) {
    this.calls.list += 1;
    return super.list(path);
  }
}

describe('the cost of one appended transcript line', () => {
  it('a woken poll for a record-less line does one stat and one read, and writes nothing to SQLite until the position is flushed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-append-cost-'));
    const runs = join(dir, 'runs');
    const cycle = join(runs, '2026-11-29');
    mkdirSync(cycle, { recursive: true });
    writeFileSync(join(cycle, 'remediate.status'), 'remediate 2026-11-29T00:00:00+00:00 STARTED\n');
    const log = join(cycle, 'remediate.log');
    writeFileSync(log, '[2026-11-29 00:00:01] starting\n');
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, cap: 20h } }\n`);
    const source = new CountingSource('r');
    const file = join(dir, 'loopdeck.db');
    const store = Store.open(file);
    const follower = new LoopFollower('l', cfg.loops.l!, source, store);
    const now = new Date('2026-11-29T06:00:00Z');
    await follower.poll(now);
    await follower.poll(now);
    const changes = store.sql.prepare('SELECT total_changes()').pluck();
    const before = changes.get() as number;

    for (let i = 0; i < 5; i++) {
      appendFileSync(log, `[2026-11-29 00:00:0${i + 2}] tool_use Read web/lib/file-${i}.ts\n`);
      source.calls.stat = source.calls.read = source.calls.list = 0;
      await follower.poll(now, { only: { files: new Set([log]), dirs: new Set() } });
      expect(source.calls).toEqual({ stat: 1, read: 1, list: 0 });
    }
    // The positions of lines that made no record wait in memory (a crash reads them again, and
    // they make no record then either): no SQLite write per line.
    expect(changes.get()).toBe(before);
    expect(store.file('r', log).lineNo).toBe(6);
    store.flushPositions();
    expect(changes.get()).toBe(before + 1);
    store.close();

    // After a restart the follower resumes at the flushed position: nothing is read twice.
    const again = Store.open(file);
    expect(again.file('r', log).lineNo).toBe(6);
    const resumed = new LoopFollower('l', cfg.loops.l!, new LocalSource('r'), again);
    await resumed.poll(now);
    expect(again.file('r', log).lineNo).toBe(6);
    again.close();
  });
});
