import { describe, expect, it } from 'vitest';
import type { BacklogItem, Cycle, Finding, LoopState, Phase, Severity } from './domain';
import { summarizeCycle } from './night-summary';
import type { ContractBreach, ContractKind } from './contract-breach';
import { addDays, breachCounts, breachKindsText, breachTotalText, closedNight, createTrendsMemo, median, nightBreaches, openedNight, type TrendsInput } from './trends';

const H = 3_600_000;
const LAST = '2026-08-31';

function phase(name: string, date: string, hours: number, over: Partial<Phase> = {}): Phase {
  const start = Date.parse(`${date}T01:00:00Z`);
  return {
    name,
    status: 'ok',
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + hours * H).toISOString(),
    timesFrom: 'stamps',
    detail: [],
    stages: [],
    verdict: null,
    reason: 'wrapper stamp OK',
    ...over,
  };
}

function cycle(date: string, remediateHours = 1, status: Cycle['status'] = 'ok'): Cycle {
  return { date, status, phases: [phase('audit', date, 0.5), phase('remediate', date, remediateHours), phase('deliver', date, 0.25)] };
}

/** `n` nightly cycles ending on LAST, newest first as the store keeps them. */
function nights(n: number, make: (date: string, i: number) => Cycle = (d) => cycle(d)): Cycle[] {
  return Array.from({ length: n }, (_, i) => make(addDays(LAST, -i), i));
}

const loop = (cycles: Cycle[], name = 'reliability'): LoopState => ({ name, host: 'runner', cycles, deadman: null });

function finding(id: string, date: string, severity: Severity | null = 'P1', over: Partial<Finding> = {}): Finding {
  return {
    id,
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    section: `Delta audit ${date}`,
    severity,
    category: 'durability',
    where: 'src/a.ts:1',
    text: 'x',
    status: 'open',
    backlog: [],
    firstSeenAt: '2026-09-01T07:00:00.000Z',
    line: 1,
    ...over,
  };
}

function done(rel: string, date: string | null): BacklogItem {
  return { id: rel, loop: 'reliability', section: 's', findings: [], severity: 'P1', acceptance: '', status: 'done', red: 1, green: 1, outcomes: [{ date, outcome: 'DONE', red: 1, green: 1, note: null, line: 1 }] };
}

const input = (over: Partial<TrendsInput>): TrendsInput => ({ loops: [], findings: [], backlog: [], days: 30, now: `${LAST}T12:00:00Z`, ...over });

