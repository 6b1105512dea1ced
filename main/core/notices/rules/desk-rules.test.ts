import { describe, expect, it } from 'vitest';
import type { DeskPr } from '../../../../shared/pr-desk';
import { deskDrafts } from './desk-rules';

const pr = (over: Partial<DeskPr>): DeskPr => ({
  loop: 'reliability', repo: 'acme/radon', number: 88, url: 'https://github.com/acme/radon/pull/88', state: 'open', title: 'REL-050: shrink the pool', author: 'loop-bot',
  head: 'reliability/2026-11-29', headSha: 'a'.repeat(40), base: 'main', additions: 1, deletions: 1, changedFiles: 1,
  checks: [{ name: 'suite', state: 'passing', url: null }], mergeable: 'clean', reviewDecision: null, cycle: '2026-11-29', ids: [],
  openedAt: '2026-11-29T05:00:00Z', ageHours: 10, stale: false, large: false, overlaps: [], redAfterReady: false, next: [], merged: null, problem: null, canWrite: true, ...over,
});

describe('the merge desk\'s notices', () => {
  it('pr-stale once a PR, past prs.staleAfter; pr-red-after-ready once a head, naming the red checks; nothing for a closed or fresh green PR', () => {
    const drafts = deskDrafts(
      [
        pr({ number: 70, stale: true, ageHours: 80 }),
        pr({ number: 88, redAfterReady: true, checks: [{ name: 'suite', state: 'failing', url: null }, { name: 'lint', state: 'passing', url: null }] }),
        pr({ number: 89 }),
        pr({ number: 60, state: 'merged', stale: true }),
      ],
      { stale: 0, red: 1 },
    );
    expect(drafts.map((d) => [d.key, d.priority])).toEqual([
      ['pr-stale:reliability:acme/radon#70', 0],
      [`pr-red:reliability:acme/radon#88:${'a'.repeat(40)}`, 1],
    ]);
    expect(drafts[0]?.title).toBe('reliability: PR #70 has waited 80 h');
    expect(drafts[1]?.message).toContain('its checks now fail: suite.');
  });
});
