import { describe, expect, it } from 'vitest';
import type { Capacity } from '../../../../shared/domain';
import { Store } from '../../store/store';
import { CapacityHistory, MINUTE_MS, RETENTION_MS, TEN_MINUTES_MS, type StoredSample } from './history-store';
import { historyOutput } from './history-query';
import type { UsageRow } from '../sources/poll-types';

const T0 = Date.parse('2026-09-01T00:00:00Z');
const sample = (t: number, v: Partial<StoredSample> = {}): StoredSample => ({
  proxy: 'xb', host: 'gpu-a', t, up: true, slotsTotal: 4, slotsBusy: 2, inflight: 2, queued: 0, spanMs: 10_000, requests: 5, errors: { '503': 1 }, ...v,
});
const open = (): { store: Store; h: CapacityHistory } => {
  const store = Store.open(':memory:');
  return { store, h: new CapacityHistory(store.sql) };
};

describe('rollups', () => {
  it('average known values, keep peaks, count samples, and sum counters over the time they cover', () => {
    const { h } = open();
    h.record([
      sample(T0 + 0, { inflight: 1, queued: 0, up: true }),
      sample(T0 + 10_000, { inflight: 5, queued: 3, up: true, requests: 7, errors: { '503': 2, '499': 1 } }),
      sample(T0 + 20_000, { inflight: null, queued: null, up: false, requests: null, errors: null, spanMs: 0 }),
      sample(T0 + 30_000, { inflight: 3, queued: 0, up: true, requests: 3, errors: {} }),
    ]);
    const [m] = h.rows(MINUTE_MS, T0, T0);
    expect(m).toMatchObject({ n: 4, up_n: 3, inflight_sum: 9, inflight_n: 3, inflight_max: 5, queued_sum: 3, queued_max: 3, span_ms: 30_000, requests: 15 });
    expect(JSON.parse(m?.errors ?? '{}')).toEqual({ '503': 3, '499': 1 });
    const [ten] = h.rows(TEN_MINUTES_MS, T0, T0);
    expect(ten).toMatchObject({ n: 4, inflight_sum: 9, requests: 15 });
    expect(h.count(0)).toBe(4);

    const out = historyOutput(h, { range: '1h', maxPoints: 1000 }, new Date(T0 + 60_000), []);
    const s = out.series[0];
    expect(s?.inflight).toEqual([1, 5, null, 3]);
    expect(s?.requestRate).toEqual([0.5, 0.7, null, 0.3]);
    expect(s?.errors).toEqual({ '499': [0, 0.1, null, 0], '503': [0.1, 0.2, null, 0] });
  });

  it('answers a 7 d range from the minute rollup with averages and rates per bucket', () => {
    const { h } = open();
    h.record([sample(T0, { inflight: 2 }), sample(T0 + 30_000, { inflight: 4 })]);
    const out = historyOutput(h, { range: '7d', maxPoints: 100 }, new Date(T0 + 3_600_000), []);
    expect(out.series[0]?.t).toEqual([T0]);
    expect(out.series[0]?.inflight).toEqual([3]);
    expect(out.series[0]?.requestRate).toEqual([10 / 20]);
  });

  it('gives one series per (proxy, host), in that order, and filters by proxy and host', () => {
    const { h } = open();
    h.record([
      sample(T0, { proxy: 'xb', host: 'gpu-b', inflight: 1 }),
      sample(T0, { proxy: 'xb', host: 'gpu-a', inflight: 2 }),
      sample(T0, { proxy: 'alpha', host: 'gpu-z', inflight: 3 }),
      sample(T0 + 10_000, { proxy: 'xb', host: 'gpu-a', inflight: 4 }),
    ]);
    const all = historyOutput(h, { range: '1h' }, new Date(T0 + 60_000), []);
    expect(all.series.map((s) => `${s.proxy}/${s.host}`)).toEqual(['alpha/gpu-z', 'xb/gpu-a', 'xb/gpu-b']);
    expect(all.series[1]?.inflight).toEqual([2, 4]);
    const one = historyOutput(h, { range: '1h', proxy: 'xb', host: 'gpu-a' }, new Date(T0 + 60_000), []);
    expect(one.series.map((s) => s.t)).toEqual([[T0, T0 + 10_000]]);
    expect(historyOutput(h, { range: '1h', host: 'gpu-b' }, new Date(T0 + 60_000), []).series.map((s) => s.proxy)).toEqual(['xb']);
  });
});

