import { useMemo } from 'react';
import { formatCount, suiteSentence } from '../../../../shared/suite-summary';
import type { LoopTrends } from '../../../../shared/trends';
import { TrendsChart, type TrendRow, type TrendSeries } from './TrendsChart';
import { useScrollFocus } from '../../ui/react-hooks';

const SERIES: readonly TrendSeries[] = [
  { key: 'within', name: 'failed within the baseline', color: 'var(--inc-line)', stack: 's', faded: true },
  { key: 'beyond', name: 'failed beyond it', color: 'var(--fail-line)', stack: 's' },
];

/**
 * A loop's suite failures a night (those within its baseline of known failures faded, those beyond
 * it red), and a table of the nights its transcripts showed a suite on: passed, failed, beyond.
 */
export function TrendsSuites({ trends }: { trends: LoopTrends }) {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const l = trends;
  const baseline = l.baseline?.failed ?? null;
  const rows = useMemo(
    () =>
      l.nights.map((n): TrendRow => {
        const failed = n.suites?.failed ?? null;
        if (failed === null) return { date: n.date, within: null, beyond: null };
        const within = baseline === null ? 0 : Math.min(failed, baseline);
        return { date: n.date, within, beyond: failed - within };
      }),
    [l.nights, baseline],
  );
  const shown = l.nights.filter((n) => n.suites !== null);
  if (shown.length === 0) return null;
  const known = l.baseline ? `baseline ${formatCount(l.baseline.failed)} (${l.baseline.from === 'declared' ? 'knownFailures' : `learned from ${l.baseline.nights} green nights`})` : 'no baseline yet';
  return (
    <TrendsChart id="suites" title="Suite failures" unit={`per night; ${known}`} kind="bars" rows={rows} series={SERIES}>
      <details className="trend-breach-nights" data-testid="trend-suite-nights">
        <summary>
          Suites on {shown.length} night{shown.length === 1 ? '' : 's'}
        </summary>
        <table ref={scrollFocus} className="trend-phases">
          <thead>
            <tr>
              <th scope="col">Night</th>
              <th scope="col">Passed</th>
              <th scope="col">Failed</th>
              <th scope="col">Said</th>
            </tr>
          </thead>
          <tbody>
            {[...shown].reverse().map((n) => (
              <tr key={n.date} data-testid={`trend-suite-night-${n.date}`}>
                <th scope="row" className="num">
                  {n.date}
                </th>
                <td className="num">{formatCount(n.suites?.passed ?? 0)}</td>
                <td className={`num${(n.suites?.failed ?? 0) > (baseline ?? 0) ? ' trend-cap-hit' : ''}`}>{formatCount(n.suites?.failed ?? 0)}</td>
                <td className="small">{n.suites ? suiteSentence(n.suites, baseline) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </TrendsChart>
  );
}
