import type { ContractBreach } from './contract-breach';
import type { BacklogItem, Finding, LoopState, PullRequest } from './domain';
import { deriveChurn, type ChurnEntry } from './churn';
import { awaitingByNight, awaitingMerge, type AwaitingMerge, type NightAwaiting } from './merge-measures';
import type { NightSummary } from './night-summary';
import { formatAmount } from './night-cost';
import { median, TREND_RANGES, type LoopTrends, type TrendNight, type TrendsMemo, type TrendsResult } from './trends';

// Does the loop really improve (issue 30, item 3): the loop's own measures (the reliability
// loop's manual, "Measure improvement") over the last 7, 30 and 90 nights, from the same nights
// Trends draws, and the report `loopdeck trends` prints and the Trends view shows.

/** One loop's measures over the last `nights` nights. */
export interface LoopMeasures {
  readonly nights: number;
  /** New findings in the window. */
  readonly found: number;
  /** Findings DONE on a night that delivered (a READY verdict or PRs). */
  readonly implemented: number;
  /** implemented / found; null when nothing was found. */
  readonly implementedShare: number | null;
  /** PRs delivered, and per night that ran. */
  readonly prs: number;
  readonly prsPerNight: number | null;
  /** Median hours from a night's first start (its audit) to its READY verdict. */
  readonly medianReadyHours: number | null;
  /** Median hours from a night's remediate start to CI green (its deliver's or the next fire's: shared/merge-measures.ts), over the nights that went green; null when none did. */
  readonly medianGreenHours: number | null;
  /** How many nights went green (the median's count). */
  readonly greenNights: number;
  /** Churn in the window (reopened items and re-found findings). */
  readonly reopened: number;
  /** Fleet tokens the nights' phases used (where the proxies' usage rows knew), and per PR delivered on those nights; null when unknown. */
  readonly tokens: number | null;
  readonly tokensPerPr: number | null;
  /**
   * What the nights cost where they were priced (`costs:`), per finding DONE on them, per PR they
   * delivered and per PR of theirs merged (null without the PR list), and the part spent on bad and
   * hollow phases; all null when no night was priced.
   */
  readonly cost: NightsCost | null;
}

/** What a window's priced nights cost (LoopMeasures.cost). */
export interface NightsCost {
  readonly total: number;
  readonly currency: string;
  readonly nights: number;
  readonly perDone: number | null;
  readonly perPr: number | null;
  readonly perMergedPr: number | null;
  readonly merged: number | null;
  /** Spent on bad and hollow phases, and on fixes that churned (`churned`, included in `waste`). */
  readonly waste: number;
  readonly churned: number;
}

/** `42.10 USD · 3.51 USD / DONE · 14.03 USD / merged PR · waste 6.20 USD`, or `—` when no night was priced (the view's and the CLI's words). */
export function nightsCostText(c: NightsCost | null): string {
  if (c === null) return '—';
  const m = (n: number): string => formatAmount(n, c.currency);
  return [m(c.total), c.perDone === null ? null : `${m(c.perDone)} / DONE`, c.perMergedPr === null ? null : `${m(c.perMergedPr)} / merged PR`, `waste ${m(c.waste)}${c.churned > 0 ? ` (${m(c.churned)} on fixes that churned)` : ''}`].filter((x) => x !== null).join(' · ');
}

/** A window's cost measures over its priced nights; `mergedOf` counts the PRs of those nights that were merged (null: not known). */
function nightsCost(last: readonly TrendNight[], mergedOf: ((dates: ReadonlySet<string>) => number) | null, currency: string | null, churn: readonly ChurnEntry[] = []): NightsCost | null {
  const priced = last.filter((n) => n.cost !== null);
  if (priced.length === 0) return null;
  const total = priced.reduce((a, n) => a + (n.cost ?? 0), 0);
  // A fix that churned (its item reopened, or its finding found again) wasted its share of the night that marked it DONE.
  const byDate = new Map(priced.map((n) => [n.date, n]));
  let churned = 0;
  for (const c of churn) {
    const night = c.doneOn === null ? undefined : byDate.get(c.doneOn);
    if (night) churned += (night.cost ?? 0) - (night.wasteCost ?? 0) > 0 ? ((night.cost ?? 0) - (night.wasteCost ?? 0)) / Math.max(1, sum(night.closed)) : 0;
  }
  const done = priced.reduce((a, n) => a + sum(n.closed), 0);
  const prs = priced.reduce((a, n) => a + n.prs, 0);
  const merged = mergedOf ? mergedOf(new Set(priced.map((n) => n.date))) : null;
  const per = (n: number | null): number | null => (n !== null && n > 0 ? total / n : null);
  return { total, currency: currency ?? 'USD', nights: priced.length, perDone: per(done), perPr: per(prs), perMergedPr: per(merged), merged, waste: priced.reduce((a, n) => a + (n.wasteCost ?? 0), 0) + churned, churned };
}

const sum = (c: Readonly<Record<string, number>>): number => Object.values(c).reduce((a, b) => a + b, 0);

