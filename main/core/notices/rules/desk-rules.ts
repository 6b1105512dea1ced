import type { NoticePriority } from '../../../../shared/domain';
import type { DeskPr } from '../../../../shared/pr-desk';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { humanDuration } from '../notice-text';

/**
 * The merge desk's notices: an open PR older than `prs.staleAfter` (`pr-stale`, once a PR), and a
 * PR whose checks went red after the loop's READY named it green (`pr-red-after-ready`, once a
 * head: a new push that goes red again is news again).
 */
export function deskDrafts(desk: readonly DeskPr[], prio: { stale: NoticePriority; red: NoticePriority }): NoticeDraft[] {
  const out: NoticeDraft[] = [];
  for (const pr of desk) {
    if (pr.state !== 'open') continue;
    const name = `${pr.repo}#${pr.number}`;
    if (pr.stale) {
      out.push(
        makeDraft({
          key: `pr-stale:${pr.loop}:${name}`,
          priority: prio.stale,
          source: `loop:${pr.loop}`,
          title: `${pr.loop}: PR #${pr.number} has waited ${humanDuration(pr.ageHours * 3_600_000)}`,
          message: `PR #${pr.number} (${pr.title}) of ${pr.loop} has been open since ${pr.openedAt}, past prs.staleAfter: merge it or close it.`,
          url: pr.url,
          urlTitle: `PR #${pr.number}`,
        }),
      );
    }
    if (pr.redAfterReady) {
      const red = pr.checks.filter((c) => c.state === 'failing').map((c) => c.name);
      out.push(
        makeDraft({
          key: `pr-red:${pr.loop}:${name}:${pr.headSha}`,
          priority: prio.red,
          source: `loop:${pr.loop}`,
          title: `${pr.loop}: PR #${pr.number} went red after READY`,
          message: `The loop said PR #${pr.number} (${pr.title}) was green and ready to merge; its checks now fail: ${red.join(', ')}. Do not merge it as it stands.`,
          url: pr.url,
          urlTitle: `PR #${pr.number}`,
        }),
      );
    }
  }
  return out;
}
