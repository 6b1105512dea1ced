import { mergeBlockers, type DeskCheck, type DeskMerge, type DeskPr } from '../../../../shared/pr-desk';

// Pure helpers of the merge desk's view (issue 44): what each part of a PR's card says, kept out
// of the components so they can be tested without a DOM.

/** The merge methods GitHub offers, in the order the confirmation lists them. */
export const MERGE_METHODS = ['merge', 'squash', 'rebase'] as const satisfies readonly DeskMerge['method'][];

/** A commit's short form, as GitHub shows it: its first 7 hex digits. */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** The DOM id (and `#` anchor) of a PR's card: loops and repositories can share numbers, so both are in it. */
export function deskRowId(pr: Pick<DeskPr, 'repo' | 'number'>): string {
  return `desk-pr-${pr.repo.replace(/[^A-Za-z0-9_-]/g, '-')}-${pr.number}`;
}

/** Its size: `+120 −8 · 3 files`, each part only when GitHub said it; null when it said none. */
export function sizeText(pr: Pick<DeskPr, 'additions' | 'deletions' | 'changedFiles'>): string | null {
  const lines = [pr.additions !== null ? `+${pr.additions}` : null, pr.deletions !== null ? `−${pr.deletions}` : null].filter((x) => x !== null).join(' ');
  const files = pr.changedFiles !== null ? `${pr.changedFiles} ${pr.changedFiles === 1 ? 'file' : 'files'}` : null;
  const parts = [lines || null, files].filter((x) => x !== null);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** An age in hours, compactly: `40m`, `5h`, `3d 4h`. */
export function ageText(hours: number): string {
  if (hours < 1) return `${Math.max(0, Math.round(hours * 60))}m`;
  if (hours < 48) return `${Math.floor(hours)}h`;
  const days = Math.floor(hours / 24);
  const rest = Math.floor(hours - days * 24);
  return rest > 0 ? `${days}d ${rest}h` : `${days}d`;
}

/** How a check's state shows: its glyph and badge class (the status colours of the rest of the console). */
export const CHECK_LOOK: Readonly<Record<DeskCheck['state'], { readonly glyph: string; readonly className: string }>> = {
  passing: { glyph: '✓', className: 'status-ok' },
  failing: { glyph: '✕', className: 'status-failed' },
  pending: { glyph: '◔', className: 'status-running' },
};

/** GitHub's `mergeable_state`, said for a person; `tone` says whether it lets the merge through. */
export function mergeableText(state: string | null): { readonly text: string; readonly tone: 'ok' | 'warn' | 'bad' | 'muted' } {
  switch (state) {
    case null:
      return { text: 'mergeable: not known yet', tone: 'muted' };
    case 'clean':
      return { text: 'mergeable (clean)', tone: 'ok' };
    case 'unstable':
      return { text: 'mergeable, checks not all green (unstable)', tone: 'warn' };
    case 'has_hooks':
      return { text: 'mergeable, with hooks (has_hooks)', tone: 'ok' };
    case 'behind':
      return { text: 'behind its base (behind)', tone: 'warn' };
    case 'blocked':
      return { text: 'blocked by branch protection (blocked)', tone: 'bad' };
    case 'dirty':
      return { text: 'merge conflicts (dirty)', tone: 'bad' };
    case 'draft':
      return { text: 'a draft (draft)', tone: 'warn' };
    case 'unknown':
      return { text: 'mergeable: GitHub is still computing (unknown)', tone: 'muted' };
    default:
      return { text: `mergeable state: ${state}`, tone: 'muted' };
  }
}

/** The review decision, said for a person. */
export function reviewText(decision: DeskPr['reviewDecision']): { readonly text: string; readonly tone: 'ok' | 'warn' | 'bad' | 'muted' } {
  if (decision === 'approved') return { text: 'approved', tone: 'ok' };
  if (decision === 'changes-requested') return { text: 'changes requested', tone: 'bad' };
  if (decision === 'review-required') return { text: 'no review yet', tone: 'warn' };
  return { text: 'review: not known', tone: 'muted' };
}

/** A console merge, said once: `merged by olive at 2026-12-06 04:50 (a1b2c3d, squash)`. */
export function mergedText(merge: DeskMerge, when: (iso: string) => string): string {
  return `merged by ${merge.by} at ${when(merge.at)} (${shortSha(merge.sha)}, ${merge.method})`;
}

/** An overlap resolved to the PR it names: the card to go to when it is on the desk (same repository), else none. */
export interface OverlapLink {
  readonly number: number;
  /** The anchor of its card, or null when that PR is not on the desk. */
  readonly rowId: string | null;
}

/** The overlaps of `pr` as links to the other PRs' cards (the overlaps are numbers in its own repository). */
export function overlapLinks(pr: Pick<DeskPr, 'repo' | 'overlaps'>, desk: readonly Pick<DeskPr, 'repo' | 'number'>[]): OverlapLink[] {
  return pr.overlaps.map((number) => {
    const other = desk.find((d) => d.repo === pr.repo && d.number === number);
    return { number, rowId: other ? deskRowId(other) : null };
  });
}

/** What the desk's header counts: open PRs, those the console would merge now (no blocker), and those marked. */
export function deskCounts(desk: readonly DeskPr[]): { readonly open: number; readonly mergeable: number; readonly marked: number } {
  const open = desk.filter((pr) => pr.state === 'open');
  return {
    open: open.length,
    mergeable: open.filter((pr) => mergeBlockers(pr).length === 0).length,
    marked: open.filter((pr) => pr.stale || pr.redAfterReady || pr.overlaps.length > 0 || pr.large || !!pr.uncertified).length,
  };
}
