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
  /** Sent on because nobody acknowledged it in time (migration 21): when, and the sinks' outcome (EscalationState, JSON); NULL otherwise. */
  escalated_at?: string | null;
  escalation?: string | null;
  /** 1 while a sink of its escalation failed and is to be tried again. */
  escalation_owed?: number;
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
    ...(r.escalated_at ? { escalated: escalatedOf(r.escalated_at, r.escalation ?? null) } : {}),
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

/** What an escalation keeps on its notice's row (`escalation`, JSON). */
export interface EscalationState {
  /** The sinks it is sent to (`escalate.to` when it began). */
  readonly to: readonly string[];
  /** `escalate.after` when it began (ms). */
  readonly afterMs: number;
  readonly sent: Readonly<Record<string, string>>;
  readonly failed: Readonly<Record<string, { readonly at: string; readonly error: string; readonly attempts: number }>>;
}

/** An escalation as the notice says it: when, after how long, to which sinks it went and which it has not reached. */
function escalatedOf(at: string, raw: string | null): NonNullable<Notice['escalated']> {
  let state: EscalationState | null;
  try {
    state = raw ? (JSON.parse(raw) as EscalationState) : null;
  } catch {
    state = null;
  }
  return { at, afterMs: state?.afterMs ?? 0, to: Object.keys(state?.sent ?? {}), failed: Object.keys(state?.failed ?? {}) };
}

/**
 * Migration 21: escalation (the config's `escalate:`): a priority 1–2 notice nobody acknowledged in
 * time is sent on to more sinks, once. When it began and what each sink did are kept on the row,
 * so a restart sends it on neither twice nor never. The candidates and the owed retries through
 * small indexes: the notices' tick asks for them every few seconds.
 */
export const NOTICES_ESCALATION_MIGRATION = `
  ALTER TABLE notices ADD COLUMN escalated_at TEXT;
  ALTER TABLE notices ADD COLUMN escalation TEXT;
  ALTER TABLE notices ADD COLUMN escalation_owed INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX notices_escalation_due ON notices (created_at) WHERE priority >= 1 AND acknowledged_at IS NULL AND seeded = 0 AND escalated_at IS NULL;
  CREATE INDEX notices_escalation_owed ON notices (escalated_at) WHERE escalation_owed = 1;
  `;
