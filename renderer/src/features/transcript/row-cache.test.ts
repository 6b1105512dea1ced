import { describe, expect, it } from 'vitest';
import { BLOCK_ROWS, MAX_BLOCKS, RowCache, type TranscriptRow } from './row-cache';

function fileOf(lines: () => number) {
  const asked: number[] = [];
  const fetch = async (from: number, count: number): Promise<TranscriptRow[]> => {
    asked.push(from);
    const rows: TranscriptRow[] = [];
    for (let n = from; n < from + count && n <= lines(); n++) rows.push({ n, text: `line ${n}`, cut: false });
    return rows;
  };
  return { asked, fetch };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the transcript row cache', () => {
  it('fetches only the blocks in view and the one after, once each, and drops the least recently used', async () => {
    const f = fileOf(() => 10_000_000);
    let changes = 0;
    const cache = new RowCache(f.fetch, () => changes++);
    cache.want(5_000_000, 40, 10_000_000);
    cache.want(5_000_000, 40, 10_000_000);
    await settle();
    expect(f.asked).toEqual([4_999_801, 5_000_001, 5_000_201]);
    expect(cache.rows(5_000_000, 3).map((r) => r?.text)).toEqual(['line 5000000', 'line 5000001', 'line 5000002']);
    expect(changes).toBe(3);
    for (let i = 0; i < MAX_BLOCKS + 10; i++) cache.want(1 + i * 2 * BLOCK_ROWS, 10, 10_000_000);
    await settle();
    expect(cache.size).toBe(MAX_BLOCKS);
  });

  it('fetches the last block again when the file grew past it (follow), and nothing after a reset is from before it', async () => {
    let lines = 250;
    const f = fileOf(() => lines);
    const cache = new RowCache(f.fetch, () => undefined);
    cache.want(211, 40, lines);
    await settle();
    expect(cache.rows(250, 2).map((r) => r?.n)).toEqual([250, undefined]);
    lines = 260;
    cache.want(221, 40, lines);
    await settle();
    expect(cache.rows(259, 2).map((r) => r?.n)).toEqual([259, 260]);
    cache.reset();
    expect(cache.rows(259, 1)).toEqual([undefined]);
  });
});

describe('the transcript row cache while the file grows', () => {
  it('reads a block again when the file grew while it was being read (follow)', async () => {
    let lines = 300;
    const f = fileOf(() => lines);
    const cache = new RowCache(f.fetch, () => undefined);
    cache.want(261, 40, lines);
    // The line lands while the block's read is in flight: the view asks again, and is told it is pending.
    lines = 301;
    cache.want(262, 40, lines);
    await settle();
    await settle();
    expect(cache.rows(301, 1).map((r) => r?.n)).toEqual([301]);
  });
});
