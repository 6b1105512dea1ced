import type { CycleStatus } from '../../../../shared/domain';
import type { ReportNight } from '../../../../shared/loop-measures';
import { awaitingText, waitText, type AwaitingMerge } from '../../../../shared/merge-measures';
import type { TrendRow, TrendSeries } from './TrendsChart';

// The merge measures in Trends (issue 44, item 5), as shared/merge-measures.ts derives them: each
// night's time from its remediate start to CI green (its own deliver's, or the next fire's when
// its deliver ended INCOMPLETE) and the PRs awaiting merge at its end. "—" where not known or never
// green, never 0.

const HOUR = 3_600_000;

/** One night of the per-night table. */
export interface MergeNightRow {
  readonly date: string;
  readonly outcome: CycleStatus | null;
  /** `5.0 h`, or "—" when the night never went green. */
  readonly green: string;
  /** The night whose deliver gave the green when it is a later fire's (its own deliver ended INCOMPLETE), else null. */
  readonly greenOn: string | null;
  /** PRs awaiting merge at the night's end, or "—" when not known. */
  readonly awaiting: string;
  /** The oldest's age then, or "—". */
  readonly oldest: string;
  /** What the row says on hover. */
  readonly title: string;
}

/** The per-night table: newest first, each night that ran or had a PR awaiting merge. */
export function mergeNights(nights: readonly ReportNight[]): MergeNightRow[] {
  return nights
    .filter((n) => n.outcome !== null || (n.awaitingMerge ?? 0) > 0)
    .map((n) => {
      const g = n.remediateToGreen;
      const greenOn = g !== null && g.on !== n.date ? g.on : null;
      const green = waitText(g?.ms);
      const waiting = n.awaitingMerge === null ? 'PRs awaiting merge not known (before the followed cycles)' : `${n.awaitingMerge} PR(s) awaiting merge at its end`;
      const toGreen = g === null ? 'never green' : greenOn ? `green ${green} after its remediate began, on the next fire (${greenOn})` : `green ${green} after its remediate began`;
      return {
        date: n.date,
        outcome: n.outcome,
        green,
        greenOn,
        awaiting: n.awaitingMerge === null ? '—' : String(n.awaitingMerge),
        oldest: n.awaitingMerge ? waitText(n.oldestAwaitingMs) : '—',
        title: `${n.date}: ${toGreen}; ${waiting}`,
      };
    })
    .reverse();
}

/** The chart: hours from remediate start to green, and the oldest awaiting PR's age, a night (null when none). */
export function mergeChart(nights: readonly ReportNight[]): { rows: TrendRow[]; series: TrendSeries[] } {
  const rows = nights.map((n) => ({
    date: n.date,
    green: n.remediateToGreen === null ? null : n.remediateToGreen.ms / HOUR,
    oldest: n.oldestAwaitingMs === null ? null : n.oldestAwaitingMs / HOUR,
  }));
  const series: TrendSeries[] = [
    { key: 'green', name: 'remediate → green', color: 'var(--ok-line)' },
    { key: 'oldest', name: 'oldest awaiting merge', color: 'var(--inc-line)' },
  ];
  return { rows, series };
}

/** The loop header's awaiting-merge fact: `2, oldest 3.1 d` (or `0`, "—"), and each PR with its age on hover. */
export function awaitingFact(a: AwaitingMerge | null): { text: string; title: string } {
  if (a === null) return { text: '—', title: 'The PR list is not known' };
  const prs = a.prs.map((p) => `${p.number === null ? p.url : `#${p.number}`} ${waitText(p.ageMs)}`);
  return { text: awaitingText(a), title: prs.length === 0 ? 'No green PR awaits a merge' : `Green, not merged: ${prs.join(', ')}` };
}

/** A median in hours as the measures table shows it: `5.0 h`, or "—" when no night went green. */
export function greenHoursText(h: number | null): string {
  return h === null ? '—' : `${h.toFixed(1)} h`;
}
