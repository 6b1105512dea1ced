import type { Store } from '../store/store';
import type { NoticeRow } from './schema';

/** A notice as the Alertmanager sink picks its candidates. */
export type NoticeCandidate = Pick<NoticeRow, 'key' | 'source' | 'created_at'>;

/**
 * The `notices` table: its SQL and row types, for the notice service and its sinks. Declaring the
 * queries prepares nothing; the store prepares each once, on first use.
 */
export class NoticeRows {
  private readonly q;

  constructor(store: Store) {
    this.q = {
      exists: store.column<[key: string], 1>('SELECT 1 FROM notices WHERE key = ?'),
      insert: store.query<[key: string, priority: number, source: string, title: string, message: string, url: string | null, urlTitle: string | null, createdAt: string]>(insertSql(false)),
      insertSeeded: store.query<[key: string, priority: number, source: string, title: string, message: string, url: string | null, urlTitle: string | null, createdAt: string]>(insertSql(true)),
      insertHeld: store.query<[key: string, priority: number, source: string, title: string, message: string, url: string | null, urlTitle: string | null, createdAt: string, reason: string, until: string]>(
        `INSERT OR IGNORE INTO notices (key, priority, source, title, message, url, url_title, created_at, seeded, silenced_reason, silenced_until, silence_state)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 'held')`,
      ),
      hold: store.query<[reason: string, until: string, key: string]>("UPDATE notices SET silenced_reason = ?, silenced_until = ?, silence_state = 'held' WHERE key = ?"),
      settle: store.query<[state: 'delivered' | 'cleared' | 'acknowledged', key: string]>('UPDATE notices SET silence_state = ? WHERE key = ?'),
      heldDue: store.query<[now: string], NoticeRow>("SELECT * FROM notices WHERE silence_state = 'held' AND silenced_until <= ? ORDER BY created_at, key"),
      held: store.query<[], NoticeRow>("SELECT * FROM notices WHERE silence_state = 'held' ORDER BY created_at, key"),
      nextHeldEnd: store.query<[], { until: string | null }>("SELECT MIN(silenced_until) AS until FROM notices WHERE silence_state = 'held'"),
      newest: store.query<[limit: number], NoticeRow>('SELECT * FROM notices ORDER BY created_at DESC, key LIMIT ?'),
      byKey: store.query<[key: string], NoticeRow>('SELECT * FROM notices WHERE key = ?'),
      acknowledgedAt: store.query<[key: string], { acknowledged_at: string | null }>('SELECT acknowledged_at FROM notices WHERE key = ?'),
      snooze: store.query<[until: string, by: string, key: string]>('UPDATE notices SET snoozed_until = ?, snoozed_by = ? WHERE key = ?'),
      unsnooze: store.query<[key: string]>('UPDATE notices SET snoozed_until = NULL WHERE key = ?'),
      acknowledge: store.query<[at: string, by: string, key: string]>('UPDATE notices SET acknowledged_at = ?, acknowledged_by = ? WHERE key = ?'),
      sent: store.query<[at: string, key: string]>('UPDATE notices SET last_sent_at = ?, sends = sends + 1 WHERE key = ?'),
      // A notice held by a maintenance window is neither reminded nor sent until the window ends
      // (NoticeService.release), nor ever one not delivered after it (cleared, acknowledged).
      snoozesEnded: store.query<[now: string], NoticeRow>(
        "SELECT * FROM notices WHERE snoozed_until IS NOT NULL AND acknowledged_at IS NULL AND snoozed_until <= ? AND priority > -2 AND (silence_state IS NULL OR silence_state = 'delivered')",
      ),
      neverSent: store.query<[], NoticeRow>(
        "SELECT * FROM notices WHERE sends = 0 AND acknowledged_at IS NULL AND seeded = 0 AND snoozed_until IS NULL AND priority > -2 AND (silence_state IS NULL OR silence_state = 'delivered')",
      ),
      emergenciesDue: store.query<[expiredBefore: string, dueBefore: string], NoticeRow>(
        `SELECT * FROM notices WHERE priority = 2 AND acknowledged_at IS NULL AND seeded = 0 AND created_at > ?
             AND snoozed_until IS NULL AND sends > 0 AND (last_sent_at IS NULL OR last_sent_at <= ?)`,
      ),
      pushoverOwed: store.column<[], string>('SELECT key FROM notices WHERE pushover_owed IS NOT NULL ORDER BY created_at'),
      pushoverOpen: store.query<[], NoticeRow>("SELECT * FROM notices WHERE pushover_receipt_state = 'open'"),
      ntfyOwed: store.column<[], string>('SELECT key FROM notices WHERE ntfy_owed IS NOT NULL ORDER BY created_at'),
      alertCandidates: store.query<[], NoticeCandidate>(
        // Held by a maintenance window, or not delivered after it: never an alert.
        "SELECT key, source, created_at FROM notices WHERE acknowledged_at IS NULL AND seeded = 0 AND priority >= 0 AND (silence_state IS NULL OR silence_state = 'delivered') ORDER BY created_at DESC, key",
      ),
    };
  }