describe('trends: series', () => {
  it('a 7-night window has one point a night, ends on the newest night and counts outcomes, durations and cap hits', () => {
    const capped = phase('remediate', '2026-08-30', 20, { status: 'incomplete', reason: 'STARTED stamp but no outcome after 21h (cap 20h)' });
    const cycles = nights(10, (d) => (d === '2026-08-30' ? { date: d, status: 'incomplete', phases: [phase('audit', d, 0.5), capped] } : cycle(d)));
    const r = createTrendsMemo().compute(input({ loops: [loop(cycles)], days: 7 }));
    expect(r).toMatchObject({ from: '2026-08-25', to: LAST, days: 7 });
    const l = r.loops[0];
    expect(l?.nights.map((n) => n.date)).toEqual(['2026-08-25', '2026-08-26', '2026-08-27', '2026-08-28', '2026-08-29', '2026-08-30', LAST]);
    expect(l?.nights.map((n) => n.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'incomplete', 'ok']);
    expect(l?.nights[5]?.capHits).toEqual(['remediate']);
    const rem = l?.phases.find((p) => p.phase === 'remediate');
    expect(rem).toMatchObject({ runs: 7, p50Ms: H, p95Ms: 20 * H, capHits: 1, hollow: 0 });
  });

  it('counts the remediate runs that ended ok but hollow', () => {
    const hollow = (d: string): Cycle => ({ date: d, status: 'ok', phases: [phase('audit', d, 0.5), phase('remediate', d, 1, { hollow: { items: ['REL-052'] } })] });
    const cycles = nights(10, (d) => (d === '2026-08-29' || d === '2026-08-30' ? hollow(d) : cycle(d)));
    const l = createTrendsMemo().compute(input({ loops: [loop(cycles)], days: 7 })).loops[0];
    expect(l?.phases.find((p) => p.phase === 'remediate')).toMatchObject({ runs: 7, hollow: 2 });
    expect(l?.phases.find((p) => p.phase === 'audit')).toMatchObject({ hollow: 0 });
  });

  it('opens findings on their audit section date, closes them on their dated DONE, and carries the backlog over', () => {
    const f = [
      finding('R-1', '2026-07-01', 'P0', { status: 'done', backlog: ['REL-1'] }),
      finding('R-2', '2026-08-28', 'P2', { status: 'done', backlog: ['REL-2'] }),
      finding('R-3', '2026-08-29', null),
      finding('R-4', '2026-08-29', 'P1', { status: 'done', backlog: ['REL-9'] }),
      finding('R-5', '2026-06-01', 'P1'),
      finding('R-6', 'none', 'P1', { section: 'Reviews', firstSeenAt: '2026-08-30T03:00:00.000Z' }),
    ];
    const b = [done('REL-1', '2026-08-30'), done('REL-2', '2026-08-31'), done('REL-9', null)];
    expect(openedNight(f[5] as Finding)).toBe('2026-08-30');
    const items = new Map(b.map((x) => [`reliability\u0000${x.id}`, x]));
    expect(closedNight(f[0] as Finding, items)).toBe('2026-08-30');
    expect(closedNight(f[3] as Finding, items)).toBeNull();
    const l = createTrendsMemo().compute(input({ loops: [loop(nights(5))], findings: f, backlog: b, days: 7 })).loops[0];
    const at = (d: string) => l?.nights.find((n) => n.date === d);
    // Before the window: open.
    expect(at('2026-08-25')?.backlog).toBe(2);
    expect(at('2026-08-28')).toMatchObject({ backlog: 3, opened: { P2: 1 } });
    // R-4 is done without a dated DONE: opened, but never in the backlog.
    expect(at('2026-08-29')).toMatchObject({ backlog: 4, opened: { none: 1, P1: 1 } });
    expect(at('2026-08-30')).toMatchObject({ backlog: 4, opened: { P1: 1 }, closed: { P0: 1 } });
    expect(at(LAST)).toMatchObject({ backlog: 3, closed: { P2: 1 } });
    expect(l).toMatchObject({ closedDated: 2, closedUndated: 1, medianDaysToDone: (60 + 3) / 2 });
  });

  it('keeps at most 1,000 points a series and the median is the middle value', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNull();
    const r = createTrendsMemo().compute(input({ loops: [loop(nights(90))], days: 90 }));
    expect(r.loops[0]?.nights.length).toBe(90);
    expect(r.loops[0]?.nights.length).toBeLessThanOrEqual(1000);
  });
});

describe('trends: regression flags', () => {
  it('flags a phase whose last duration passed twice its 30-day median, and not one at 1.9 times', () => {
    const slow = createTrendsMemo().compute(input({ loops: [loop(nights(20, (d, i) => cycle(d, i === 0 ? 3 : 1)))] })).loops[0];
    expect(slow?.flags).toEqual([expect.objectContaining({ kind: 'phase-slow', phase: 'remediate', date: LAST, durationMs: 3 * H, medianMs: H })]);
    expect(slow?.nights.at(-1)?.flags).toEqual(['phase-slow']);
    const fine = createTrendsMemo().compute(input({ loops: [loop(nights(20, (d, i) => cycle(d, i === 0 ? 1.9 : 1)))] })).loops[0];
    expect(fine?.flags).toEqual([]);
  });

  it('flags a night with more new P0 findings than any in the 30 before, and not one that only ties', () => {
    const p0s = (counts: Record<string, number>) =>
      Object.entries(counts).flatMap(([d, n]) => Array.from({ length: n }, (_, i) => finding(`R-${d}-${i}`, d, 'P0')));
    const spike = createTrendsMemo().compute(input({ loops: [loop(nights(20))], findings: p0s({ '2026-08-20': 2, [LAST]: 5 }) })).loops[0];
    expect(spike?.flags.filter((f) => f.date === LAST)).toEqual([expect.objectContaining({ kind: 'p0-spike', date: LAST, count: 5, previousMax: 2 })]);
    const tie = createTrendsMemo().compute(input({ loops: [loop(nights(20))], findings: p0s({ '2026-08-20': 5, [LAST]: 5 }) })).loops[0];
    expect(tie?.flags.filter((f) => f.date === LAST)).toEqual([]);
  });

  it('flags a loop whose success rate fell by a third week over week, and not a smaller fall', () => {
    // Last week 7/7 succeeded; this week 4/7 (57%, below 2/3 of 100%).
    const fell = nights(14, (d, i) => cycle(d, 1, i < 3 ? 'failed' : 'ok'));
    const l = createTrendsMemo().compute(input({ loops: [loop(fell)] })).loops[0];
    expect(l?.flags).toEqual([expect.objectContaining({ kind: 'success-drop', date: LAST, lastWeek: 1, thisWeek: 4 / 7 })]);
    // This week 5/7 (71%): a fall, but less than a third.
    const dipped = nights(14, (d, i) => cycle(d, 1, i < 2 ? 'failed' : 'ok'));
    expect(createTrendsMemo().compute(input({ loops: [loop(dipped)] })).loops[0]?.flags).toEqual([]);
  });
});

