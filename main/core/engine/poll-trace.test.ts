import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PollTrace, type PollTraceLine } from './poll-trace';

describe('the poll trace (LOOPDECK_POLL_TRACE)', () => {
  it('is off without the variable, and with it writes one line a poll: what was read, per host, and how long the reports waited', async () => {
    expect(PollTrace.fromEnv({})).toBeNull();
    const file = join(mkdtempSync(join(tmpdir(), 'ld-trace-')), 'polls.jsonl');
    const trace = PollTrace.fromEnv({ LOOPDECK_POLL_TRACE: file });
    if (!trace) throw new Error('no trace');
    trace.reported('a');
    trace.reported('a');
    trace.reported('b');
    const items = [
      { host: 'a', name: 'x' },
      { host: 'a', name: 'y' },
      { host: 'b', name: 'z' },
    ];
    const read: string[] = [];
    const out = await trace.poll('wake', items, (i) => i.host, async (i) => (read.push(i.name), i.name === 'z'));
    expect(out.any).toBe(true);
    expect(read.sort()).toEqual(['x', 'y', 'z']);
    // A second poll: the reports were taken by the first, so nothing waited.
    await trace.poll('timer', items.slice(2), (i) => i.host, async () => false);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as PollTraceLine);
    expect(lines.map((l) => [l.reason, l.loops, l.hosts])).toEqual([
      ['wake', 3, 2],
      ['timer', 1, 1],
    ]);
    expect(lines[0]?.readMs).toBeGreaterThanOrEqual(lines[0]?.hostMsMax ?? Infinity);
    expect(lines[0]?.waitMsMax).toBeGreaterThanOrEqual(0);
    expect([lines[1]?.waitMsP50, lines[1]?.waitMsMax]).toEqual([0, 0]);
  });
});
