import type { PullRequest } from '../../../../shared/domain';
import { formatAge, formatDateTime } from '../../ui/format';
import { StatusBadge } from '../../ui/StatusBadge';

/** How a PR that GitHub merged or closed shows: GitHub's word, not the loop's. */
const GITHUB_ENDS = {
  merged: { className: 'status-ok', glyph: '⇢' },
  closed: { className: 'status-pending', glyph: '✕' },
} as const;

/** A PR's state: the loop's (ready, incomplete, pending), or GitHub's once merged or closed there. */
export function PrStateBadge({ pr }: { pr: PullRequest }) {
  if (pr.status === 'merged' || pr.status === 'closed') {
    const end = GITHUB_ENDS[pr.status];
    return (
      <span className={`badge ${end.className}`} data-testid="pr-state">
        <span aria-hidden="true" className="glyph">
          {end.glyph}
        </span>
        {pr.status}
      </span>
    );
  }
  return (
    <span data-testid="pr-state">
      <StatusBadge status={pr.status} />
    </span>
  );
}

const CHECKS_GLYPH = { passing: '✓', failing: '✕', pending: '◔', none: '–' } as const;
const CHECKS_CLASS = { passing: 'status-ok', failing: 'status-failed', pending: 'status-running', none: 'status-pending' } as const;

/** What GitHub says: merged by whom and when, closed, or the head commit's checks; its problem, if any. */
export function PrGithubCell({ pr, now }: { pr: PullRequest; now: number }) {
  const g = pr.github;
  if (!g) return <span className="muted">—</span>;
  const when = (iso: string | null) => (
    <span title={formatDateTime(iso) ?? undefined}>{formatAge(iso, now) ?? '—'} ago</span>
  );
  return (
    <div className="pr-github" data-testid="pr-github">
      {g.state === 'merged' ? (
        <span>
          merged{g.mergedBy ? <> by <b>{g.mergedBy}</b></> : null} {when(g.mergedAt)}
        </span>
      ) : g.state === 'closed' ? (
        <span>closed without merging {when(g.closedAt)}</span>
      ) : g.checks ? (
        <span className={`badge ${CHECKS_CLASS[g.checks]}`} data-testid="pr-checks">
          <span aria-hidden="true" className="glyph">
            {CHECKS_GLYPH[g.checks]}
          </span>
          {g.checks === 'none' ? 'no checks' : `checks ${g.checks}`}
        </span>
      ) : null}
      {g.state === 'open' && g.checkNames.length > 0 ? <span className="mono check-names">{g.checkNames.join(', ')}</span> : null}
      {g.problem ? (
        <span className="pr-github-problem" role="note">
          {g.problem}
        </span>
      ) : null}
    </div>
  );
}

/** The PR body's Next section: what the loop asks a person to do before the merge. */
export function PrNextRow({ pr, columns }: { pr: PullRequest; columns: number }) {
  const next = pr.github?.next;
  if (!next || next.length === 0 || pr.status === 'merged' || pr.status === 'closed') return null;
  return (
    <tr className="pr-next" data-testid={`pr-next-${pr.number ?? pr.url}`}>
      <td colSpan={columns}>
        <span className="pr-next-label">Before merging (the PR&apos;s Next section):</span>
        <ul>
          {next.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      </td>
    </tr>
  );
}