describe('trends: incremental memo', () => {
  it('re-derives only the nights whose cycle or findings changed', () => {
    const memo = createTrendsMemo();
    const cycles = nights(30);
    const findings = [finding('R-1', '2026-08-10'), finding('R-2', '2026-08-20')];
    const base = input({ loops: [loop(cycles)], findings });
    memo.compute(base);
    expect(memo.last).toEqual({ recomputed: 30, reused: 0 });
    // The same slices again: nothing is derived.
    memo.compute({ ...base, days: 7 });
    expect(memo.last).toEqual({ recomputed: 0, reused: 30 });
    // One cycle replaced (as a cycle delta does): only its night.
    const changed = cycles.map((c) => (c.date === LAST ? cycle(LAST, 2) : c));
    memo.compute({ ...base, loops: [loop(changed)] });
    expect(memo.last).toEqual({ recomputed: 1, reused: 29 });
    // A finding appended on one night (a new array, the old rows the same objects): only that night.
    memo.compute({ ...base, loops: [loop(changed)], findings: [...findings, finding('R-3', '2026-08-20', 'P0')] });
    expect(memo.last).toEqual({ recomputed: 1, reused: 29 });
  });
});

describe('trends: kept nights', () => {
  it('fills the nights no followed cycle covers from the store, a followed cycle wins over its kept row, and counts bad phases by cause', () => {
    const bad = (d: string, kind: 'fleet' | 'runner' | null): Cycle => ({
      date: d,
      status: 'failed',
      phases: [phase('audit', d, 0.5), phase('remediate', d, 2, { status: 'failed', reason: 'wrapper stamp FAILED 1', ...(kind ? { cause: { kind, what: null, subject: null, since: null, until: null, detail: 'x' } } : {}) })],
    });
    // 14 followed, 90 kept (the newest 14 of them stale: the followed cycles say otherwise).
    const followed = nights(14);
    const kept = nights(90, (d, i) => (i < 14 ? bad(d, 'fleet') : i % 30 === 0 ? bad(d, 'runner') : i === 45 ? bad(d, null) : cycle(d))).map((c) => summarizeCycle('reliability', c));
    const l = createTrendsMemo().compute(input({ loops: [loop(followed)], days: 90, history: kept })).loops[0];
    expect(l?.nights.filter((n) => n.outcome !== null)).toHaveLength(90);
    expect(l?.nights.filter((n) => n.outcome === 'failed')).toHaveLength(3);
    expect(l?.failures).toEqual({ fleet: 0, runner: 2, agent: 0, unknown: 1 });
    // Without the kept nights, Trends reaches only as far back as the followed cycles.
    expect(createTrendsMemo().compute(input({ loops: [loop(followed)], days: 90 })).loops[0]?.nights.filter((n) => n.outcome !== null)).toHaveLength(14);
  });
});

