import { mergeBlockers, type DeskPr } from '../../../../shared/pr-desk';
import { formatDateTime } from '../../ui/format';
import { DeskNext } from './DeskNext';
import { UncertifiedNote } from '../../ui/UncertifiedNote';
import { DeskChecks, DeskFacts, DeskMarks, DeskOverlaps, DeskTitle } from './DeskParts';
import { ageText, deskRowId, mergedText, shortSha, sizeText } from './desk';

/** Props of one PR's card on the desk. */
export interface DeskCardProps {
  pr: DeskPr;
  desk: readonly DeskPr[];
  /** Whether the caller may tick Next steps (`prs.nextDone`). */
  mayTick: boolean;
  /** Whether the caller may merge (`prs.merge`); without it the merge button is not shown. */
  mayMerge: boolean;
  onMerge: (pr: DeskPr) => void;
}

/** The merge button, or why it is disabled (each blocker's sentence), or the console's merge. */
function MergeFoot({ pr, mayMerge, onMerge }: Pick<DeskCardProps, 'pr' | 'mayMerge' | 'onMerge'>) {
  if (pr.merged) {
    return (
      <p className="desk-merged" data-testid={`desk-merged-${pr.number}`}>
        <span aria-hidden="true" className="glyph">
          ⇢
        </span>{' '}
        {mergedText(pr.merged, (iso) => formatDateTime(iso) ?? iso)}
      </p>
    );
  }
  if (!mayMerge) return null;
  const blockers = mergeBlockers(pr);
  const why = `desk-why-${pr.number}`;
  return (
    <div className="desk-merge">
      <button
        type="button"
        className="primary"
        data-testid={`desk-merge-${pr.number}`}
        disabled={blockers.length > 0}
        aria-describedby={blockers.length > 0 ? why : undefined}
        onClick={() => onMerge(pr)}
      >
        Merge…
      </button>
      {blockers.length > 0 ? (
        <div id={why} className="desk-why" data-testid={`desk-blockers-${pr.number}`}>
          <span className="desk-why-label">Not mergeable from the console yet:</span>
          <ul>
            {blockers.map((b) => (
              <li key={b}>{b}</li>
            ))}
          </ul>
        </div>
      ) : (
        <span className="muted small">
          every check passed and every Next step is ticked · head <code>{shortSha(pr.headSha)}</code>
        </span>
      )}
    </div>
  );
}

/** One PR of the merge desk: what it is, what to look at before merging, its Next checklist and the merge. */
export function DeskCard({ pr, desk, mayTick, mayMerge, onMerge }: DeskCardProps) {
  const size = sizeText(pr);
  return (
    <article
      className={`desk-pr desk-${pr.state}${pr.redAfterReady ? ' desk-red' : ''}`}
      id={deskRowId(pr)}
      tabIndex={-1}
      aria-labelledby={`${deskRowId(pr)}-title`}
      data-testid={`desk-pr-${pr.number}`}
      data-loop={pr.loop}
    >
      <header className="desk-pr-head">
        <div id={`${deskRowId(pr)}-title`} className="desk-pr-title">
          <DeskTitle pr={pr} />
        </div>
        <DeskMarks pr={pr} />
      </header>
      <p className="desk-line">
        <span title={`Opened ${formatDateTime(pr.openedAt) ?? pr.openedAt}`} data-testid={`desk-age-${pr.number}`}>
          open {ageText(pr.ageHours)}
        </span>
        <span aria-hidden="true"> · </span>
        <span data-testid={`desk-size-${pr.number}`}>{size ?? 'size not known'}</span>
        <span aria-hidden="true"> · </span>
        <span className="mono desk-branch" title={`Merges ${pr.head} into ${pr.base}`}>
          {pr.base} ← {pr.head}
        </span>
        <span aria-hidden="true"> · </span>
        <span className="mono" title={pr.headSha}>
          head {shortSha(pr.headSha)}
        </span>
      </p>
      <DeskFacts pr={pr} />
      <div className="desk-checks-row">
        <span className="desk-label">Checks</span>
        <DeskChecks pr={pr} />
      </div>
      <DeskOverlaps pr={pr} desk={desk} />
      <UncertifiedNote uncertified={pr.uncertified} testId={`desk-uncertified-${pr.number}`} />
      {pr.problem ? (
        <p className="callout callout-warn small" role="note" data-testid={`desk-problem-${pr.number}`}>
          {pr.problem}
        </p>
      ) : null}
      <DeskNext pr={pr} may={mayTick} />
      <MergeFoot pr={pr} mayMerge={mayMerge} onMerge={onMerge} />
    </article>
  );
}
