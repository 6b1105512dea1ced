/**
 * Migration 14: one row per (notice, webhook), so each notice reaches each webhook at most once
 * across restarts. `webhook` is the target's identity (a hash of its format and URL, not the URL,
 * which may hold a token); `message_id` is the `webhook-id` every attempt carries. `state`:
 * 'pending' (recorded before the first attempt: owed, retried after a restart), 'delivered' (a 2xx
 * came back), 'rejected' (a 4xx other than 408/429, or a redirect: sending again would fail
 * again), 'expired' (still failing when it grew too old), 'dropped' (pushed out of the bounded queue).
 */
export const WEBHOOKS_MIGRATION = `
CREATE TABLE webhook_deliveries (
  notice_key TEXT NOT NULL,
  webhook TEXT NOT NULL,
  message_id TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_attempt_at TEXT,
  last_error TEXT,
  PRIMARY KEY (notice_key, webhook)
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook, created_at) WHERE state = 'pending';
`;

/** The states of a delivery row (see WEBHOOKS_MIGRATION). */
export type DeliveryState = 'pending' | 'delivered' | 'rejected' | 'expired' | 'dropped';

/** A row of `webhook_deliveries`, as SQLite returns it (`SELECT *`). */
export interface DeliveryRow {
  notice_key: string;
  webhook: string;
  message_id: string;
  state: DeliveryState;
  created_at: string;
  attempts: number;
  last_attempt_at: string | null;
  last_error: string | null;
}
