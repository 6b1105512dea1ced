import type { PhaseCommit } from '../../../../shared/domain';
import { findingHash } from '../../../../shared/links';
import { formatDateTime } from '../../ui/format';

/** The commits a phase made on the nightly branch (from the clone's reflog), with the REL/R ids they name as links. */
export function PhaseCommits({ loop, commits }: { loop: string; commits: readonly PhaseCommit[] | undefined }) {
  if (!commits || commits.length === 0) return null;
  return (
    <section className="detail-section" data-testid="phase-commits">
      <h3>Commits on the nightly branch</h3>
      <ul className="commit-list">
        {commits.map((c) => (
          <li key={`${c.sha}\u0000${c.at}`} className="small">
            <span className="mono" title={c.sha}>
              {c.sha.slice(0, 10)}
            </span>{' '}
            <time className="muted" dateTime={c.at}>
              {formatDateTime(c.at)}
            </time>{' '}
            <span>{c.message.replace(/^commit(?: \([^)]*\))?: /, '')}</span>
            {c.ids.length > 0 ? (
              <span className="muted">
                {' — '}
                {c.ids.map((id, i) => (
                  <span key={id}>
                    {i > 0 ? ', ' : ''}
                    <a className="console-link" href={findingHash({ loop, id })}>
                      {id}
                    </a>
                  </span>
                ))}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
