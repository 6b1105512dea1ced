import { useRef, useState } from 'react';
import type { DeskMerge, DeskPr } from '../../../../shared/pr-desk';
import { describeError } from '../../client';
import { useConfirmAction, useModalDialog } from '../../ui/modal-dialog';
import { useDeck } from '../../store';
import { MERGE_METHODS, shortSha, sizeText } from './desk';

/** Props of the merge confirmation: the PR as the operator saw it when opening it, and as it is now. */
export interface MergeDialogProps {
  /** The PR when the dialog opened: its head is the one merged, never re-read. */
  seen: DeskPr;
  /** The same PR on the desk now (null when it left), to say that it moved since. */
  current: DeskPr | null;
  onClose: () => void;
}

/**
 * Confirm a merge: names the PR, its base, its size, the head commit and the method, and sends
 * `prs.merge` with the head shown. A modal `<dialog>` (focus stays in it, Esc cancels); Cancel
 * has the initial focus so Enter never merges by accident. GitHub's refusal is shown as it said it.
 */
export function MergeDialog({ seen, current, onClose }: MergeDialogProps) {
  const mergePr = useDeck((s) => s.mergePr);
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Taken once, when the dialog opened: the merge is of this head whatever arrives meanwhile.
  const [sha] = useState(seen.headSha);
  // '' is the configured method (prs.mergeMethod, which main holds): main applies it.
  const [method, setMethod] = useState<DeskMerge['method'] | ''>('');
  const { busy, error, onConfirm } = useConfirmAction(() => mergePr({ loop: seen.loop, number: seen.number, sha, ...(method ? { method } : {}) }), onClose, describeError);
  const { onCancel, onKeyDown } = useModalDialog(ref, () => cancelRef.current, onClose, busy);
  const moved = current !== null && current.headSha !== sha;
  const size = sizeText(seen);

  return (
    <dialog
      ref={ref}
      className="dialog merge-dialog"
      role="dialog"
      aria-modal="true"
      aria-labelledby="merge-title"
      aria-describedby="merge-desc"
      data-testid="merge-dialog"
      onCancel={onCancel}
      onKeyDown={onKeyDown}
    >
      <h2 id="merge-title">
        Merge #{seen.number}: {seen.title}?
      </h2>
      <div id="merge-desc" className="dialog-body">
        <dl className="merge-facts">
          <div>
            <dt>Into</dt>
            <dd className="mono" data-testid="merge-base">
              {seen.base}
              <span className="muted"> from {seen.head}</span>
            </dd>
          </div>
          <div>
            <dt>Repository</dt>
            <dd className="mono">{seen.repo}</dd>
          </div>
          <div>
            <dt>Size</dt>
            <dd data-testid="merge-size">
              {size ?? 'not known'}
              {seen.large ? <span className="tag tag-warn">large</span> : null}
            </dd>
          </div>
          <div>
            <dt>Head</dt>
            <dd className="mono" data-testid="merge-sha" title={sha}>
              {shortSha(sha)}
            </dd>
          </div>
          <div>
            <dt>
              <label htmlFor="merge-method">Method</label>
            </dt>
            <dd>
              <select id="merge-method" data-testid="merge-method" value={method} disabled={busy} onChange={(e) => setMethod(e.target.value as DeskMerge['method'] | '')}>
                <option value="">as configured (prs.mergeMethod)</option>
                {MERGE_METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </dd>
          </div>
        </dl>
        <p className="muted small">
          GitHub merges only if the head is still <code>{shortSha(sha)}</code>: a PR that moved since you looked is refused, not
          merged. The merge is recorded with your name.
        </p>
        {moved && current ? (
          <p className="callout callout-warn small" data-testid="merge-moved">
            The head moved to <code>{shortSha(current.headSha)}</code> since you opened this: GitHub will refuse. Cancel and review
            the PR again.
          </p>
        ) : null}
      </div>
      {error ? (
        <p className="callout callout-bad" role="alert" data-testid="merge-error">
          {error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" ref={cancelRef} onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="primary" data-testid="merge-confirm" onClick={() => void onConfirm()} disabled={busy}>
          {busy ? 'Merging…' : `Merge #${seen.number}`}
        </button>
      </div>
    </dialog>
  );
}
