import type { Store } from '../store/store';

/** The store's meta keys of the review watermark and who set it. */
const REVIEW_KEY = 'lastReviewedAt';
const REVIEWER_KEY = 'lastReviewedBy';

/** The review watermark as the snapshot and `notices.changed` carry it. */
export interface Reviewed {
  readonly lastReviewedAt: string | null;
  readonly lastReviewedBy: string | null;
}

/**
 * When the operator last marked the Review done, and who: what is new on the Review, and in
 * `loopdeck review`, is what came after it. Kept in the store, so it holds across restarts.
 */
export class ReviewMark {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** When the review was last marked done, or null if never. */
  get(): string | null {
    return this.store.getMeta(REVIEW_KEY);
  }

  /** The watermark and who set it. */
  reviewed(): Reviewed {
    return { lastReviewedAt: this.get(), lastReviewedBy: this.store.getMeta(REVIEWER_KEY) };
  }

  /** Mark the review done now, by `by`; returns when. */
  mark(by: string): string {
    const at = this.now().toISOString();
    this.store.setMeta(REVIEW_KEY, at);
    this.store.setMeta(REVIEWER_KEY, by);
    return at;
  }
}
