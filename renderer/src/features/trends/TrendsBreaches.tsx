import { useMemo } from 'react';
import { breachKindsText, type LoopTrends } from '../../../../shared/trends';
import { TrendsChart } from './TrendsChart';
import { breachChart, breachNights } from './trend-breaches';
import { useScrollFocus } from '../../ui/react-hooks';

/** A loop's Broken contract items a night (by kind on hover), and a table of its nights: the count and kinds, "—" when not known. */
export function TrendsBreaches({ trends }: { trends: LoopTrends }) {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const l = trends;
  const chart = useMemo(() => breachChart(l.nights), [l.nights]);
  const rows = useMemo(() => breachNights(l.nights), [l.nights]);
  const { total, unknownNights } = l.breaches;
  return (
    <TrendsChart id="breaches" title="Broken contract" unit="items per night, by kind" kind="bars" rows={chart.rows} series={chart.series}>
      <details className="trend-breach-nights" data-testid="trend-breach-nights">
        <summary>
          <span data-testid="trend-breaches-total">{total}</span> in this window{breachKindsText(l.breaches).length > 0 ? ` (${breachKindsText(l.breaches).join(', ')})` : ''}
          {unknownNights > 0 ? <span className="muted">; {unknownNights} night(s) kept before breaches were counted: —</span> : null}
        </summary>
        <table ref={scrollFocus} className="trend-phases">
          <thead>
            <tr>
              <th scope="col">Night</th>
              <th scope="col">Outcome</th>
              <th scope="col" title="Items of the Broken contract list on the night (as last kept, past the followed cycles); — when not known">
                Breaches
              </th>
              <th scope="col">By kind</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.date} data-testid={`trend-breach-night-${r.date}`} title={r.title}>
                <th scope="row" className="num">
                  {r.date}
                </th>
                <td>{r.outcome ?? '—'}</td>
                <td className={`num${r.total !== '—' && r.total !== '0' ? ' trend-cap-hit' : ''}`} data-testid="trend-breach-count">
                  {r.total}
                </td>
                <td className="small">{r.kinds.length > 0 ? r.kinds.join(', ') : r.total === '—' ? '—' : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </TrendsChart>
  );
}
