import type { Store } from '../store/store';

/** The store's meta key of the review watermark. */
const REVIEW_KEY = 'lastReviewedAt';

/**
 * When the operator last marked the Review done: what is new on the Review, and in `loopdeck
 * review`, is what came after it. Kept in the store, so it holds across restarts.
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

  /** Mark the review done now; returns when. */
  mark(): string {
    const at = this.now().toISOString();
    this.store.setMeta(REVIEW_KEY, at);
    return at;
  }
}
