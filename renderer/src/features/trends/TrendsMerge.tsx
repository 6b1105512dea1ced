import { useMemo } from 'react';
import type { LoopReport } from '../../../../shared/loop-measures';
import { TrendsChart } from './TrendsChart';
import { mergeChart, mergeNights } from './trend-merge';
import { useScrollFocus } from '../../ui/react-hooks';

const hours = (v: number): string => (v >= 10 ? v.toFixed(0) : v.toFixed(1));

/** A loop's time from remediate start to CI green and its PRs awaiting merge, a night: a chart and the per-night table ("—" when never green or not known). */
export function TrendsMerge({ report }: { report: LoopReport }) {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const l = report;
  const chart = useMemo(() => mergeChart(l.nights), [l.nights]);
  const rows = useMemo(() => mergeNights(l.nights), [l.nights]);
  return (
    <TrendsChart id="merge" title="Remediate → green, awaiting merge" unit="hours" kind="lines" rows={chart.rows} series={chart.series} format={hours}>
      <details className="trend-merge-nights" data-testid="trend-merge-nights">
        <summary>Per night</summary>
        <table ref={scrollFocus} className="trend-phases">
          <thead>
            <tr>
              <th scope="col">Night</th>
              <th scope="col">Outcome</th>
              <th scope="col" title="From the night's remediate start to CI green: its deliver's green verdict, or the next fire's when its deliver ended INCOMPLETE; — when never green">
                Remediate → green
              </th>
              <th scope="col" title="PRs green and neither merged nor closed at the night's end; — before the followed cycles (not known)">
                Awaiting merge
              </th>
              <th scope="col">Oldest</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.date} data-testid={`trend-merge-night-${r.date}`} title={r.title}>
                <th scope="row" className="num">
                  {r.date}
                </th>
                <td>{r.outcome ?? '—'}</td>
                <td className="num" data-testid="trend-merge-green">
                  {r.green}
                  {r.greenOn ? <span className="muted small"> (on {r.greenOn})</span> : null}
                </td>
                <td className="num" data-testid="trend-merge-awaiting">
                  {r.awaiting}
                </td>
                <td className="num">{r.oldest}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </TrendsChart>
  );
}
