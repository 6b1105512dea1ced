import { useContext, useEffect, useState } from 'react';
import type { LoopState } from '../../../../shared/domain';
import { reviewMarkdown } from '../../../../shared/review-summary';
import { DeckContext, ledgersHeld, useDeck } from '../../store';
import { messageOf } from '../../../../shared/errors';

type CopyState = { readonly kind: 'idle' } | { readonly kind: 'copied' } | { readonly kind: 'error'; readonly message: string };

/** How long "Copied" stays next to the button. */
const CONFIRM_MS = 4000;

/**
 * "Copy as Markdown": the morning summary (the same shared function `loopdeck review --markdown`
 * prints) on the clipboard, to paste into the team's issue or chat.
 */
export function CopyMarkdownButton({ since }: { since: string }) {
  const [state, setState] = useState<CopyState>({ kind: 'idle' });
  // Until the findings have all arrived a summary would leave some out: wait for them.
  const ready = useDeck((s) => ledgersHeld(s.stage));
  const store = useContext(DeckContext);

  useEffect(() => {
    if (state.kind !== 'copied') return;
    const t = setTimeout(() => setState({ kind: 'idle' }), CONFIRM_MS);
    return () => clearTimeout(t);
  }, [state]);

  const onClick = async () => {
    if (!store) return;
    // Read at click time: the summary is of the state now, not of the last render.
    const s = store.getState();
    const loops = s.loopNames.map((n) => s.loops[n]).filter((l): l is LoopState => !!l);
    const markdown = reviewMarkdown(
      { hosts: s.hosts, loops, findings: s.findings, backlog: s.backlog, tasks: s.tasks, prs: s.prs, drillRuns: s.drillRuns, drills: s.drills, capacity: s.capacity, lastReviewedAt: s.lastReviewedAt, contract: s.contract, desk: s.desk },
      { now: Date.now(), since },
    );
    try {
      // Absent outside a secure context (serve mode reached over plain HTTP from another machine).
      if (!navigator.clipboard) throw new Error('the clipboard is only available on https:// or localhost');
      await navigator.clipboard.writeText(markdown);
      setState({ kind: 'copied' });
    } catch (err) {
      setState({ kind: 'error', message: messageOf(err) });
    }
  };

  return (
    <div className="rv-mark">
      <button type="button" data-testid="copy-markdown" disabled={!ready} title="The summary since the window start, as Markdown to paste" onClick={() => void onClick()}>
        Copy as Markdown
      </button>
      <span role="status" className="muted small" data-testid="copy-markdown-status">
        {state.kind === 'copied' ? 'Copied' : ''}
      </span>
      {state.kind === 'error' ? (
        <p className="error-text small" role="alert" data-testid="copy-markdown-error">
          Could not copy to the clipboard: {state.message}
        </p>
      ) : null}
    </div>
  );
}
