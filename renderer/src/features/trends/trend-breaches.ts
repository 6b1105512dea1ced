import { CONTRACT_KINDS, CONTRACT_LABEL, type ContractKind } from '../../../../shared/contract-breach';
import type { CycleStatus } from '../../../../shared/domain';
import { breachKindsText, breachTotalText, type TrendNight } from '../../../../shared/trends';
import type { TrendRow, TrendSeries } from './TrendsChart';

// Breaches per night in Trends (issue 43): what the chart and the per-night table draw of each
// night's Broken contract count, as shared/trends.ts derives it (nightBreaches): a count, or "—"
// for a night whose count is not known (kept before breaches were, or never followed with the list).

const KIND_COLORS = ['var(--fail-line)', 'var(--inc-line)', 'var(--run-line)', 'var(--op-solid)', 'var(--ready-line)', 'var(--accent)', 'var(--noop-line)', 'var(--pend-line)'];

/** One night of the per-night table. */
export interface BreachNightRow {
  readonly date: string;
  readonly outcome: CycleStatus | null;
  /** The count, or "—" when not known. */
  readonly total: string;
  /** `2 × stage unfinished`, one a kind it had, in the list's order (empty when none or not known). */
  readonly kinds: readonly string[];
  /** What the row says on hover. */
  readonly title: string;
}

/**
 * The chart of a loop's nights: a bar a kind, stacked. A kind the night did not have is null, as is
 * every kind on a night whose count is not known: a hover lists only the night's own kinds.
 */
export function breachChart(nights: readonly TrendNight[]): { rows: TrendRow[]; series: TrendSeries[] } {
  const seen = new Set<string>();
  for (const n of nights) for (const k of Object.keys(n.breaches?.kinds ?? {})) seen.add(k);
  const rank = (k: string): number => (CONTRACT_KINDS.includes(k as ContractKind) ? CONTRACT_KINDS.indexOf(k as ContractKind) : CONTRACT_KINDS.length);
  const kinds = [...seen].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const rows = nights.map((n) => ({ date: n.date, ...Object.fromEntries(kinds.map((k) => [k, n.breaches?.kinds[k] ?? null])) }));
  const series = kinds.map((k, i) => ({ key: k, name: CONTRACT_LABEL[k as ContractKind] ?? k, color: KIND_COLORS[i % KIND_COLORS.length] ?? 'var(--accent)', stack: 'b' }));
  return { rows, series };
}

/** The per-night table: newest first, each night that ran or has a count; "—" where the count is not known. */
export function breachNights(nights: readonly TrendNight[]): BreachNightRow[] {
  return nights
    .filter((n) => n.outcome !== null || n.breaches !== null)
    .map((n) => {
      const kinds = breachKindsText(n.breaches);
      const total = breachTotalText(n.breaches);
      const title = n.breaches === null ? `${n.date}: not known (kept before breaches were counted)` : kinds.length === 0 ? `${n.date}: no contract breach` : `${n.date}: ${kinds.join(', ')}`;
      return { date: n.date, outcome: n.outcome, total, kinds, title };
    })
    .reverse();
}
