import { Fragment, type ReactNode } from 'react';
import { formatAge, formatDateTime } from '../../ui/format';
import { useNow } from '../../ui/react-hooks';
import { useDeck } from '../../store';
import { ExternalLink } from '../../ui/ExternalLink';
import { PrGithubCell, PrNextRow, PrStateBadge } from './PrParts';
import { UncertifiedNote } from '../../ui/UncertifiedNote';
import { DeskView } from './DeskView';

const COLUMNS = 8;

/** Without a desk: how to get one (GitHub's state of every open PR of each loop, and the merge). */
function DeskHint() {
  return (
    <p className="muted small desk-hint" data-testid="desk-hint">
      A <code>github:</code> section and, on each loop, <code>loops.&lt;name&gt;.repo</code> (the repository its PRs are
      opened on) show the merge desk here: every open PR with its title, size, checks by name and review, what to look at
      before merging, and the merge itself.
    </p>
  );
}

/**
 * The Pull requests view: the merge desk when main has one (a `github:` section and loops with a
 * `repo`), above the PRs the loops' verdicts delivered, in main's order (ready first, then
 * incomplete, pending, merged, closed).
 */
export function PrsView() {
  const desk = useDeck((s) => s.desk);
  if (desk.length === 0) return <DeliveredPrs hint={<DeskHint />} />;
  return (
    <div className="prs-page">
      <DeskView desk={desk} />
      <DeliveredPrs hint={null} />
    </div>
  );
}

/** The PRs the loops' verdicts and deliver records named, as main tracks them. */
function DeliveredPrs({ hint }: { hint: ReactNode }) {
  const prs = useDeck((s) => s.prs);
  const desk = useDeck((s) => s.desk);
  const now = useNow(60_000);
  if (prs.length === 0) {
    if (desk.length > 0) return null;
    return (
      <div className="empty card" data-testid="prs-empty">
        <h2>No pull requests yet</h2>
        <p>
          Pull requests appear when a loop&apos;s deliver phase prints a verdict line with their URLs, e.g.{' '}
          <code>NIGHTLY DELIVER READY: loop=reliability prs=1 https://github.com/acme/app/pull/88</code>, or when the loop
          has a <code>deliverRecord:</code> file in the config.
        </p>
        {hint}
      </div>
    );
  }
  const ready = prs.filter((p) => p.status === 'ready').length;
  return (
    <section className="prs card" aria-labelledby="prs-title">
      <header className="findings-head">
        <h2 id="prs-title">{desk.length > 0 ? 'Delivered by the loops' : 'Pull requests'}</h2>
        <span className="muted">
          {prs.length} total · {ready} ready to merge
        </span>
        {hint}
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
                {pr.uncertified && pr.status !== 'merged' && pr.status !== 'closed' ? (
                  <tr className="pr-next">
                    <td colSpan={COLUMNS}>
                      <UncertifiedNote uncertified={pr.uncertified} testId={`pr-uncertified-${key}`} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
