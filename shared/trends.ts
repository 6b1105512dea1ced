import type { ContractBreach } from './contract-breach';
import { remediateToGreen } from './merge-measures';
import type { BacklogItem, Cycle, Finding, PhaseStatus, Severity } from './domain';
import { closedNight, openedNight } from './finding-nights';
import { addBreaches, breachCounts, nightBreaches, sameBreaches } from './night-breaches';
import { nightSuiteTotals, suiteBaseline } from './night-suites';
import { nightCost, nightPhase, nightTokens, readyAfterMs, type NightBreaches, type NightPhase, type NightSummary } from './night-summary';

export type { NightBreaches, NightPhase } from './night-summary';
export type { FailureCounts, LoopTrends, NightStats, PhaseTrend, TrendFlag, TrendNight, TrendsInput, TrendsMemo, TrendsResult } from './trend-types';
import type { LoopTrends, NightStats, TrendFlag, TrendNight, TrendsMemo } from './trend-types';
export { closedNight, openedNight } from './finding-nights';
export { breachCounts, breachKindsText, breachTotalText, nightBreaches, nightKey, sameBreaches } from './night-breaches';

// Trends: per loop and night, what the cycles and the ledgers say over 7, 30 or 90 days, and the
// regressions worth a look. Nights are memoised (keyed by loop + date) so a change re-derives only
// the nights whose cycle or findings changed; the rest is sums over at most a few hundred nights.

/** The windows the view offers, in nights. */
export const TREND_RANGES = [7, 30, 90] as const;
/** A window in nights. */
export type TrendRange = (typeof TREND_RANGES)[number];
/** No series carries more points than this (90 nights is far below; a guard for long histories). */
export const MAX_TREND_POINTS = 1000;
/** Severity buckets of the findings charts; `none` is a finding the ledger gave no severity. */
export const TREND_SEVERITIES = ['P0', 'P1', 'P2', 'P3', 'none'] as const;
/** A severity bucket. */
export type TrendSeverity = (typeof TREND_SEVERITIES)[number];
/** Counts of findings by severity bucket. */
export type SeverityCounts = Readonly<Record<TrendSeverity, number>>;

const DAY = 86_400_000;
const FINISHED: ReadonlySet<PhaseStatus> = new Set(['ok', 'no-op', 'ready', 'incomplete', 'failed']);
const SUCCESS: ReadonlySet<PhaseStatus> = new Set(['ok', 'no-op', 'ready']);
const DATE_RE = /(\d{4}-\d{2}-\d{2})/;


const zero = (): Record<TrendSeverity, number> => ({ P0: 0, P1: 0, P2: 0, P3: 0, none: 0 });
const bucket = (s: Severity | null): TrendSeverity => s ?? 'none';

/** Date arithmetic on `YYYY-MM-DD` names (UTC). */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
}

/** A night's phases: the followed cycle's (summarised as the store keeps them), else the kept night's. */
function nightPhases(cycle: Cycle | NightSummary | null): readonly NightPhase[] {
  if (!cycle) return [];
  return 'prs' in cycle ? cycle.phases : cycle.phases.map(nightPhase);
}

/** Derive one night; pure, so a memo may keep it while its inputs are the same objects. */
export function deriveNight(loop: string, date: string, cycle: Cycle | NightSummary | null, opened: readonly Finding[], closed: readonly Finding[], openedUndatedDone = 0, kept: NightSummary | null = null, breaches: NightBreaches | null = null): NightStats {
  const o = zero();
  const c = zero();
  for (const f of opened) o[bucket(f.severity)] += 1;
  const daysToDone: number[] = [];
  for (const f of closed) {
    c[bucket(f.severity)] += 1;
    daysToDone.push(Math.max(0, (Date.parse(`${date}T00:00:00Z`) - Date.parse(`${openedNight(f)}T00:00:00Z`)) / DAY));
  }
  return { loop, date, outcome: cycle?.status ?? null, phases: nightPhases(cycle), opened: o, closed: c, openedUndatedDone, daysToDone, prs: kept?.prs ?? 0, tokens: nightTokens(kept), breaches, cost: nightCost(kept) };
}

