import { Fragment } from 'react';
import { formatAge, formatDateTime } from '../../ui/format';
import { useNow } from '../../ui/react-hooks';
import { useDeck } from '../../store';
import { ExternalLink } from '../../ui/ExternalLink';
import { PrGithubCell, PrNextRow, PrStateBadge } from './PrParts';

const COLUMNS = 8;

/** Delivered pull requests, in main's order (ready first, then incomplete, pending, merged, closed). */
export function PrsView() {
  const prs = useDeck((s) => s.prs);
  const now = useNow(60_000);
  if (prs.length === 0) {
    return (
      <div className="empty card" data-testid="prs-empty">
        <h2>No pull requests yet</h2>
        <p>
          Pull requests appear when a loop&apos;s deliver phase prints a verdict line with their URLs, e.g.{' '}
          <code>NIGHTLY DELIVER READY: loop=reliability prs=1 https://github.com/acme/app/pull/88</code>, or when the loop
          has a <code>deliverRecord:</code> file in the config.
        </p>
      </div>
    );
  }
  const ready = prs.filter((p) => p.status === 'ready').length;
  return (
    <section className="prs card" aria-labelledby="prs-title">
      <header className="findings-head">
        <h2 id="prs-title">Pull requests</h2>
        <span className="muted">
          {prs.length} total · {ready} ready to merge
        </span>
      </header>
      <table className="prs-table" data-testid="prs-table">
        <thead>
          <tr>
            <th scope="col">Loop</th>
            <th scope="col">PR</th>
            <th scope="col">Branch</th>
            <th scope="col">State</th>
            <th scope="col">Failing check</th>
            <th scope="col">GitHub</th>
            <th scope="col">Age</th>
            <th scope="col">Cycle</th>
          </tr>
        </thead>
        <tbody>
          {prs.map((pr) => {
            const key = pr.number ?? pr.url;
            return (
              <Fragment key={`${pr.loop}:${pr.url}`}>
                <tr data-testid={`pr-row-${key}`} data-row className={`pr-${pr.status}`}>
                  <td>{pr.loop}</td>
                  <td data-row-open>
                    <ExternalLink url={pr.url} testId={`pr-link-${key}`}>
                      {pr.number !== null ? `#${pr.number}` : pr.url}
                    </ExternalLink>
                  </td>
                  <td className="mono branch">{pr.branch ?? '—'}</td>
                  <td>
                    <PrStateBadge pr={pr} />
                  </td>
                  <td className={pr.check ? 'mono check-failing' : 'muted'}>{pr.check ?? '—'}</td>
                  <td>
                    <PrGithubCell pr={pr} now={now} />
                  </td>
                  <td className="num" title={formatDateTime(pr.since) ?? undefined}>
                    {formatAge(pr.since, now) ?? '—'}
                  </td>
                  <td className="num">{pr.cycle ?? '—'}</td>
                </tr>
                <PrNextRow pr={pr} columns={COLUMNS} />
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