  /** Whether a notice with this key is stored. */
  exists(key: string): boolean {
    return this.q.exists.get(key) !== undefined;
  }

  /** Store a notice unless its key is (true when it was new). `seeded`: the first start's history. */
  insert(n: { key: string; priority: number; source: string; title: string; message: string; url: string | null; urlTitle: string | null }, createdAt: string, seeded: boolean): boolean {
    const q = seeded ? this.q.insertSeeded : this.q.insert;
    return q.run(n.key, n.priority, n.source, n.title, n.message, n.url, n.urlTitle, createdAt).changes === 1;
  }

  /** Store a notice held by a maintenance window (`reason`, until `until`) unless its key is (true when it was new). */
  insertHeld(n: { key: string; priority: number; source: string; title: string; message: string; url: string | null; urlTitle: string | null }, createdAt: string, reason: string, until: string): boolean {
    return this.q.insertHeld.run(n.key, n.priority, n.source, n.title, n.message, n.url, n.urlTitle, createdAt, reason, until).changes === 1;
  }

  /** Hold a stored notice until a maintenance window ends (or hold it longer: a window that follows). */
  hold(key: string, reason: string, until: string): void {
    this.q.hold.run(reason, until, key);
  }

  /** What became of a held notice once its window ended. */
  settle(key: string, state: 'delivered' | 'cleared' | 'acknowledged'): void {
    this.q.settle.run(state, key);
  }

  /** Held notices whose window ended by `nowIso`, oldest first. */
  heldDue(nowIso: string): NoticeRow[] {
    return this.q.heldDue.all(nowIso);
  }

  /** The earliest end of a window holding a notice (ISO), or null when none is held. */
  /** Every notice a window holds now (few: those raised inside a window, until it ends). */
  held(): NoticeRow[] {
    return this.q.held.all();
  }

  nextHeldEnd(): string | null {
    return this.q.nextHeldEnd.get()?.until ?? null;
  }

  /** The newest `limit` notices, newest first. */
  newest(limit: number): NoticeRow[] {
    return this.q.newest.all(limit);
  }

  /** The notice with this key. */
  byKey(key: string): NoticeRow | undefined {
    return this.q.byKey.get(key);
  }

  /** When the notice with this key was acknowledged (null: not yet); undefined when there is none. */
  acknowledgedAt(key: string): string | null | undefined {
    return this.q.acknowledgedAt.get(key)?.acknowledged_at;
  }

  snooze(key: string, until: string, by: string): void {
    this.q.snooze.run(until, by, key);
  }

  unsnooze(key: string): void {
    this.q.unsnooze.run(key);
  }

  acknowledge(key: string, at: string, by: string): void {
    this.q.acknowledge.run(at, by, key);
  }

  /** Record a send (the first, or a repeat). */
  sent(key: string, at: string): void {
    this.q.sent.run(at, key);
  }

  /** Snoozed, unacknowledged notices whose snooze ended by `nowIso`. */
  snoozesEnded(nowIso: string): NoticeRow[] {
    return this.q.snoozesEnded.all(nowIso);
  }

  /** Notices stored but never handed to the sinks. */
  neverSent(): NoticeRow[] {
    return this.q.neverSent.all();
  }

  /** Unacknowledged emergencies created after `expiredBefore` last sent at or before `dueBefore`. */
  emergenciesDue(expiredBefore: string, dueBefore: string): NoticeRow[] {
    return this.q.emergenciesDue.all(expiredBefore, dueBefore);
  }

  /** Keys of the notices with a Pushover send owed, oldest first. */
  pushoverOwed(): string[] {
    return this.q.pushoverOwed.all();
  }

  /** Notices whose Pushover receipt is open. */
  pushoverOpen(): NoticeRow[] {
    return this.q.pushoverOpen.all();
  }

  /** Keys of the notices with an ntfy send owed, oldest first. */
  ntfyOwed(): string[] {
    return this.q.ntfyOwed.all();
  }

  /** Unacknowledged, unseeded notices of priority 0 and up, newest first (Alertmanager's candidates). */
  alertCandidates(): NoticeCandidate[] {
    return this.q.alertCandidates.all();
  }
}

/** The insert of a notice; `seeded` is part of the text (each variant prepared once). */
function insertSql(seeded: boolean): string {
  return `INSERT OR IGNORE INTO notices (key, priority, source, title, message, url, url_title, created_at, seeded)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${seeded ? 1 : 0})`;
}