const quantile = (sorted: readonly number[], q: number): number | null => (sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null));

/** The median of some numbers (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? null) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const hours = (ms: number): string => (ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)}h` : `${Math.round(ms / 60_000)}m`);

/** A phase whose newest finished duration passed twice its median over the 30 nights before (3+ runs). */
function phaseFlags(loop: string, nights: readonly NightStats[]): TrendFlag[] {
  const flags: TrendFlag[] = [];
  const names = new Set(nights.flatMap((n) => n.phases.map((p) => p.name)));
  for (const phase of names) {
    const runs = nights.flatMap((n) => n.phases.filter((p) => p.name === phase && p.durationMs !== null).map((p) => ({ date: n.date, ms: p.durationMs ?? 0 })));
    const last = runs[runs.length - 1];
    if (!last) continue;
    const since = addDays(last.date, -30);
    const before = runs.filter((r) => r.date >= since && r.date < last.date).map((r) => r.ms);
    const m = before.length >= 3 ? median(before) : null;
    if (m !== null && m > 0 && last.ms > 2 * m) {
      flags.push({ kind: 'phase-slow', loop, date: last.date, phase, durationMs: last.ms, medianMs: m, text: `${phase} took ${hours(last.ms)} on ${last.date}, over twice its 30-day median (${hours(m)})` });
    }
  }
  return flags;
}

/** Nights in [from, to] with more new P0 findings than any of the 30 nights before (which must hold some history). */
function p0Flags(loop: string, byDate: ReadonlyMap<string, NightStats>, dates: readonly string[], from: string, to: string): TrendFlag[] {
  const flags: TrendFlag[] = [];
  for (const date of dates) {
    if (date < from || date > to) continue;
    const count = byDate.get(date)?.opened.P0 ?? 0;
    if (count === 0) continue;
    const since = addDays(date, -30);
    const prev = dates.filter((d) => d >= since && d < date);
    if (prev.length === 0) continue;
    const previousMax = Math.max(0, ...prev.map((d) => byDate.get(d)?.opened.P0 ?? 0));
    if (count > previousMax) flags.push({ kind: 'p0-spike', loop, date, count, previousMax, text: `${count} new P0 finding(s) on ${date}, more than any night in the 30 before (${previousMax})` });
  }
  return flags;
}

function successRate(byDate: ReadonlyMap<string, NightStats>, first: string, last: string): number | null {
  let finished = 0;
  let ok = 0;
  for (let d = first; d <= last; d = addDays(d, 1)) {
    const o = byDate.get(d)?.outcome;
    if (!o || !FINISHED.has(o)) continue;
    finished += 1;
    if (SUCCESS.has(o)) ok += 1;
  }
  return finished ? ok / finished : null;
}