const breach = (kind: ContractKind, date: string | null, loopName = 'reliability'): ContractBreach => ({ kind, loop: loopName, date, phase: 'remediate', id: null, detail: 'x', since: null, evidence: { file: null, line: null, url: null } });

describe('trends: contract breaches per night', () => {
  it('counts a followed night from the list, an older one from its kept row, and says null (shown "—"), never 0, when neither knows', () => {
    const day = (i: number) => addDays(LAST, -i);
    const followed = nights(14);
    // Kept rows: two followed nights (their rows are stale: the list wins), one older night with a
    // count, the rest written before breaches were kept (no field).
    const kept = nights(40).map((c, i) => {
      const n = summarizeCycle('reliability', c);
      return i === 2 || i === 3 ? { ...n, breaches: { total: 9, kinds: { hollow: 9 } } } : i === 20 ? { ...n, breaches: { total: 2, kinds: { deferred: 1, 'some-later-kind': 1 } } } : n;
    });
    const contract = [breach('no-verdict', day(2)), breach('unfinished-stage', day(2)), breach('unfinished-stage', day(2)), breach('deferred', day(20)), breach('anchor', null), breach('hollow', day(2), 'other')];
    const l = createTrendsMemo().compute(input({ loops: [loop(followed)], days: 30, history: kept, contract })).loops[0];
    const at = (i: number) => l?.nights.find((n) => n.date === day(i))?.breaches;
    expect(at(2)).toEqual({ total: 3, kinds: { 'no-verdict': 1, 'unfinished-stage': 2 } });
    expect(at(3)).toEqual({ total: 0, kinds: {} });
    // Past the followed window the list says nothing: the row's count stands (a deferred row dated then does not add to it).
    expect(at(20)).toEqual({ total: 2, kinds: { deferred: 1, 'some-later-kind': 1 } });
    expect(at(21)).toBeNull();
    expect(l?.breaches).toEqual({ total: 5, kinds: { 'no-verdict': 1, 'unfinished-stage': 2, deferred: 1, 'some-later-kind': 1 }, unknownNights: 30 - 15 });
    // Without the list (the CLI), a followed night says what its row says.
    const noList = createTrendsMemo().compute(input({ loops: [loop(followed)], days: 30, history: kept })).loops[0];
    expect(noList?.nights.find((n) => n.date === day(3))?.breaches).toEqual({ total: 9, kinds: { hollow: 9 } });
    expect(noList?.nights.find((n) => n.date === day(5))?.breaches).toBeNull();
    // What a cell and a hover say.
    expect([breachTotalText(at(2) ?? null), breachTotalText(at(3) ?? null), breachTotalText(at(21) ?? null)]).toEqual(['3', '0', '—']);
    expect(breachKindsText(at(20) ?? null)).toEqual(['1 × DEFERRED outcome', '1 × some-later-kind']);
    expect(breachKindsText(at(2) ?? null)).toEqual(['2 × stage unfinished', '1 × no deliver verdict']);
  });

  it('is the same rule main keeps rows by, and a new list re-derives only the nights whose count moved', () => {
    const counts = breachCounts([breach('hollow', LAST), breach('hollow', LAST), breach('anchor', null)]);
    expect([...counts.entries()]).toEqual([[`reliability\u0000${LAST}`, { total: 2, kinds: { hollow: 2 } }]]);
    expect(nightBreaches(counts, 'reliability', LAST, false, null)).toBeNull();
    expect(nightBreaches(null, 'reliability', LAST, true, { breaches: { total: 1, kinds: { hollow: 1 } } })).toEqual({ total: 1, kinds: { hollow: 1 } });
    const memo = createTrendsMemo();
    const base = input({ loops: [loop(nights(30))], contract: [breach('hollow', LAST)] });
    memo.compute(base);
    // A new list saying the same: nothing derived; one more item on one night: that night only.
    memo.compute({ ...base, contract: [breach('hollow', LAST)] });
    expect(memo.last).toEqual({ recomputed: 0, reused: 30 });
    memo.compute({ ...base, contract: [breach('hollow', LAST), breach('no-pr', addDays(LAST, -4))] });
    expect(memo.last).toEqual({ recomputed: 1, reused: 29 });
  });
});
