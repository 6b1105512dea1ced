import { describe, expect, it } from 'vitest';
import type { DeskPr } from '../../../../shared/pr-desk';
import { deskPr } from '../../../../shared/desk-fixtures';
import { deskDrafts } from './desk-rules';

const pr = (over: Partial<DeskPr>): DeskPr => deskPr({ number: 88, head: 'reliability/2026-11-29', headSha: 'a'.repeat(40), ...over });

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
