import type { Cycle, CycleStatus, LoopState } from './loop-domain';
import type { BacklogItem } from './ledger-domain';
import type { NightPhase } from './night-summary';
import { BASELINE_NIGHTS, learnedBaseline, phaseSuiteTotals, type SuiteTotals } from './suite-summary';

// A night's suites and a loop's baseline of known failures (issue "Night against night", item 1):
// the rule Trends, the Review and `loopdeck compare` share.

/** Cycle outcomes that count as green for learning a baseline. */
const GREEN: ReadonlySet<CycleStatus> = new Set(['ok', 'ready']);

/**
 * A night's suite totals: those of its last phase (in the loop's order) whose transcript showed a
 * suite — the code the night ended with, as opposed to the audit's first run. Null when none did.
 */
export function nightSuiteTotals(phases: readonly Pick<NightPhase, 'suites'>[]): SuiteTotals | null {
  for (let i = phases.length - 1; i >= 0; i -= 1) {
    const s = phases[i]?.suites;
    if (s) return s;
  }
  return null;
}

/** A loop's baseline of known failures: declared (`knownFailures:`), or learned from its green nights. */
export interface SuiteBaseline {
  readonly failed: number;
  readonly from: 'declared' | 'learned';
  /** How many green nights it was learned from (0 when declared). */
  readonly nights: number;
}

/**
 * The baseline a night's failures are counted against: the loop's declared `knownFailures`, else
 * the lower median of the failed counts of its last green nights (ok or ready, with suite totals)
 * before `before` (a date; all when null). Null when neither is known.
 */
export function suiteBaseline(declared: number | undefined, nights: readonly { readonly date: string; readonly outcome: CycleStatus | null; readonly suites: SuiteTotals | null }[], before: string | null = null): SuiteBaseline | null {
  if (declared !== undefined) return { failed: declared, from: 'declared', nights: 0 };
  const failed = nights
    .filter((n) => n.outcome !== null && GREEN.has(n.outcome) && n.suites !== null && (before === null || n.date < before))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
    .map((n) => n.suites?.failed ?? 0);
  const learned = learnedBaseline(failed);
  return learned === null ? null : { failed: learned, from: 'learned', nights: Math.min(failed.length, BASELINE_NIGHTS) };
}

/** A followed cycle's suite totals (nightSuiteTotals of its phases' own). */
export function cycleSuiteTotals(cycle: Cycle): SuiteTotals | null {
  return nightSuiteTotals(cycle.phases.map((p) => ({ suites: p.suites ? (phaseSuiteTotals(p.suites) ?? undefined) : undefined })));
}

/** A loop's baseline for its night of `date`: declared, or learned from its followed green nights before it. */
export function loopBaselineAt(loop: Pick<LoopState, 'cycles' | 'knownFailures'>, date: string): SuiteBaseline | null {
  return suiteBaseline(loop.knownFailures, loop.cycles.map((c) => ({ date: c.date, outcome: c.status, suites: cycleSuiteTotals(c) })), date);
}

/** What a night's RELIABILITY_LOG.md rows claim (FORMATS.md §3): the items, their outcomes, and their red/green test counts summed. */
export interface LogClaims {
  readonly rows: readonly { readonly id: string; readonly outcome: string; readonly red: number | null; readonly green: number | null; readonly line: number }[];
  /** Sums over the rows that give the count; null when none does. */
  readonly red: number | null;
  readonly green: number | null;
}

/**
 * The log rows a loop wrote for the night of `date` (an outcome row dated that day), as the
 * remediate phase's own claim beside what its suites printed: each item's outcome and red/green.
 * Null when the log has no row of that date.
 */
export function logClaims(backlog: readonly Pick<BacklogItem, 'id' | 'loop' | 'outcomes'>[], loop: string, date: string): LogClaims | null {
  const rows = backlog.flatMap((b) => (b.loop === loop ? b.outcomes.filter((o) => o.date === date).map((o) => ({ id: b.id, outcome: o.outcome, red: o.red, green: o.green, line: o.line })) : []));
  if (rows.length === 0) return null;
  const total = (k: 'red' | 'green'): number | null => (rows.some((r) => r[k] !== null) ? rows.reduce((a, r) => a + (r[k] ?? 0), 0) : null);
  return { rows: rows.sort((a, b) => a.line - b.line), red: total('red'), green: total('green') };
}
