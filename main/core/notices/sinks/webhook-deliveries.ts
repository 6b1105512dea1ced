import type { Store } from '../../store/store';
import type { NoticeRow } from '../schema';
import type { DeliveryRow, DeliveryState } from './webhook-schema';

/** A notice a webhook has no delivery row for. */
export type MissedNotice = Pick<NoticeRow, 'key' | 'created_at'>;

/**
 * The `webhook_deliveries` table: its SQL and row types, for the webhook sink. Declaring the
 * queries prepares nothing; the store prepares each once, on first use.
 */
export class WebhookDeliveries {
  private readonly q;

  constructor(store: Store) {
    this.q = {
      insert: store.query<[noticeKey: string, webhook: string, messageId: string, createdAt: string]>(
        "INSERT OR IGNORE INTO webhook_deliveries (notice_key, webhook, message_id, state, created_at) VALUES (?, ?, ?, 'pending', ?)",
      ),
      pendingCount: store.column<[webhook: string], number>("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook = ? AND state = 'pending'"),
      oldestPending: store.column<[webhook: string, limit: number], string>(
        "SELECT notice_key FROM webhook_deliveries WHERE webhook = ? AND state = 'pending' ORDER BY created_at, notice_key LIMIT ?",
      ),
      drop: store.query<[noticeKey: string, webhook: string]>("UPDATE webhook_deliveries SET state = 'dropped', last_error = 'queue full' WHERE notice_key = ? AND webhook = ?"),
      newest: store.column<[webhook: string], string | null>('SELECT MAX(created_at) FROM webhook_deliveries WHERE webhook = ?'),
      missed: store.query<[from: string, webhook: string], MissedNotice>(
        `SELECT key, created_at FROM notices n WHERE n.created_at > ? AND n.seeded = 0 AND n.sends > 0 AND n.priority > -2
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.notice_key = n.key AND d.webhook = ?) ORDER BY n.created_at`,
      ),
      next: store.query<[webhook: string], DeliveryRow>("SELECT * FROM webhook_deliveries WHERE webhook = ? AND state = 'pending' ORDER BY created_at, notice_key LIMIT 20"),
      attempted: store.query<[at: string, noticeKey: string, webhook: string]>(
        'UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ? WHERE notice_key = ? AND webhook = ?',
      ),
      failed: store.query<[why: string, noticeKey: string, webhook: string]>('UPDATE webhook_deliveries SET last_error = ? WHERE notice_key = ? AND webhook = ?'),
      settle: store.query<[state: DeliveryState, why: string | null, noticeKey: string, webhook: string]>(
        'UPDATE webhook_deliveries SET state = ?, last_error = ? WHERE notice_key = ? AND webhook = ?',
      ),
    };
  }

  /** Owe a notice to a webhook, pending (true when it was not owed yet). */
  insert(noticeKey: string, webhook: string, messageId: string, createdAt: string): boolean {
    return this.q.insert.run(noticeKey, webhook, messageId, createdAt).changes !== 0;
  }

  /** How many deliveries of a webhook are pending. */
  pendingCount(webhook: string): number {
    return this.q.pendingCount.get(webhook) ?? 0;
  }

  /** The notice keys of a webhook's `limit` oldest pending deliveries. */
  oldestPending(webhook: string, limit: number): string[] {
    return this.q.oldestPending.all(webhook, limit);
  }

  /** Drop a pending delivery (its queue is full). */
  drop(noticeKey: string, webhook: string): void {
    this.q.drop.run(noticeKey, webhook);
  }

  /** When the newest delivery of a webhook was created, or null. */
  newest(webhook: string): string | null {
    return this.q.newest.get(webhook) ?? null;
  }

  /** Notices sent after `from` that have no delivery row for the webhook, oldest first. */
  missed(from: string, webhook: string): MissedNotice[] {
    return this.q.missed.all(from, webhook);
  }

  /** A webhook's next pending deliveries (at most 20), oldest first. */
  next(webhook: string): DeliveryRow[] {
    return this.q.next.all(webhook);
  }

  /** Count an attempt at a delivery. */
  attempted(row: DeliveryRow, at: string): void {
    this.q.attempted.run(at, row.notice_key, row.webhook);
  }

  /** Note why an attempt at a delivery failed. */
  failed(row: DeliveryRow, why: string): void {
    this.q.failed.run(why, row.notice_key, row.webhook);
  }

  /** A delivery's final state. */
  settle(row: DeliveryRow, state: DeliveryState, why: string | null): void {
    this.q.settle.run(state, why, row.notice_key, row.webhook);
  }
}
