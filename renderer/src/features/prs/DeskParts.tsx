import type { MouseEvent } from 'react';
import type { DeskPr } from '../../../../shared/pr-desk';
import { findingHash } from '../../../../shared/links';
import { ExternalLink } from '../../ui/ExternalLink';
import { routeHash } from '../../ui/route';
import { CHECK_LOOK, mergeableText, overlapLinks, reviewText } from './desk';

/** Each check on the PR's head by name, with its state and a link to its page. */
export function DeskChecks({ pr }: { pr: DeskPr }) {
  if (pr.checks.length === 0) return <span className="muted small">no checks reported</span>;
  return (
    <ul className="desk-checks" aria-label="Checks">
      {pr.checks.map((c) => {
        const look = CHECK_LOOK[c.state];
        const label = (
          <>
            <span aria-hidden="true" className="glyph">
              {look.glyph}
            </span>
            <span className="desk-check-name">{c.name}</span>
            <span className="visually-hidden"> {c.state}</span>
          </>
        );
        return (
          <li key={c.name} className={`badge ${look.className}`} data-testid={`desk-check-${pr.number}-${c.name}`} data-state={c.state} title={`${c.name}: ${c.state}`}>
            {c.url ? <ExternalLink url={c.url}>{label}</ExternalLink> : label}
          </li>
        );
      })}
    </ul>
  );
}

/** The marks of what to look at before merging: stale, large, overlapping, red after READY. */
export function DeskMarks({ pr }: { pr: DeskPr }) {
  return (
    <span className="desk-marks">
      {pr.state !== 'open' ? <span className="tag tag-ok">{pr.state}</span> : null}
      {pr.stale ? (
        <span className="tag tag-warn" data-testid={`desk-stale-${pr.number}`} title="Open longer than prs.staleAfter">
          stale
        </span>
      ) : null}
      {pr.large ? (
        <span className="tag tag-warn" data-testid={`desk-large-${pr.number}`} title="Changes more files than prs.largeFiles">
          large
        </span>
      ) : null}
      {pr.overlaps.length > 0 ? (
        <span className="tag tag-warn" data-testid={`desk-overlap-mark-${pr.number}`}>
          overlaps
        </span>
      ) : null}
      {pr.uncertified ? (
        <span className="tag tag-warn" data-testid={`desk-uncertified-mark-${pr.number}`} title="Its branch moved after the night's last full suite">
          no suite on {pr.uncertified.commits.length + pr.uncertified.more}
        </span>
      ) : null}
      {pr.redAfterReady ? (
        <span className="tag tag-bad" data-testid={`desk-red-${pr.number}`} title="The loop's READY named it green; its checks now fail">
          red after READY
        </span>
      ) : null}
    </span>
  );
}

/** Bring another PR's card into view and focus it (the router owns `#/…`, so this is not a hash jump). */
function goToCard(e: MouseEvent, rowId: string): void {
  e.preventDefault();
  const card = document.getElementById(rowId);
  card?.scrollIntoView({ block: 'start' });
  card?.focus({ preventScroll: true });
}

/** "Touches the same files as #91, #93": each a link to that PR's card. */
export function DeskOverlaps({ pr, desk }: { pr: DeskPr; desk: readonly DeskPr[] }) {
  if (pr.overlaps.length === 0) return null;
  const links = overlapLinks(pr, desk);
  return (
    <p className="desk-overlaps" data-testid={`desk-overlaps-${pr.number}`}>
      Touches the same files as{' '}
      {links.map((o, i) => (
        <span key={o.number}>
          {i > 0 ? ', ' : null}
          {o.rowId ? (
            <a href={routeHash({ view: 'prs' })} className="desk-overlap-link" data-testid={`desk-overlap-${pr.number}-${o.number}`} onClick={(e) => goToCard(e, o.rowId ?? '')}>
              #{o.number}
            </a>
          ) : (
            <span>#{o.number}</span>
          )}
        </span>
      ))}
      : merge one, then look at the other again.
    </p>
  );
}

/** The facts of a PR: loop, cycle, author, mergeable state, review, the findings it fixes. */
export function DeskFacts({ pr }: { pr: DeskPr }) {
  const mergeable = mergeableText(pr.mergeable);
  const review = reviewText(pr.reviewDecision);
  return (
    <dl className="desk-facts">
      <div>
        <dt>Loop</dt>
        <dd>{pr.loop}</dd>
      </div>
      <div>
        <dt>Cycle</dt>
        <dd>
          {pr.cycle ? (
            <a className="fid" href={routeHash({ view: 'loops', loop: pr.loop })} title={`The ${pr.loop} loop's nights`} data-testid={`desk-cycle-${pr.number}`}>
              {pr.cycle}
            </a>
          ) : (
            <span className="muted">—</span>
          )}
        </dd>
      </div>
      <div>
        <dt>Author</dt>
        <dd>{pr.author ?? <span className="muted">—</span>}</dd>
      </div>
      <div>
        <dt>Mergeable</dt>
        <dd className={`desk-tone-${mergeable.tone}`} data-testid={`desk-mergeable-${pr.number}`}>
          {mergeable.text}
        </dd>
      </div>
      <div>
        <dt>Review</dt>
        <dd className={`desk-tone-${review.tone}`} data-testid={`desk-review-${pr.number}`}>
          {review.text}
        </dd>
      </div>
      <div>
        <dt>Fixes</dt>
        <dd className="desk-ids">
          {pr.ids.length === 0 ? (
            <span className="muted">no REL/R id named</span>
          ) : (
            pr.ids.map((id) => (
              <a key={id} className="fid" href={findingHash({ loop: pr.loop, id })}>
                {id}
              </a>
            ))
          )}
        </dd>
      </div>
    </dl>
  );
}

/** The PR's title as a link to it on GitHub. */
export function DeskTitle({ pr }: { pr: DeskPr }) {
  return (
    <h3 className="desk-title">
      <ExternalLink url={pr.url} testId={`desk-link-${pr.number}`}>
        <span className="num">#{pr.number}</span> {pr.title}
      </ExternalLink>
    </h3>
  );
}
