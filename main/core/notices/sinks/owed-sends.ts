import { backoffDelay, type BackoffPolicy } from '../../../../shared/backoff';
import { messageOf } from '../../../../shared/errors';
import type { Store } from '../../store/store';
import { NoticeRows } from '../notice-rows';
import type { NoticeRow } from '../schema';

/** How the recorded error of a send the service refused begins: it is not retried (it would be refused again). */
export const REJECTED = 'rejected: ';

/** Columns of a notice's row a push sink writes (its own: `pushover_*`, `ntfy_*`). */
export type SinkFields = Partial<Omit<NoticeRow, 'key'>>;

/** How a push sink's owed sends are kept. */
export interface OwedSendsOptions<F extends SinkFields> {
  readonly store: Store;
  /** The service, as messages name it: `Pushover`, `ntfy`. */
  readonly service: string;
  /** The column holding a send still owed (`pushover_owed`): written before each attempt, cleared by its answer. */
  readonly owedColumn: keyof F;
  /** Keys of the notices whose stored row owes a send, oldest first. */
  readonly storedOwed: () => string[];
  readonly now: () => Date;
  readonly log: (message: string) => void;
  readonly backoff: BackoffPolicy;
}

/**
 * The delivery guarantees the push sinks (Pushover, ntfy) share, written once. Every send is
 * recorded as owed in the notice's row before it is attempted, so a network failure or a restart
 * loses nothing: owed sends are retried at the sink's ticks once the shared backoff has passed.
 * The backoff steps once per round of failed sends (ten owed notices failing together are one
 * failure) and starts from its base again after a success. What a row should say but could not be
 * written (a full disk) is kept in memory, read over the row — so a message the service accepted
 * is not sent again every tick while the disk stays full — and written at the next tick that can.
 * A notice has one attempt in flight at a time.
 */
export class OwedSends<F extends SinkFields> {
  private readonly store: Store;
  private readonly notices: NoticeRows;
  private readonly opts: OwedSendsOptions<F>;
  /** Failed rounds of sends since the last success: the backoff's attempt. */
  private failures = 0;
  private retryAt = Number.NEGATIVE_INFINITY;
  private readonly inflight = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  /** What a notice's row should say but could not be written, by key. */
  private readonly unrecorded = new Map<string, F>();

  constructor(opts: OwedSendsOptions<F>) {
    this.opts = opts;
    this.store = opts.store;
    this.notices = new NoticeRows(opts.store);
  }

  /** A notice's row, with what could not be written yet over it. */
  row(key: string): NoticeRow | undefined {
    const row = this.notices.byKey(key);
    return row ? this.over(row) : undefined;
  }

  /** A row read by the sink itself, with what could not be written yet over it. */
  over<R extends NoticeRow>(row: R): R {
    const pending = this.unrecorded.get(row.key);
    return pending ? { ...row, ...pending } : row;
  }

  /**
   * Write fields of a notice's row (with any still unwritten). Never throws: what cannot be written
   * (a full disk: the data folder's problem) is kept in memory, read over the row, and written by
   * a later tick.
   */
  set(key: string, fields: F): void {
    const all: F = { ...this.unrecorded.get(key), ...fields };
    const names = Object.keys(all) as (keyof F & string)[];
    if (names.length === 0) return;
    try {
      const sql = `UPDATE notices SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE key = ?`;
      this.store.sql.prepare(sql).run(...names.map((n) => all[n] ?? null), key);
      this.unrecorded.delete(key);
    } catch (err) {
      this.unrecorded.set(key, all);
      if (this.store.noteFailure(err, `recording ${this.opts.service}'s answer for notice ${key}`) === null) {
        this.opts.log(`${this.opts.service}: could not record the state of notice ${key} (${messageOf(err)}); kept in memory and recorded later.`);
      }
    }
  }

  /** Write what earlier writes could not (the start of each tick). */
  recordUnrecorded(): void {
    for (const [key, fields] of [...this.unrecorded]) this.set(key, fields);
  }

  /** The notices owed a send, when the backoff lets owed sends be retried now (else none). */
  due(): string[] {
    if (this.opts.now().getTime() < this.retryAt) return [];
    const owedHere = [...this.unrecorded].filter(([, f]) => f[this.opts.owedColumn]).map(([key]) => key);
    return [...new Set([...this.opts.storedOwed(), ...owedHere])];
  }

  /** Run one attempt at a notice's send, unless one is in flight already. */
  async attempt(key: string, send: () => Promise<void>): Promise<void> {
    if (this.inflight.has(key)) return;
    this.inflight.add(key);
    try {
      await send();
    } finally {
      this.inflight.delete(key);
    }
  }

  /** The service answers again: owed sends go out on the next tick, and a later outage starts from the base wait. */
  succeeded(): void {
    this.failures = 0;
    this.retryAt = Number.NEGATIVE_INFINITY;
  }

  /** An attempt failed in a way worth retrying: one backoff step per round of sends, not per owed notice. */
  failed(): void {
    const now = this.opts.now().getTime();
    if (now >= this.retryAt) this.retryAt = now + backoffDelay(this.failures++, this.opts.backoff);
  }

  /** Keep a request until it ends, for flush. */
  async track(p: Promise<void>): Promise<void> {
    this.pending.add(p);
    try {
      await p;
    } finally {
      this.pending.delete(p);
    }
  }

  /** Wait for every request in flight (before closing the store, and in tests). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
