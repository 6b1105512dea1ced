import type { Uncertified } from '../../../shared/domain';
import { formatDateTime } from './format';

/** How many commits, in words: "1 commit", "3 commits". */
const commitsText = (n: number): string => `${n} commit${n === 1 ? '' : 's'}`;

/**
 * "No suite ran on 2 commits": the nightly branch moved after the last full suite ended (the
 * reflog says when), so a green suite does not certify what was delivered. Each commit by its
 * short sha and message; `testId` names it for the phase or the PR card it is on.
 */
export function UncertifiedNote({ uncertified, testId }: { uncertified: Uncertified | null | undefined; testId: string }) {
  if (!uncertified || uncertified.commits.length === 0) return null;
  const total = uncertified.commits.length + uncertified.more;
  return (
    <div className="callout callout-warn uncertified" data-testid={testId}>
      <p>
        No suite ran on {commitsText(total)}: the branch moved after the last full suite ({uncertified.suite}) ended{' '}
        <time dateTime={uncertified.suiteEndedAt}>{formatDateTime(uncertified.suiteEndedAt)}</time>.
      </p>
      <ul className="commit-list">
        {uncertified.commits.map((c) => (
          <li key={`${c.sha}\u0000${c.at}`} className="small">
            <span className="mono" title={c.sha}>
              {c.sha.slice(0, 10)}
            </span>{' '}
            <span>{c.message.replace(/^commit(?: \([^)]*\))?: /, '')}</span>
          </li>
        ))}
        {uncertified.more > 0 ? <li className="small muted">and {commitsText(uncertified.more)} more</li> : null}
      </ul>
    </div>
  );
}
