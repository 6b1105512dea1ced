import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../engine/migrations';
import { CAPACITY_KV_MIGRATION } from './schema';
import { Store } from '../../store/store';
import { CapacityHistory, MINUTE_MS, TEN_MINUTES_MS, type StoredSample } from './history-store';
import { historyOutput } from './history-query';

const T0 = Date.parse('2026-12-01T00:00:00Z');
const sample = (t: number, v: Partial<StoredSample> = {}): StoredSample => ({
  proxy: 'vl', host: 'vl', t, up: true, slotsTotal: null, slotsBusy: 3, inflight: 3, queued: 0, spanMs: 0, requests: null, errors: null, ...v,
});

describe('the KV-cache and generated tokens in the capacity history', () => {
  it('fold into the rollups as a gauge (average, peak) and a counter delta over the time it covers', () => {
    const store = Store.open(':memory:');
    const h = new CapacityHistory(store.sql);
    h.record([
      sample(T0, { kvCachePct: 40, tokens: null, tokenSpanMs: 0 }),
      sample(T0 + 10_000, { kvCachePct: 60, tokens: 500, tokenSpanMs: 10_000 }),
      sample(T0 + 20_000, { kvCachePct: null, tokens: null, up: false }),
      sample(T0 + 30_000, { kvCachePct: 95, tokens: 1000, tokenSpanMs: 20_000 }),
    ]);
    for (const res of [MINUTE_MS, TEN_MINUTES_MS]) expect(h.rows(res, T0, T0)[0]).toMatchObject({ kv_sum: 195, kv_n: 3, kv_max: 95, tokens: 1500, token_span_ms: 30_000 });
    const out = historyOutput(h, { range: '1h' }, new Date(T0 + 60_000), []);
    expect(out.series[0]).toMatchObject({ kvCache: [40, 60, null, 95], tokenRate: [null, 50, null, 50] });
    // A month's chart reads the ten-minute rollup: the average KV-cache and tokens over the covered time.
    const month = historyOutput(h, { range: '30d' }, new Date(T0 + 60_000), []);
    expect(month.series[0]).toMatchObject({ kvCache: [65], tokenRate: [50] });
    store.close();
  });

  it('a series that never knew them has neither, so nothing is drawn for it', () => {
    const store = Store.open(':memory:');
    const h = new CapacityHistory(store.sql);
    h.record([sample(T0), sample(T0 + 10_000)]);
    const s = historyOutput(h, { range: '1h' }, new Date(T0 + 60_000), []).series[0];
    expect(s).not.toHaveProperty('kvCache');
    expect(s).not.toHaveProperty('tokenRate');
    store.close();
  });

  it('a database of the previous schema keeps its history, which knows neither', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopdeck-kv-')), 'loopdeck.db');
    const old = Store.open(file, { migrateTo: MIGRATIONS.indexOf(CAPACITY_KV_MIGRATION) });
    old.sql
      .prepare('INSERT INTO capacity_samples (proxy, host, resolution_ms, t, n, up_n, inflight_sum, inflight_n, inflight_max) VALUES (?, ?, 0, ?, 1, 1, 2, 1, 2)')
      .run('llama-a', 'llama-a', T0);
    old.close();
    const store = Store.open(file);
    const h = new CapacityHistory(store.sql);
    h.record([sample(T0 + 10_000, { proxy: 'llama-a', host: 'llama-a', kvCachePct: 30 })]);
    expect(historyOutput(h, { range: '1h' }, new Date(T0 + 60_000), []).series[0]).toMatchObject({ t: [T0, T0 + 10_000], inflight: [2, 3], kvCache: [null, 30] });
    store.close();
  });
});