function loopTrends(loop: string, nights: readonly NightStats[], from: string, to: string, undatedClosed: number, knownFailures?: number): LoopTrends {
  const byDate = new Map(nights.map((n) => [n.date, n]));
  const dates = nights.map((n) => n.date);
  const flags = [...phaseFlags(loop, nights), ...p0Flags(loop, byDate, dates, from, to)];
  const thisWeek = successRate(byDate, addDays(to, -6), to);
  const lastWeek = successRate(byDate, addDays(to, -13), addDays(to, -7));
  if (thisWeek !== null && lastWeek !== null && lastWeek > 0 && thisWeek <= (lastWeek * 2) / 3 + 1e-9) {
    flags.push({ kind: 'success-drop', loop, date: to, thisWeek, lastWeek, text: `success rate fell from ${pct(lastWeek)} to ${pct(thisWeek)} week over week` });
  }
  const visible = flags.filter((f) => f.date >= from && f.date <= to);
  const greens = remediateToGreen(nights);
  // The backlog carries over from before the window: sum every night up to each one.
  let open = 0;
  for (const n of nights) if (n.date < from) open += sum(n.opened) - sum(n.closed) - n.openedUndatedDone;
  const series: TrendNight[] = [];
  const durations = new Map<string, number[]>();
  const caps = new Map<string, number>();
  const hollows = new Map<string, number>();
  const toDone: number[] = [];
  const failures = { fleet: 0, runner: 0, agent: 0, unknown: 0 };
  const breaches = { total: 0, kinds: {} as Record<string, number>, unknownNights: 0 };
  let closedDated = 0;
  for (let d = from; d <= to && series.length < MAX_TREND_POINTS; d = addDays(d, 1)) {
    const n = byDate.get(d);
    if (n) open += sum(n.opened) - sum(n.closed) - n.openedUndatedDone;
    const dur: Record<string, number | null> = {};
    for (const p of n?.phases ?? []) {
      dur[p.name] = p.durationMs;
      if (!durations.has(p.name)) durations.set(p.name, []);
      if (p.durationMs !== null) durations.get(p.name)?.push(p.durationMs);
      if (p.capHit) caps.set(p.name, (caps.get(p.name) ?? 0) + 1);
      if (p.hollow) hollows.set(p.name, (hollows.get(p.name) ?? 0) + 1);
      if (p.bad) failures[p.cause ?? 'unknown'] += 1;
    }
    if (n) {
      toDone.push(...n.daysToDone);
      closedDated += n.daysToDone.length;
      if (n.breaches) addBreaches(breaches, n.breaches);
      else if (n.outcome !== null) breaches.unknownNights += 1;
    }
    series.push({
      date: d,
      outcome: n?.outcome ?? null,
      durations: dur,
      capHits: (n?.phases ?? []).filter((p) => p.capHit).map((p) => p.name),
      opened: n?.opened ?? zero(),
      closed: n?.closed ?? zero(),
      backlog: Math.max(0, open),
      prs: n?.prs ?? 0,
      tokens: n?.tokens ?? null,
      readyMs: readyAfterMs(n?.phases ?? []),
      remediateToGreen: greens.get(d) ?? null,
      breaches: n?.breaches ?? null,
      suites: nightSuiteTotals(n?.phases ?? []),
      cost: n?.cost?.amount ?? null,
      wasteCost: n?.cost?.waste ?? null,
      flags: visible.filter((f) => f.date === d).map((f) => f.kind),
    });
  }
  const phases = [...durations.entries()].map(([phase, ms]) => {
    const s = [...ms].sort((a, b) => a - b);
    return { phase, runs: s.length, p50Ms: quantile(s, 0.5), p95Ms: quantile(s, 0.95), capHits: caps.get(phase) ?? 0, hollow: hollows.get(phase) ?? 0 };
  });
  const baseline = suiteBaseline(knownFailures, nights.map((x) => ({ date: x.date, outcome: x.outcome, suites: nightSuiteTotals(x.phases) })));
  return { loop, nights: series, phases, medianDaysToDone: median(toDone), closedDated, closedUndated: undatedClosed, successRate: { thisWeek, lastWeek }, flags: visible, failures, breaches, baseline };
}

const sum = (c: SeverityCounts): number => c.P0 + c.P1 + c.P2 + c.P3 + c.none;

interface Slot {
  cycle: Cycle | NightSummary | null;
  kept: NightSummary | null;
  opened: Finding[];
  closed: Finding[];
  undated: number;
  breaches: NightBreaches | null;
  stats: NightStats | null;
}

const sameRefs = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A memo for the trends view: nights are kept in a Map keyed by loop + date and re-derived only
 * when their cycle object or their findings (by identity) changed. Indexing findings by night is
 * one identity pass, skipped entirely when the findings and backlog slices are the same arrays.
 */