/** A loop's measures over its window's last `nights` nights. */
export function loopMeasures(l: LoopTrends, churn: readonly ChurnEntry[], nights: number, mergedOf: ((dates: ReadonlySet<string>) => number) | null = null, currency: string | null = null): LoopMeasures {
  const last = l.nights.slice(-nights);
  const from = last[0]?.date ?? '';
  const ran = last.filter((n) => n.outcome !== null);
  const found = last.reduce((a, n) => a + sum(n.opened), 0);
  const implemented = last.filter((n) => n.prs > 0 || n.outcome === 'ready').reduce((a, n) => a + sum(n.closed), 0);
  const prs = last.reduce((a, n) => a + n.prs, 0);
  const ready = last.map((n) => n.readyMs).filter((m): m is number => m !== null);
  const m = median(ready);
  const green = last.map((n) => n.remediateToGreen?.ms).filter((g): g is number => g !== undefined);
  const g = median(green);
  const known = last.filter((n) => n.tokens !== null);
  const tokens = known.length > 0 ? known.reduce((a, n) => a + (n.tokens ?? 0), 0) : null;
  const knownPrs = known.reduce((a, n) => a + n.prs, 0);
  return {
    nights,
    found,
    implemented,
    implementedShare: found > 0 ? implemented / found : null,
    prs,
    prsPerNight: ran.length > 0 ? prs / ran.length : null,
    medianReadyHours: m === null ? null : m / 3_600_000,
    medianGreenHours: g === null ? null : g / 3_600_000,
    greenNights: green.length,
    reopened: churn.filter((c) => c.loop === l.loop && (c.date ?? '') >= from).length,
    tokens,
    tokensPerPr: tokens !== null && knownPrs > 0 ? tokens / knownPrs : null,
    cost: nightsCost(last, mergedOf, currency, churn.filter((c) => c.loop === l.loop)),
  };
}

/** A night of the report: its trends, and its PRs awaiting merge at its end (null when not known). */
export type ReportNight = TrendNight & NightAwaiting;

/** One loop in the report: its trends, its churn in the window, and its measures over 7, 30 and 90 nights. */
export interface LoopReport extends LoopTrends {
  readonly nights: readonly ReportNight[];
  readonly churn: readonly ChurnEntry[];
  readonly measures: readonly LoopMeasures[];
  /** Its PRs awaiting merge now (green, neither merged nor closed), oldest first; null without the PR list. */
  readonly awaitingMerge: AwaitingMerge | null;
}

/** What `loopdeck trends` prints and the Trends view shows. */
export interface TrendsReport extends Omit<TrendsResult, 'loops'> {
  readonly loops: readonly LoopReport[];
}

/** What the report is derived from: the state's slices and the kept nights. */
export interface TrendsReportInput {
  readonly loops: readonly LoopState[];
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
  readonly history: readonly NightSummary[];
  readonly days: number;
  readonly now: string;
  /** The Broken contract list: it counts the followed nights' breaches (see TrendsInput.contract). */
  readonly contract?: readonly ContractBreach[];
  /** The PR list (the snapshot's `prs`): the PRs awaiting merge, now and at each night's end; without it, not known. */
  readonly prs?: readonly PullRequest[];
  /** When the ages of the PRs awaiting merge are taken (ISO; default `now`: the view passes the clock, `now` being noon of its day). */
  readonly at?: string;
}

/**
 * The trends of a window and the measures over 7, 30 and 90 nights (a second pass of the same
 * memo over the longest window: its nights are reused), with each loop's churn. One function for
 * the view and the CLI, so both say the same.
 */
export function trendsReport(memo: TrendsMemo, input: TrendsReportInput, churnAll: readonly ChurnEntry[] = deriveChurn(input.findings, input.backlog)): TrendsReport {
  const longest = Math.max(input.days, ...TREND_RANGES);
  const long = memo.compute({ ...input, days: longest });
  const window = input.days === longest ? long : memo.compute(input);
  const longByLoop = new Map(long.loops.map((l) => [l.loop, l]));
  const loops = window.loops.map((l) => {
    const churn = churnAll.filter((c) => c.loop === l.loop && (c.date === null || (c.date >= window.from && c.date <= window.to)));
    const over = longByLoop.get(l.loop) ?? l;
    const prs = input.prs;
    const at = input.at ?? input.now;
    // The PR list holds the followed cycles' PRs: a night before the oldest of them is not known.
    const followed = input.loops.find((x) => x.name === l.loop)?.cycles.map((c) => c.date) ?? [];
    const knownFrom = prs && followed.length > 0 ? followed.reduce((a, b) => (b < a ? b : a)) : null;
    const awaiting = awaitingByNight(
      l.nights.map((n) => n.date),
      prs ?? [],
      l.loop,
      at,
      knownFrom,
    );
    const nights = l.nights.map((n, i) => ({ ...n, ...(awaiting[i] ?? { awaitingMerge: null, oldestAwaitingMs: null }) }));
    // A night's PRs merged: those of the PR list whose delivering cycle is that night and GitHub says merged.
    const mergedOf = prs ? (dates: ReadonlySet<string>): number => prs.filter((p) => p.loop === l.loop && p.status === 'merged' && p.cycle !== null && dates.has(p.cycle)).length : null;
    const currency = input.history.find((h) => h.loop === l.loop && h.currency)?.currency ?? null;
    return { ...l, nights, churn, measures: TREND_RANGES.map((n) => loopMeasures(over, churnAll, n, mergedOf, currency)), awaitingMerge: prs ? awaitingMerge(prs, l.loop, at) : null };
  });
  return { ...window, loops };
}
