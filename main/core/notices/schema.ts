import type { Notice, NoticePriority } from '../../../shared/domain';

/**
 * Migration 6: notices, one row per stable key, so nothing is raised twice across restarts.
 * `last_sent_at`/`sends` drive emergency repeats (and re-deliver a notice stored but never handed
 * to the sinks, after a crash); the `pushover_*` columns belong to the Pushover sink: a send still
 * owed after a failure ('alert' | 'quiet'), the emergency receipt, its state ('open' |
 * 'acknowledged' | 'expired' | 'cancelled') and the last error Pushover or the network gave.
 */
export const NOTICES_MIGRATION = `
CREATE TABLE notices (
  key TEXT PRIMARY KEY,
  priority INTEGER NOT NULL,
  source TEXT NOT NULL,
  title TEXT NOT NULL,
  message TEXT NOT NULL,
  url TEXT,
  url_title TEXT,
  created_at TEXT NOT NULL,
  acknowledged_at TEXT,
  snoozed_until TEXT,
  last_sent_at TEXT,
  sends INTEGER NOT NULL DEFAULT 0,
  pushover_owed TEXT,
  pushover_receipt TEXT,
  pushover_receipt_state TEXT,
  pushover_error TEXT
);
CREATE INDEX notices_created ON notices (created_at);
`;

/** A row of `notices`, as SQLite returns it (`SELECT *`). */
export interface NoticeRow {
  key: string;
  priority: number;
  source: string;
  title: string;
  message: string;
  url: string | null;
  url_title: string | null;
  created_at: string;
  acknowledged_at: string | null;
  /** Who acknowledged it (migration 14): a user, or the sink it was acknowledged through. */
  acknowledged_by: string | null;
  snoozed_until: string | null;
  snoozed_by: string | null;
  last_sent_at: string | null;
  sends: number;
  pushover_owed: 'alert' | 'quiet' | null;
  pushover_receipt: string | null;
  pushover_receipt_state: 'open' | 'acknowledged' | 'expired' | 'cancelled' | 'gone' | null;
  pushover_error: string | null;
  /** The ntfy sink's (migration 19), as Pushover's: a send still owed, and the last error ntfy or the network gave. */
  ntfy_owed: 'alert' | 'quiet' | null;
  ntfy_error: string | null;
  /** 1 for a notice the first start listed as history (migration 9): never delivered nor repeated. */
  seeded: number;
  /** Raised inside a maintenance window (migration 20): its reason and end, and what became of it (NoticeSilence's states); NULL otherwise. */
  silenced_reason?: string | null;
  silenced_until?: string | null;
  silence_state?: 'held' | 'delivered' | 'cleared' | 'acknowledged' | null;
}

/** A stored notice as the contract spells it. */
export function toNotice(r: NoticeRow): Notice {
  return {
    key: r.key,
    priority: r.priority as NoticePriority,
    source: r.source,
    title: r.title,
    message: r.message,
    url: r.url,
    urlTitle: r.url_title,
    createdAt: r.created_at,
    acknowledgedAt: r.acknowledged_at,
    acknowledgedBy: r.acknowledged_by ?? null,
    snoozedUntil: r.snoozed_until,
    snoozedBy: r.snoozed_by ?? null,
    ...(r.silence_state ? { silenced: { reason: r.silenced_reason ?? '', until: r.silenced_until ?? '', state: r.silence_state } } : {}),
  };
}

/**
 * Migration 9: notices listed by the first start's seed (history, not news) are marked, so an
 * emergency among them is never repeated: it was never alerted in the first place.
 */
export const NOTICES_SEEDED_MIGRATION = `
  ALTER TABLE notices ADD COLUMN seeded INTEGER NOT NULL DEFAULT 0;
  `;

/**
 * Migration 10: the notices with periodic work to do, each kind reached through its own small
 * index: a year of P0 findings is tens of thousands of notices, and the tick runs every few seconds.
 */
export const NOTICES_PERIODIC_MIGRATION = `
  CREATE INDEX notices_unsent ON notices (key) WHERE sends = 0 AND acknowledged_at IS NULL;
  CREATE INDEX notices_snoozed ON notices (snoozed_until) WHERE snoozed_until IS NOT NULL AND acknowledged_at IS NULL;
  CREATE INDEX notices_emergency ON notices (created_at) WHERE priority = 2 AND acknowledged_at IS NULL AND seeded = 0;
  `;

/**
 * Migration 19: the ntfy sink's columns, as Pushover's: a send still owed after a failure ('alert'
 * | 'quiet') and the last error ntfy or the network gave. The owed ones through a small index:
 * each of the sink's ticks asks for them.
 */
export const NOTICES_NTFY_MIGRATION = `
  ALTER TABLE notices ADD COLUMN ntfy_owed TEXT;
  ALTER TABLE notices ADD COLUMN ntfy_error TEXT;
  CREATE INDEX notices_ntfy_owed ON notices (created_at) WHERE ntfy_owed IS NOT NULL;
  `;

/**
 * Migration 20: notices raised inside a maintenance window (the config's `maintenance:`) are held:
 * recorded, handed to no sink, and when the window ends delivered once if their condition still
 * holds, or marked cleared. The state is kept on the row, in the transaction that records the
 * send, so a restart neither loses a held notice nor delivers it twice. The held ones through a
 * small index: every derive asks when the next one is due.
 */
export const NOTICES_MAINTENANCE_MIGRATION = `
  ALTER TABLE notices ADD COLUMN silenced_reason TEXT;
  ALTER TABLE notices ADD COLUMN silenced_until TEXT;
  ALTER TABLE notices ADD COLUMN silence_state TEXT;
  CREATE INDEX notices_held ON notices (silenced_until) WHERE silence_state = 'held';
  `;
