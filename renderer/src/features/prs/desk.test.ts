import { describe, expect, it } from 'vitest';
import type { DeskPr } from '../../../../shared/pr-desk';
import { deskPr } from '../../../../shared/desk-fixtures';
import { ageText, deskCounts, deskRowId, mergeableText, mergedText, overlapLinks, reviewText, shortSha, sizeText } from './desk';

const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

/** A desk PR that the console would merge; tests change what they need. */
const pr = (over: Partial<DeskPr> = {}): DeskPr => deskPr({ headSha: SHA, ...over });

describe('the merge desk helpers', () => {
  it('shows a head as its first 7 hex digits', () => {
    expect(shortSha(SHA)).toBe('a1b2c3d');
  });

  it('says the size with the lines and the files GitHub gave, and nothing it did not', () => {
    expect(sizeText(pr())).toBe('+120 −8 · 3 files');
    expect(sizeText(pr({ changedFiles: 1 }))).toBe('+120 −8 · 1 file');
    expect(sizeText(pr({ additions: null, deletions: null }))).toBe('3 files');
    expect(sizeText(pr({ additions: null, deletions: null, changedFiles: null }))).toBeNull();
  });

  it('says an age in minutes, hours, then days and hours', () => {
    expect(ageText(0.5)).toBe('30m');
    expect(ageText(5.9)).toBe('5h');
    expect(ageText(47)).toBe('47h');
    expect(ageText(50)).toBe('2d 2h');
    expect(ageText(72)).toBe('3d');
  });

  it('gives each card an anchor by repository and number, safe as an id', () => {
    expect(deskRowId(pr())).toBe('desk-pr-acme-radon-90');
    expect(deskRowId(pr({ repo: 'acme/other.repo' }))).toBe('desk-pr-acme-other-repo-90');
  });

  it('links an overlap to the card of the PR it names in the same repository only', () => {
    const desk = [pr({ number: 90, overlaps: [91, 95] }), pr({ number: 91, overlaps: [90] }), pr({ repo: 'acme/other', number: 95 })];
    expect(overlapLinks(desk[0] as DeskPr, desk)).toEqual([
      { number: 91, rowId: 'desk-pr-acme-radon-91' },
      { number: 95, rowId: null },
    ]);
  });

  it("says GitHub's mergeable state and the review decision with a tone", () => {
    expect(mergeableText('clean')).toEqual({ text: 'mergeable (clean)', tone: 'ok' });
    expect(mergeableText('dirty').tone).toBe('bad');
    expect(mergeableText(null).text).toBe('mergeable: not known yet');
    expect(mergeableText('weird').text).toBe('mergeable state: weird');
    expect(reviewText('changes-requested')).toEqual({ text: 'changes requested', tone: 'bad' });
    expect(reviewText(null).tone).toBe('muted');
  });

  it('says a console merge with who, when, the short sha and the method', () => {
    expect(mergedText({ by: 'olive', at: '2026-12-06T04:50:00Z', sha: SHA, method: 'squash' }, (iso) => `<${iso}>`)).toBe('merged by olive at <2026-12-06T04:50:00Z> (a1b2c3d, squash)');
  });

  it('counts the open PRs, those without a merge blocker, and those marked', () => {
    const desk = [
      pr({ number: 1 }),
      pr({ number: 2, checks: [{ name: 'suite', state: 'failing', url: null }], redAfterReady: true }),
      pr({ number: 3, stale: true, next: [{ text: 'rotate', doneBy: null, doneAt: null }] }),
      pr({ number: 4, state: 'merged', stale: true }),
    ];
    expect(deskCounts(desk)).toEqual({ open: 3, mergeable: 1, marked: 2 });
  });
});
