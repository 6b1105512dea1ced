import type { ContractBreach } from './contract-breach';
import type { GreenTime } from './merge-measures';
import type { BacklogItem, CycleStatus, Finding, LoopState } from './domain';
import type { SuiteBaseline } from './night-suites';
import type { SuiteTotals } from './suite-summary';
import type { NightBreaches, NightPhase, NightSummary, nightCost } from './night-summary';
import type { SeverityCounts } from './trends';

// The shapes Trends derives (shared/trends.ts computes them): a night, a loop over a window, the
// flags, the input and the memo.

/** What one loop's night holds, derived once and reused while its cycle and findings are unchanged. */
export interface NightStats {
  readonly loop: string;
  readonly date: string;
  readonly outcome: CycleStatus | null;
  readonly phases: readonly NightPhase[];
  readonly opened: SeverityCounts;
  readonly closed: SeverityCounts;
  /** Findings opened this night that are done without a dated DONE: they leave the backlog unplaced. */
  readonly openedUndatedDone: number;
  /** Days from first seen to DONE of each finding closed this night. */
  readonly daysToDone: readonly number[];
  /** PRs the night delivered and the fleet tokens its phases used, as its kept row says (shared/night-summary.ts). */
  readonly prs: number;
  readonly tokens: number | null;
  /** Its Broken contract items (nightBreaches); null when not known. */
  readonly breaches: NightBreaches | null;
  /** What it cost, in all and in waste, as its kept row priced it (nightCost); null when not priced. */
  readonly cost: ReturnType<typeof nightCost>;
}

/** A regression, flagged on the night it happened. */
export type TrendFlag =
  | { readonly kind: 'phase-slow'; readonly loop: string; readonly date: string; readonly phase: string; readonly durationMs: number; readonly medianMs: number; readonly text: string }
  | { readonly kind: 'p0-spike'; readonly loop: string; readonly date: string; readonly count: number; readonly previousMax: number; readonly text: string }
  | { readonly kind: 'success-drop'; readonly loop: string; readonly date: string; readonly thisWeek: number; readonly lastWeek: number; readonly text: string };

/** One night of a loop's window, ready to draw. */
export interface TrendNight {
  readonly date: string;
  readonly outcome: CycleStatus | null;
  /** Each phase's duration in ms, null when it did not finish with both times. */
  readonly durations: Readonly<Record<string, number | null>>;
  readonly capHits: readonly string[];
  readonly opened: SeverityCounts;
  readonly closed: SeverityCounts;
  /** Findings open at the end of the night. */
  readonly backlog: number;
  readonly prs: number;
  readonly tokens: number | null;
  /** From the night's first start to its READY verdict (ms), when it delivered one (shared/night-summary.ts readyAfterMs). */
  readonly readyMs: number | null;
  /** From its remediate start to CI green, its own deliver's or the next fire's (shared/merge-measures.ts); null when never green ("—"). */
  readonly remediateToGreen: GreenTime | null;
  /** Its Broken contract items, in all and by kind (nightBreaches); null when not known ("—", never 0). */
  readonly breaches: NightBreaches | null;
  /** Its suites' passed/failed/skipped/errors (shared/night-suites.ts nightSuiteTotals); null when no transcript showed one. */
  readonly suites: SuiteTotals | null;
  /** What it cost (`costs:`), and the part spent on bad and hollow phases; null when not priced. */
  readonly cost: number | null;
  readonly wasteCost: number | null;
  readonly flags: readonly TrendFlag['kind'][];
}

/** A phase over the window: percentiles of its durations and how often it hit the cap. */
export interface PhaseTrend {
  readonly phase: string;
  readonly runs: number;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly capHits: number;
  /** Runs that ended ok or no-op but hollow (items of their audit or earlier left without an outcome). */
  readonly hollow: number;
}

/** One loop over the window. */
export interface LoopTrends {
  readonly loop: string;
  readonly nights: readonly TrendNight[];
  readonly phases: readonly PhaseTrend[];
  readonly medianDaysToDone: number | null;
  /** Findings done in the window with a dated DONE, and done ones whose log gives no date (not charted). */
  readonly closedDated: number;
  readonly closedUndated: number;
  /** Share of finished cycles that succeeded, the last 7 nights and the 7 before. */
  readonly successRate: { readonly thisWeek: number | null; readonly lastWeek: number | null };
  readonly flags: readonly TrendFlag[];
  /** Bad phases (failed, incomplete, hung) in the window by their cause's kind; `unknown` when none was put down. */
  readonly failures: FailureCounts;
  /** Broken contract items over the window's nights whose count is known, and how many nights that ran are not known. */
  readonly breaches: NightBreaches & { readonly unknownNights: number };
  /** The failures its suites have whatever the code: declared (`knownFailures`) or learned from its green nights; null when not known. */
  readonly baseline: SuiteBaseline | null;
}

/** Bad phases by cause kind. */
export type FailureCounts = Readonly<Record<'fleet' | 'runner' | 'agent' | 'unknown', number>>;

/** The trends of every loop over one window. */
export interface TrendsResult {
  readonly days: number;
  readonly from: string;
  readonly to: string;
  readonly loops: readonly LoopTrends[];
}

/** What trends are derived from: the store's slices as they are. */
export interface TrendsInput {
  readonly loops: readonly LoopState[];
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
  /** The window in nights (the view offers TREND_RANGES; `loopdeck trends --nights` any). */
  readonly days: number;
  /** The reference time (ISO); the window ends on its UTC date or the newest night, whichever is later. */
  readonly now: string;
  /** Nights the store kept (shared/night-summary.ts): they fill the dates no followed cycle covers. */
  readonly history?: readonly NightSummary[];
  /** The Broken contract list (shared/contract-breach.ts): it counts the followed nights' breaches; without it, their kept rows do. */
  readonly contract?: readonly ContractBreach[];
}

/** A memo that keeps derived nights between calls. */
export interface TrendsMemo {
  compute(input: TrendsInput): TrendsResult;
  /** How many nights the last call derived afresh and how many it reused. */
  readonly last: { readonly recomputed: number; readonly reused: number };
}
