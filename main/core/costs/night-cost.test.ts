import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CostSchema } from '../../../shared/night-cost';
import { CapacityHistory, type StoredSample } from '../capacity/history/history-store';
import type { UsageRow } from '../capacity/sources/poll-types';
import { CostsConfigSchema } from '../config/costs-config';
import { Store } from '../store/store';
import { COST_SQL, windowCost, type CostDeps } from './night-cost';

const T0 = Date.parse('2026-11-30T00:00:00Z');
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The window priced: 01:00 to 05:00. */
const FROM = T0 + HOUR;
const TO = T0 + 5 * HOUR;

const COSTS = CostsConfigSchema.parse({
  models: {
    'qwen3-32b': { tokens: 0.6 },
    'gpt-x': { output: 10 },
    mixed: { input: 1, output: 4 },
    inonly: { input: 3 },
    same: { input: 2, output: 2 },
  },
  hosts: { 'crossbar/gpu-1': 1.5, 'gpu-2': 0.6, 'crossbar/gpu-9': 5 },
  budget: { monthly: 100 },
});

let dir: string;
let store: Store;
let deps: CostDeps;

let n = 0;
const row = (t: number, model: string | null, tokens: number | null): UsageRow => ({
  key: `k${n++}`, t, route: 'night-audit', host: 'gpu-1', model, status: '200', ttfbMs: 120, tokens, error: null,
});
const sample = (proxy: string, host: string, t: number): StoredSample => ({
  proxy, host, t, up: true, slotsTotal: 4, slotsBusy: 1, inflight: 1, queued: 0, spanMs: 0, requests: null, errors: null,
});
/** Samples of a (proxy, host) every `everyMs` from `since` while before `until`. */
const samples = (proxy: string, host: string, since: number, until: number, everyMs: number): StoredSample[] =>
  Array.from({ length: Math.ceil((until - since) / everyMs) }, (_, i) => sample(proxy, host, since + i * everyMs));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-costs-'));
  // A real data folder's database, through the real migrations (testing/schema.ts installs them).
  store = Store.open(join(dir, 'loopdeck.db'));
  const hist = new CapacityHistory(store.sql);
  hist.addUsage('crossbar', [
    row(T0 + 90 * MIN, 'qwen3-32b', 1_000_000),
    row(T0 + 2 * HOUR, 'qwen3-32b', 500_000),
    row(T0 + 2 * HOUR, 'qwen3-32b', null),
    row(T0 + 3 * HOUR, 'gemma-3-12b', 200_000),
    row(T0 + 3 * HOUR, 'gpt-x', 100_000),
    row(T0 + 3 * HOUR, 'mixed', 50_000),
    row(T0 + 3 * HOUR, 'inonly', 10_000),
    row(TO, 'same', 250_000),
    row(T0 + 4 * HOUR, null, 7_000),
    // Outside the window: not this window's cost.
    row(T0 + 30 * MIN, 'qwen3-32b', 9_000_000),
    row(TO + 1, 'qwen3-32b', 9_000_000),
  ]);
  hist.addUsage('other', [row(T0 + 2 * HOUR, 'qwen3-32b', 1_000_000)]);
  hist.record([
    // gpu-1 polled every 10 s from 00:30 to 03:00: 2 h of the window.
    ...samples('crossbar', 'gpu-1', T0 + 30 * MIN, T0 + 3 * HOUR, 10_000),
    // gpu-2 as a proxy of its own, polled at 01:00 and 01:30 (29 min apart: two separate minutes),
    // then every 5 min from 04:00 to 04:55 (gaps bridged: 56 min); 58 min in all.
    sample('gpu-2', 'gpu-2', T0 + HOUR),
    sample('gpu-2', 'gpu-2', T0 + 90 * MIN),
    ...samples('gpu-2', 'gpu-2', T0 + 4 * HOUR, T0 + 5 * HOUR, 5 * MIN),
    // …and seen through crossbar too, 04:00 to 04:10: the same machine, not counted twice.
    ...samples('crossbar', 'gpu-2', T0 + 4 * HOUR, T0 + 4 * HOUR + 10 * MIN, 10_000),
    // A host with no price.
    ...samples('crossbar', 'gpu-3', T0, T0 + 6 * HOUR, 60_000),
  ]);
  deps = { store, now: T0 + 12 * HOUR };
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('windowCost', () => {
  it('prices the window\'s tokens by model and its hosts by the hours they were seen, saying how', () => {
    const cost = windowCost(deps, FROM, TO, COSTS);
    expect(CostSchema.parse(cost)).toEqual(cost);
    // qwen 2.5 M × 0.6 = 1.5; gpt-x 0.1 M × 10 = 1; same 0.25 M × 2 = 0.5; gpu-1 2 h × 1.5 = 3; gpu-2 58 min × 0.6 = 0.58.
    expect(cost).toMatchObject({ amount: 6.58, currency: 'USD', tokens: 3_117_000, hostHours: 2.967 });
    expect(cost?.basis).toEqual([
      'qwen3-32b: 2,500,000 tokens × 0.6 USD per million (costs.models.qwen3-32b.tokens) = 1.50 USD (1 usage row without a token count left out)',
      'same: 250,000 tokens × 2 USD per million (costs.models.same.input and .output, the same) = 0.50 USD',
      "gpt-x: 100,000 tokens × 10 USD per million (costs.models.gpt-x.output, the only price: an upper bound, as the proxy's rows carry input and output tokens together) = 1.00 USD",
      'gemma-3-12b: 200,000 tokens not priced (no price under costs.models)',
      "mixed: 50,000 tokens not priced: the proxy's rows carry input and output tokens together and input and output prices differ; give costs.models.mixed.tokens, one price per million",
      "inonly: 10,000 tokens not priced: the proxy's rows carry input and output tokens together and only an input price is given, which would understate them; give costs.models.inonly.tokens, one price per million",
      'rows naming no model: 7,000 tokens not priced (no model to price them by)',
      "crossbar/gpu-1: seen 2 h of the window's 4 h × 1.5 USD per hour = 3.00 USD",
      "gpu-2: seen 0.97 h of the window's 4 h × 0.6 USD per hour = 0.58 USD",
      'crossbar/gpu-9: not seen in the window (no capacity samples of it): not priced',
    ]);
  });

  it('counts only the proxies in scope', () => {
    const cost = windowCost(deps, FROM, TO, COSTS, { proxies: ['crossbar'] });
    // qwen 1.5 M × 0.6 = 0.9; gpt-x 1; same 0.5; gpu-1 3; gpu-2 seen through crossbar only, 10 min × 0.6 = 0.1.
    expect(cost).toMatchObject({ amount: 5.5, tokens: 2_117_000, hostHours: 2.167 });
  });

  it('says tokens are not known (null, not 0) for a window without usage rows, and no host hours where no priced host was seen', () => {
    const cost = windowCost(deps, T0 + 8 * HOUR, T0 + 9 * HOUR, COSTS);
    expect(cost).toEqual({
      amount: 0,
      currency: 'USD',
      tokens: null,
      hostHours: null,
      basis: [
        'crossbar/gpu-1: not seen in the window (no capacity samples of it): not priced',
        'crossbar/gpu-9: not seen in the window (no capacity samples of it): not priced',
        'gpu-2: not seen in the window (no capacity samples of it): not priced',
        'no usage rows in the window (the proxies wrote none, or Loopdeck was not polling them): no tokens priced',
      ],
    });
  });

  it('prices nothing without costs (null), and only tokens when only models are priced', () => {
    expect(windowCost(deps, FROM, TO, undefined)).toBeNull();
    expect(windowCost(deps, FROM, TO, CostsConfigSchema.parse({ budget: { monthly: 10 } }))).toBeNull();
    const tokensOnly = windowCost(deps, FROM, TO, CostsConfigSchema.parse({ currency: 'EUR', models: { 'qwen3-32b': { tokens: 1 } } }));
    expect(tokensOnly).toMatchObject({ amount: 2.5, currency: 'EUR', tokens: 3_117_000, hostHours: null });
    expect(tokensOnly?.basis.filter((l) => l.includes('not priced'))).toHaveLength(6);
    expect(() => windowCost(deps, TO, FROM, COSTS)).toThrow(RangeError);
  });

  it('says what is past retention, and reads a window past the minute rollups from the ten-minute ones', () => {
    const cost = windowCost({ store, now: T0 + 40 * DAY }, FROM, TO, COSTS);
    expect(cost?.basis).toContain("crossbar/gpu-1: seen 2 h of the window's 4 h × 1.5 USD per hour = 3.00 USD");
    expect(cost?.basis.slice(-2)).toEqual([
      'usage rows are kept 30 days: tokens before 2026-12-10T00:00:00.000Z are not known',
      'capacity samples are kept 30 days: host hours before 2026-12-10T00:00:00.000Z are not known',
    ]);
  });

  it('keeps the basis to 12 lines, the notes on what is not known always among them', () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`gpu-${10 + i}`, 1]));
    const cost = windowCost(deps, T0 + 8 * HOUR, T0 + 9 * HOUR, CostsConfigSchema.parse({ models: { x: { tokens: 1 } }, hosts: many }));
    expect(cost?.basis).toHaveLength(12);
    expect(cost?.basis[10]).toBe('… and 10 more models and hosts');
    expect(cost?.basis[11]).toMatch(/^no usage rows in the window/);
  });

  it('reads the window through the time indexes, not the history', () => {
    const plan = (sql: string, ...params: number[]): string =>
      (store.sql.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan(COST_SQL.usage, FROM, TO)).toMatch(/USING (COVERING )?INDEX usage_rows_t \(t>\? AND t<\?\)/);
    expect(plan(COST_SQL.samples, MIN, FROM, TO)).toMatch(/USING (COVERING )?INDEX capacity_samples_t \(resolution_ms=\? AND t>\? AND t<\?\)/);
  });
});