export function createTrendsMemo(): TrendsMemo {
  const slots = new Map<string, Slot>();
  let lastFindings: readonly Finding[] | null = null;
  let lastBacklog: readonly BacklogItem[] | null = null;
  let index = new Map<string, { opened: Finding[]; closed: Finding[]; undated: number }>();
  let undated = new Map<string, number>();
  let lastContract: readonly ContractBreach[] | undefined;
  let counts: Map<string, NightBreaches> | null = null;
  const last = { recomputed: 0, reused: 0 };

  const reindex = (findings: readonly Finding[], backlog: readonly BacklogItem[]): void => {
    const items = new Map(backlog.map((b) => [`${b.loop}\u0000${b.id}`, b]));
    index = new Map();
    undated = new Map();
    const at = (key: string) => {
      let e = index.get(key);
      if (!e) index.set(key, (e = { opened: [], closed: [], undated: 0 }));
      return e;
    };
    for (const f of findings) {
      const entry = at(`${f.loop}\u0000${openedNight(f)}`);
      entry.opened.push(f);
      const closed = closedNight(f, items);
      if (closed) at(`${f.loop}\u0000${closed}`).closed.push(f);
      else if (f.status === 'done') {
        entry.undated += 1;
        undated.set(f.loop, (undated.get(f.loop) ?? 0) + 1);
      }
    }
  };

  return {
    last,
    compute({ loops, findings, backlog, days, now, history = [], contract }) {
      if (contract !== lastContract) counts = contract ? breachCounts(contract) : null;
      lastContract = contract;
      if (findings !== lastFindings || backlog !== lastBacklog) {
        reindex(findings, backlog);
        lastFindings = findings;
        lastBacklog = backlog;
      }
      last.recomputed = 0;
      last.reused = 0;
      const seen = new Set<string>();
      const perLoop = new Map<string, NightStats[]>();
      const names = new Set(loops.map((l) => l.name));
      const cycles = new Map<string, Cycle>();
      for (const l of loops) for (const c of l.cycles) cycles.set(`${l.name}\u0000${c.date}`, c);
      const kept = new Map<string, NightSummary>();
      for (const n of history) if (names.has(n.loop)) kept.set(`${n.loop}\u0000${n.date}`, n);
      const keys = new Set([...cycles.keys(), ...kept.keys(), ...[...index.keys()].filter((k) => names.has(k.split('\u0000')[0] ?? ''))]);
      let newest = now.slice(0, 10);
      for (const key of keys) {
        const [loop = '', date = ''] = key.split('\u0000');
        if (!DATE_RE.test(date)) continue;
        seen.add(key);
        const keptNight = kept.get(key);
        // A followed cycle is the newest word on its night; its kept row still knows its PRs.
        const cycle = cycles.get(key) ?? keptNight ?? null;
        const keptHere = keptNight ?? null;
        const found = index.get(key);
        const opened = found?.opened ?? [];
        const closed = found?.closed ?? [];
        const undatedHere = found?.undated ?? 0;
        const breaches = nightBreaches(counts, loop, date, cycles.has(key), keptHere);
        let slot = slots.get(key);
        if (slot?.stats && slot.cycle === cycle && slot.kept === keptHere && slot.undated === undatedHere && sameBreaches(slot.breaches, breaches) && sameRefs(slot.opened, opened) && sameRefs(slot.closed, closed)) last.reused += 1;
        else {
          slot = { cycle, kept: keptHere, opened, closed, undated: undatedHere, breaches, stats: deriveNight(loop, date, cycle, opened, closed, undatedHere, keptHere, breaches) };
          slots.set(key, slot);
          last.recomputed += 1;
        }
        if (slot.stats) {
          if (!perLoop.has(loop)) perLoop.set(loop, []);
          perLoop.get(loop)?.push(slot.stats);
          if (cycle && date > newest) newest = date;
        }
      }
      for (const key of slots.keys()) if (!seen.has(key)) slots.delete(key);
      const to = newest;
      const from = addDays(to, -(days - 1));
      const out = loops.map((l) => {
        const nights = (perLoop.get(l.name) ?? []).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
        return loopTrends(l.name, nights, from, to, undated.get(l.name) ?? 0, l.knownFailures);
      });
      return { days, from, to, loops: out };
    },
  };
}
