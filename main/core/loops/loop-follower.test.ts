import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
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
