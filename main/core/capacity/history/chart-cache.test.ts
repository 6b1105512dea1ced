import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../store/store';
import { ChartRowCache } from './chart-cache';
import { CapacityHistory, type ChartRow, type StoredSample } from './history-store';
import { historyOutput } from './history-query';

const T0 = Date.parse('2026-09-01T00:00:00Z');
const MIN = 60_000;
const sample = (host: string, t: number, inflight: number): StoredSample => ({
  proxy: 'xb', host, t, up: true, slotsTotal: 4, slotsBusy: 2, inflight, queued: 0, spanMs: MIN, requests: 5, errors: t % (7 * MIN) === 0 ? { '503': 1 } : null,
});
/** Two hosts, a sample a minute from T0 for `minutes` minutes. */
const samples = (from: number, minutes: number): StoredSample[] =>
  Array.from({ length: minutes }, (_, i) => ['gpu-a', 'gpu-b'].map((h, k) => sample(h, from + i * MIN, (i * (k + 3)) % 11))).flat();
const dbFile = (): string => join(mkdtempSync(join(tmpdir(), 'ld-charts-')), 'loopdeck.db');

/** Answer `range` at `now` through `h` (one read of its cache), expecting what an instance that never read before (no cache) answers. */
function same(store: Store, h: CapacityHistory, range: '1h' | '24h' | '7d' | '30d', now: number) {
  const input = { range, maxPoints: 1000 } as const;
  const cached = historyOutput(h, input, new Date(now), []);
  expect(cached).toEqual(historyOutput(new CapacityHistory(store.sql), input, new Date(now), []));
  return cached;
}

describe('chart rows cache', () => {
  it('reads again only the newest bucket of each series and what came after it, and answers as a fresh read does', () => {
    const store = Store.open(dbFile());
    const h = new CapacityHistory(store.sql);
    h.record(samples(T0, 3 * 24 * 60));
    let now = T0 + 3 * 24 * 60 * MIN;
    for (const range of ['1h', '24h', '7d'] as const) same(store, h, range, now);
    const first = h.charts.rowsRead;
    // Per host: the last hour's 60 raw samples, a day's 1,440 minutes, three days' 432 ten-minute buckets.
    expect(first).toBe(2 * (60 + 24 * 60 + 3 * 24 * 6));

    // A sample into each series' open bucket, then ones that open new buckets: read again, the
    // refetch reads the newest bucket and the new ones, per series, not the window.
    h.record(samples(now, 1));
    now += MIN;
    same(store, h, '7d', now);
    h.record(samples(now, 15));
    now += 15 * MIN;
    const before = h.charts.rowsRead;
    for (const range of ['1h', '24h', '7d'] as const) same(store, h, range, now);
    // 1h reads raw samples (16 new and the newest again), 24h minutes (17), 7d ten-minute buckets (3): per host.
    expect(h.charts.rowsRead - before).toBeLessThanOrEqual(2 * (17 + 17 + 3));
    store.close();
  });

  it('drops what it cannot follow: a sample folded into an older bucket, a prune, another connection\'s write', () => {
    const file = dbFile();
    const store = Store.open(file);
    const h = new CapacityHistory(store.sql);
    h.record(samples(T0, 6 * 60));
    let now = T0 + 6 * 60 * MIN;
    same(store, h, '24h', now);

    // A late sample, two hours back, with a peak: the cached buckets after it would never see it.
    h.record([sample('gpu-a', T0 + 4 * 60 * MIN + 30_000, 99)]);
    const late = same(store, h, '24h', now);
    expect(Math.max(...(late.series[0]?.inflight ?? []).map((v) => v ?? 0))).toBeGreaterThan(11);

    // A prune that drops the oldest raw samples (kept 48 h): the 1h view's rows are read again.
    now += 47 * 60 * MIN;
    h.record(samples(now - 30 * MIN, 30));
    same(store, h, '1h', now);
    h.prune(now + 2 * 60 * MIN);
    h.record(samples(now, 60));
    now += 60 * MIN;
    expect(same(store, h, '1h', now).series.map((x) => x.t.length)).toEqual([60, 60]);

    // Another process on the same database writes a late sample: seen on the next read.
    const other = Store.open(file);
    new CapacityHistory(other.sql).record([sample('gpu-b', now - 45 * MIN + 30_000, 77)]);
    other.close();
    const seen = same(store, h, '1h', now);
    expect(seen.series[1]?.inflight).toContain(77);
    store.close();
  });

  it('keeps one window per series: what slid out of it is not kept, and a longer range reads it afresh', () => {
    const store = Store.open(dbFile());
    const h = new CapacityHistory(store.sql);
    h.record(samples(T0, 4 * 60));
    let now = T0 + 4 * 60 * MIN;
    same(store, h, '1h', now);
    h.record(samples(now, 90));
    now += 90 * MIN;
    const slid = same(store, h, '1h', now);
    expect(slid.series[0]?.t[0]).toBeGreaterThanOrEqual(now - 60 * MIN);
    // 7d and 30d both read ten-minute buckets: 30d starts before the window 7d left, so it is read
    // afresh, and then 7d is answered from the longer window.
    same(store, h, '7d', now);
    const read = h.charts.rowsRead;
    same(store, h, '30d', now);
    expect(h.charts.rowsRead - read).toBeGreaterThan(2 * 30);
    const again = h.charts.rowsRead;
    same(store, h, '7d', now);
    expect(h.charts.rowsRead - again).toBeLessThanOrEqual(2);
    store.close();
  });

  it('holds at most maxRows rows, dropping the series used longest ago, never the one just read', () => {
    const store = Store.open(':memory:');
    const cache = new ChartRowCache(store.sql, 250);
    // Each series: a row a minute from T0 (what SQLite would answer for the window asked).
    const reader = (host: string) => (from: number, to: number): ChartRow[] => {
      const out: ChartRow[] = [];
      for (let t = Math.ceil((from - T0) / MIN) * MIN + T0; t <= to; t += MIN) out.push([t, host.length, 1, 0, 0.5, MIN, null, 1, null, null]);
      return out;
    };
    const to = T0 + 99 * MIN;
    const read = (host: string) => cache.rows(MIN, 'xb', host, T0, to, reader(host));
    for (const h of ['a', 'b']) expect(read(h)).toHaveLength(100);
    expect(read('a')).toHaveLength(100); // a is now the newest used
    const before = cache.rowsRead;
    expect(read('c')).toHaveLength(100);
    // 300 rows > 250: b, used longest ago, went; a and c are kept and answered from memory.
    expect(cache.size).toBe(200);
    expect(read('a')).toHaveLength(100);
    expect(read('c')).toHaveLength(100);
    expect(cache.rowsRead - before).toBe(100 + 1 + 1);
    expect(read('b')).toHaveLength(100);
    expect(cache.rowsRead - before).toBe(100 + 1 + 1 + 100);
    expect(cache.size).toBeLessThanOrEqual(250);
    // One series larger than the bound is still answered, and kept alone.
    const big = new ChartRowCache(store.sql, 50);
    expect(big.rows(MIN, 'xb', 'a', T0, to, reader('a'))).toHaveLength(100);
    expect(big.size).toBe(100);
    expect(big.rows(MIN, 'xb', 'b', T0, to, reader('b'))).toHaveLength(100);
    expect(big.size).toBe(100);
    store.close();
  });
});
