import { randomBytes } from 'node:crypto';
import { pageOf, type LedgerPage, type LedgerRows } from '../../../shared/ledger-slice';

/** How long a cursor lives after its last page was asked for. */
export const CURSOR_TTL_MS = 60_000;
/** Cursors kept at once (every client loading at the same time); the least recently used goes first. */
export const MAX_CURSORS = 16;

interface Cursor {
  readonly rows: LedgerRows;
  usedAt: number;
}

/**
 * Frozen copies of the ledgers' row lists for `ledgers.page`. A copy holds the lists as they were
 * when it was opened (the snapshot's flat lists: references to the rows, which are never changed
 * in place): a client reads every page of one copy, then replays the `ledgers.changed` deltas it
 * received since it asked, and no row can be skipped or repeated by a change between two pages.
 */
export class LedgerCursors {
  private readonly cursors = new Map<string, Cursor>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** A page of the copy `cursor`, or of a new copy of `rows()` when `cursor` is null. */
  page(input: { cursor: string | null; offset: number; limit: number }, rows: () => LedgerRows): LedgerPage {
    const now = this.clock();
    this.expire(now);
    let id = input.cursor;
    let cursor: Cursor | undefined;
    if (id === null) {
      id = randomBytes(12).toString('base64url');
      cursor = { rows: rows(), usedAt: now };
      this.cursors.set(id, cursor);
      while (this.cursors.size > MAX_CURSORS) this.cursors.delete(this.cursors.keys().next().value as string);
    } else {
      cursor = this.cursors.get(id);
      if (!cursor) throw new Error(`the ledger cursor ${id} has expired (unused for ${CURSOR_TTL_MS / 1000} s, or too many clients loading); ask again with cursor null`);
      // Most recently used last, so the oldest is evicted first.
      this.cursors.delete(id);
      this.cursors.set(id, cursor);
      cursor.usedAt = now;
    }
    const page = pageOf(cursor.rows, id, input.offset, input.limit);
    // The last page read: the copy is no longer needed.
    if (page.next === null) this.cursors.delete(id);
    return page;
  }

  /** Cursors open now (tests). */
  get size(): number {
    return this.cursors.size;
  }

  private expire(now: number): void {
    for (const [id, c] of this.cursors) if (now - c.usedAt > CURSOR_TTL_MS) this.cursors.delete(id);
  }
}