describe('retention', () => {
  it('a month of 10 s samples for 2 hosts, pruned hourly, keeps the database bounded', () => {
    const { h } = open();
    const step = 10_000;
    const end = T0 + 30 * 86_400_000;
    let peak = 0;
    let batch: StoredSample[] = [];
    for (let t = T0; t < end; t += step) {
      batch.push(sample(t, { host: 'gpu-a', inflight: (t / step) % 5 }), sample(t, { host: 'gpu-b', inflight: 1 }));
      if ((t - T0) % 3_600_000 === 3_600_000 - step) {
        h.record(batch);
        batch = [];
        h.prune(t);
        peak = Math.max(peak, h.count());
      }
    }
    // Per host, at most: the raw retention at 10 s plus one hour between prunes, and each rollup's
    // retention in buckets plus that hour and the bucket straddling the cut.
    const hour = 3_600_000;
    const bound = 2 * ((RETENTION_MS[0] ?? 0) / step + hour / step + (RETENTION_MS[MINUTE_MS] ?? 0) / MINUTE_MS + hour / MINUTE_MS + 2 + (RETENTION_MS[TEN_MINUTES_MS] ?? 0) / TEN_MINUTES_MS + hour / TEN_MINUTES_MS + 2);
    expect(bound).toBe(2 * (17_280 + 360 + 10_080 + 60 + 2 + 4_320 + 6 + 2));
    expect(peak).toBeLessThanOrEqual(bound);
    expect(h.count(0)).toBeLessThanOrEqual(2 * (17_280 + 360));
    expect(h.count(TEN_MINUTES_MS)).toBeGreaterThanOrEqual(2 * 4_300);
    const out = historyOutput(h, { range: '30d', maxPoints: 500 }, new Date(end), []);
    expect(out.series).toHaveLength(2);
    for (const s of out.series) {
      expect(s.t.length).toBeLessThanOrEqual(500);
      expect(s.t[0]).toBeLessThan(end - 29 * 86_400_000);
    }
    const day = historyOutput(h, { range: '24h', maxPoints: 300 }, new Date(end), []);
    for (const s of day.series) expect(s.t.length).toBe(300);
  }, 120_000);
});

describe('usage rows', () => {
  it('are deduplicated across overlapping polls', () => {
    const { h } = open();
    const row = (i: number): UsageRow => ({ key: `k${i}`, t: T0 + i, route: 'bm', host: 'gpu-a', model: 'm', status: '200', ttfbMs: 10, tokens: 5, error: null });
    expect(h.addUsage('xb', [0, 1, 2, 3].map(row))).toHaveLength(4);
    expect(h.addUsage('xb', [2, 3, 4, 5].map(row)).map((r) => r.key)).toEqual(['k4', 'k5']);
    expect(h.addUsage('other', [0].map(row))).toHaveLength(1);
    expect(h.usageCount()).toBe(7);
  });
});

describe('shed threshold warning', () => {
  const gw = (shedThreshold: number): Capacity => ({
    proxy: 'gw', kind: 'gateway', host: 'gw', up: true, since: null, slotsTotal: null, slotsBusy: null, inflight: 5, queued: null, nCtx: null, models: [],
    shedThreshold, highWater: 31, totalShed: 0, missing: [], error: null, polledAt: null,
  });
  it('warns when the threshold is far above where errors began', () => {
    const { h } = open();
    h.record([0, 1, 2, 3, 4, 5].map((i) => sample(T0 + i * 10_000, { proxy: 'gw', host: 'gw', inflight: 8 + i * 2, errors: i >= 3 ? { '504': 2 } : {} })));
    const out = historyOutput(h, { range: '1h' }, new Date(T0 + 120_000), [gw(80)]);
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toMatch(/^Gateway "gw": errors began at about 14 requests in flight .* shed threshold is 80.*nothing has been shed.*about 14/);
    expect(historyOutput(h, { range: '1h' }, new Date(T0 + 120_000), [gw(20)]).warnings).toEqual([]);
  });
});
