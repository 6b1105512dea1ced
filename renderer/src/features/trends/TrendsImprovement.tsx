import type { ChurnEntry } from '../../../../shared/churn';
import { nightsCostText, type LoopReport } from '../../../../shared/loop-measures';
import { greenHoursText } from './trend-merge';
import { useScrollFocus } from '../../ui/react-hooks';

const CAUSES = [
  { key: 'fleet', label: 'Fleet' },
  { key: 'runner', label: 'Runner' },
  { key: 'agent', label: 'Agent' },
  { key: 'unknown', label: 'Not put down' },
] as const;
const pct = (v: number | null): string => (v === null ? '—' : `${Math.round(v * 100)}%`);
const CHURN_SHOWN = 50;

function churnKey(c: ChurnEntry): string {
  return c.kind === 'reopened' ? `r-${c.item}` : `f-${c.id}-${c.of}`;
}

function ChurnIds({ c }: { c: ChurnEntry }) {
  if (c.kind === 'reopened') {
    return (
      <>
        <code>{c.item}</code>
        {c.findings.length > 0 ? <span className="muted"> ({c.findings.join(', ')})</span> : null}
      </>
    );
  }
  return (
    <>
      <code>{c.id}</code> <span className="muted">re-finds</span> <code>{c.of}</code>
      {c.items.length > 0 ? <span className="muted"> ({c.items.join(', ')})</span> : null}
    </>
  );
}

/** Is the loop really improving: its own measures over 7, 30 and 90 nights, bad phases by cause, and the churn with its IDs. */
export function TrendsImprovement({ report }: { report: LoopReport }) {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const l = report;
  const shown = l.churn.slice(0, CHURN_SHOWN);
  return (
    <div className="trend-improve">
      <section className="trend-block" aria-labelledby={`trend-measures-${l.loop}`}>
        <h3 id={`trend-measures-${l.loop}`} className="trend-chart-title">
          Does it improve
        </h3>
        <table ref={scrollFocus} className="trend-phases" data-testid="trend-measures">
          <thead>
            <tr>
              <th scope="col">Over</th>
              <th scope="col" title="Findings DONE on a night that delivered, over findings found">Implemented</th>
              <th scope="col">PRs</th>
              <th scope="col" title="Median from the night's audit start to its READY verdict">Audit → READY</th>
              <th scope="col" title="Median from the night's remediate start to CI green (its deliver's, or the next fire's when its deliver ended INCOMPLETE), over the nights that went green">
                Remediate → green
              </th>
              <th scope="col" title="DONE items reopened and findings re-found within 30 days">Reopened</th>
              <th scope="col" title="Fleet tokens per PR delivered, from the proxies' usage rows over each phase's window (kept 30 days, then with the night)">Tokens / PR</th>
              <th scope="col" title="What the priced nights cost (costs: in the config), per finding DONE, per PR merged, and the part spent on failed, incomplete, hung and hollow phases">
                Cost
              </th>
            </tr>
          </thead>
          <tbody>
            {l.measures.map((m) => (
              <tr key={m.nights} data-testid={`trend-measures-${m.nights}`}>
                <th scope="row">{m.nights} nights</th>
                <td className="num">
                  {m.implemented}/{m.found} ({pct(m.implementedShare)})
                </td>
                <td className="num">{m.prs}</td>
                <td className="num">{m.medianReadyHours === null ? '—' : `${m.medianReadyHours.toFixed(1)} h`}</td>
                <td className="num" data-testid="trend-measure-green" title={`${m.greenNights} night(s) went green`}>
                  {greenHoursText(m.medianGreenHours)}
                </td>
                <td className={`num${m.reopened > 0 ? ' trend-cap-hit' : ''}`}>{m.reopened}</td>
                <td className="num">{m.tokensPerPr === null ? '—' : Math.round(m.tokensPerPr).toLocaleString('en-US')}</td>
                <td className="num small" data-testid="trend-measure-cost">
                  {nightsCostText(m.cost)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="trend-block" aria-labelledby={`trend-causes-${l.loop}`}>
        <h3 id={`trend-causes-${l.loop}`} className="trend-chart-title">
          Failures by cause
        </h3>
        <dl className="trend-facts" data-testid="trend-failures">
          {CAUSES.map((c) => (
            <div key={c.key} data-testid={`trend-failures-${c.key}`}>
              <dt>{c.label}</dt>
              <dd className={l.failures[c.key] > 0 ? 'trend-cap-hit' : undefined}>{l.failures[c.key]}</dd>
            </div>
          ))}
        </dl>
        <p className="muted small trend-noflags">Failed, incomplete and hung phases in this window.</p>
      </section>
      <section className="trend-block trend-churn" aria-labelledby={`trend-churn-${l.loop}`}>
        <h3 id={`trend-churn-${l.loop}`} className="trend-chart-title">
          Churn <span className="muted small">({l.churn.length})</span>
        </h3>
        {l.churn.length === 0 ? (
          <p className="muted small trend-noflags" data-testid="trend-no-churn">
            Nothing DONE came back in this window.
          </p>
        ) : (
          <ul className="trend-churn-list" data-testid="trend-churn">
            {shown.map((c) => (
              <li key={churnKey(c)} data-testid={`trend-churn-${c.kind}`}>
                <span className="num muted">{c.date ?? 'undated'}</span> <strong>{c.kind === 'reopened' ? `Reopened: ${c.outcome}` : `Re-found after ${c.days} d`}</strong> <ChurnIds c={c} />
                {c.kind === 'refound' ? (
                  <span className="muted">
                    {' '}
                    at <code>{c.where}</code> ({c.category})
                  </span>
                ) : null}
              </li>
            ))}
            {l.churn.length > shown.length ? <li className="muted">and {l.churn.length - shown.length} more</li> : null}
          </ul>
        )}
      </section>
    </div>
  );
}
