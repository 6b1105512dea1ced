import { describe, expect, it } from 'vitest';
import { Store } from '../store/store';
import { ReviewMark } from './review-mark';

describe('the review watermark', () => {
  it('is null until marked, then when it was marked and by whom, across a reopen of the store', () => {
    const store = Store.open(':memory:');
    let now = new Date('2026-11-30T12:00:00.000Z');
    const mark = new ReviewMark(store, () => now);
    expect(mark.reviewed()).toEqual({ lastReviewedAt: null, lastReviewedBy: null });
    expect(mark.mark('alice')).toBe('2026-11-30T12:00:00.000Z');
    now = new Date('2026-11-30T13:00:00.000Z');
    expect(new ReviewMark(store, () => now).reviewed()).toEqual({ lastReviewedAt: '2026-11-30T12:00:00.000Z', lastReviewedBy: 'alice' });
  });
});
