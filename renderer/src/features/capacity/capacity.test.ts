import { describe, expect, it } from 'vitest';
import type { Capacity } from '../../../../shared/domain';
import {
  bandsAt,
  busiestHosts,
  ctxPerSlot,
  errorShareText,
  errorStatuses,
  groupByProxy,
  heapText,
  loadLevel,
  nearestIndex,
  phaseBands,
  slotFraction,
  timeTicks,
  type HistorySeries,
} from './capacity';
import { cycle, loop, phase } from '../../ui/test-fixtures';

function cap(proxy: string, host: string, over: Partial<Capacity> = {}): Capacity {
  return {
    proxy, kind: 'crossbar', host, up: true, since: null, slotsTotal: 4, slotsBusy: 1, inflight: 1, queued: 0, nCtx: 32768,
    models: [], shedThreshold: null, highWater: null, totalShed: null, missing: [], error: null, polledAt: null, ...over,
  };
}

function series(host: string, busy: (number | null)[], over: Partial<HistorySeries> = {}): HistorySeries {
  const t = busy.map((_, i) => 1000 * i);
  return { proxy: 'p', host, t, slotsBusy: busy, inflight: busy, queued: busy.map(() => 0), requestRate: busy, errors: {}, ...over };
}

describe('capacity helpers', () => {
  it('groups hosts by proxy in main order', () => {
    const g = groupByProxy([cap('a', 'h1'), cap('b', 'h2'), cap('a', 'h3')]);
    expect(g.map((x) => [x.proxy, x.hosts.map((h) => h.host)])).toEqual([['a', ['h1', 'h3']], ['b', ['h2']]]);
  });

  it('computes slot fractions, load levels and context per slot', () => {
    expect(slotFraction(cap('a', 'h', { slotsBusy: 2, slotsTotal: 4 }))).toBe(0.5);
    expect(slotFraction(cap('a', 'h', { slotsTotal: null }))).toBeNull();
    expect(loadLevel(cap('a', 'h', { slotsBusy: 4 }))).toBe('saturated');
    expect(loadLevel(cap('a', 'h', { slotsBusy: 1, queued: 3 }))).toBe('saturated');
    expect(loadLevel(cap('a', 'h', { slotsBusy: 3 }))).toBe('busy');
    expect(loadLevel(cap('a', 'h', { slotsBusy: 0 }))).toBe('idle');
    expect(ctxPerSlot(32768, 4)).toBe(8192);
    expect(ctxPerSlot(null, 4)).toBeNull();
  });

  it('ranks hosts busiest first and lists error statuses numerically', () => {
    const a = series('a', [1, 1], { errors: { '503': [0, 1] } });
    const b = series('b', [4, 3], { errors: { '429': [1, 0], '500': [0, 0] } });
    expect(busiestHosts([a, b])).toEqual(['p/b', 'p/a']);
    expect(errorStatuses([a, b])).toEqual(['429', '500', '503']);
  });

  it('finds the nearest sample', () => {
    expect(nearestIndex([0, 10, 20], 14)).toBe(1);
    expect(nearestIndex([0, 10, 20], 16)).toBe(2);
    expect(nearestIndex([0, 10, 20], -5)).toBe(0);
    expect(nearestIndex([], 3)).toBe(-1);
  });

  it('clips phases to the window, ends running ones at its end, drops the rest', () => {
    const from = Date.parse('2026-08-23T06:00:00Z');
    const to = Date.parse('2026-08-24T06:00:00Z');
    const l = loop('reliability', [
      cycle('2026-08-23', 'running', [
        phase('audit', { startedAt: '2026-08-23T04:00:00Z', endedAt: '2026-08-23T07:00:00Z' }),
        phase('remediate', { status: 'running', startedAt: '2026-08-23T07:00:00Z', endedAt: null }),
        phase('deliver', { status: 'pending', startedAt: null, endedAt: null }),
      ]),
      cycle('2026-08-20', 'ok', [phase('audit', { startedAt: '2026-08-20T04:00:00Z', endedAt: '2026-08-20T05:00:00Z' })]),
    ]);
    const bands = phaseBands([l], from, to);
    expect(bands.map((b) => b.phase)).toEqual(['audit', 'remediate']);
    expect(bands[0]).toMatchObject({ x1: from, x2: Date.parse('2026-08-23T07:00:00Z'), start: Date.parse('2026-08-23T04:00:00Z') });
    expect(bands[1]).toMatchObject({ running: true, x2: to, status: 'running' });
    expect(bandsAt(bands, Date.parse('2026-08-23T08:00:00Z')).map((b) => b.phase)).toEqual(['remediate']);
  });

  it('puts ticks inside the window at round steps', () => {
    const from = Date.parse('2026-08-24T10:03:00Z');
    const ticks = timeTicks(from, from + 3_600_000, '1h');
    expect(ticks.length).toBe(6);
    expect(ticks.every((t) => t >= from && t <= from + 3_600_000 && t % 600_000 === 0)).toBe(true);
    const week = timeTicks(from, from + 7 * 86_400_000, '7d');
    expect(week.length).toBe(7);
  });
});

describe('gateway card figures', () => {
  const gw = (over: Partial<Capacity>) => cap('gateway', 'gateway', { kind: 'gateway', slotsTotal: null, slotsBusy: null, ...over });
  it('shows the heap in use with its limit, marked high above the threshold', () => {
    expect(heapText(gw({ heapUtilizationPct: 42.46, heapSizeLimitMb: 4144 }))).toEqual({ text: '42.5 % of 4,144 MB', high: false });
    expect(heapText(gw({ heapUtilizationPct: 91, heapSizeLimitMb: 4144 }))).toEqual({ text: '91 % of 4,144 MB', high: true });
    expect(heapText(gw({ heapUtilizationPct: null, heapSizeLimitMb: 2048 }))).toEqual({ text: '— of 2,048 MB', high: false });
    expect(heapText(gw({ heapUtilizationPct: 12, heapSizeLimitMb: null }))).toEqual({ text: '12 %', high: false });
    expect(heapText(gw({}))).toBeNull();
  });

  it('shows the server errors over the window, marked when they are a burst', () => {
    expect(errorShareText(gw({ errorShare: { errors: 30, requests: 130, windowMs: 900_000 } }))).toEqual({ text: '23.1 % of 130 (15 min)', burst: true });
    expect(errorShareText(gw({ errorShare: { errors: 1, requests: 2, windowMs: 900_000 } }))).toEqual({ text: '50 % of 2 (15 min)', burst: false });
    expect(errorShareText(gw({ errorShare: { errors: 0, requests: 0, windowMs: 900_000 } }))).toBeNull();
    expect(errorShareText(gw({}))).toBeNull();
  });
});
