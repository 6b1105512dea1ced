import { NOTICE_LIST_LIMIT, type Notice } from '../../../shared/domain';
import type { Store } from '../store/store';
import type { NoticeDraft } from './notice-draft';
import { emergencyTiming, inQuietHours, type NotifyConfig } from './notify-config';
import { toNotice, type NoticeRow } from './schema';
import { NoticeRows } from './notice-rows';
import { log } from '../logging/log';
import { messageOf } from '../../../shared/errors';
import type { MaintenanceMark } from '../../../shared/maintenance';

/** How a notice reaches a person: a desktop notification, a renderer toast, Pushover. */
export interface NoticeSink {
  /**
   * Show the notice. `repeat`: an emergency repeating, or a snooze ending. `quiet`: list it without
   * an alert (quiet hours, or priority −1); the sink decides what that means for it.
   */
  deliver(notice: Notice, opts: { repeat: boolean; quiet: boolean }): Promise<void> | void;
  /** The notice was acknowledged or snoozed here: stop anything the sink repeats on its own. */
  withdraw?(notice: Notice): Promise<void> | void;
  /** Periodic work (owed sends, receipt polls); returns acknowledgements made on the sink's side. */
  tick?(): Promise<readonly RemoteAck[]>;
}

/** An acknowledgement made outside Loopdeck (on the phone, through Pushover). */
export interface RemoteAck {
  readonly key: string;
  readonly acknowledgedAt: string;
  /** Who, as the sink can say it (`Pushover`). */
  readonly by: string;
}

/** How the notice service is made. */
export interface NoticeServiceOptions {
  readonly store: Store;
  readonly notify: NotifyConfig;
  readonly now?: () => Date;
  readonly sinks: readonly NoticeSink[];
  /** Called after the stored notices changed (raised, acknowledged, snoozed). */
  readonly onChange?: (changed: readonly Notice[]) => void;
  readonly log?: (message: string) => void;
  /** The maintenance window a notice's source (`loop:<name>`, ...) is in at a moment, or null: inside one a notice is held, not delivered. */
  readonly silence?: (source: string, now: Date) => MaintenanceMark | null;
}

/** What to do with a held notice once its window ended: deliver it (its condition still holds) or not (it cleared). */
export type HeldVerdict = 'deliver' | 'clear';


/** Notices shown in the list: the newest this many (unacknowledged ones are never that old). */
const LIST_LIMIT = NOTICE_LIST_LIMIT;


/**
 * Raises each notice once per stable key (the key is the SQLite primary key, so "once" holds across
 * restarts and re-read ledgers), hands it to the sinks at the right urgency, repeats emergencies
 * until acknowledged or expired, and keeps acknowledgements, snoozes and the review watermark.
 */
export class NoticeService {
  private readonly store: Store;
  private readonly notices: NoticeRows;
  private readonly notify: NotifyConfig;
  private readonly now: () => Date;
  private readonly sinks: readonly NoticeSink[];
  private readonly onChange: (changed: readonly Notice[]) => void;
  private readonly log: (message: string) => void;
  private readonly silence: (source: string, now: Date) => MaintenanceMark | null;
  /** The earliest end of a window holding a notice (ISO), '' when none is; undefined until asked. */
  private heldEnd: string | undefined;

  constructor(opts: NoticeServiceOptions) {
    this.store = opts.store;
    this.notices = new NoticeRows(opts.store);
    this.notify = opts.notify;
    this.now = opts.now ?? (() => new Date());
    this.sinks = opts.sinks;
    this.onChange = opts.onChange ?? (() => undefined);
    this.log = opts.log ?? ((m) => log.error(`notices: ${m}`));
    this.silence = opts.silence ?? (() => null);
  }

  /**
   * Store and deliver the drafts not seen before; returns the newly raised notices. `seed`: the
   * first start's listing of what it found, stored as history: never delivered nor repeated.
   */
  update(drafts: readonly NoticeDraft[], options: { seed?: boolean } = {}): Notice[] {
    const now = this.now();
    const createdAt = now.toISOString();
    const db = this.store.sql;
    const seeded = options.seed === true;
    const raised = db.transaction(() => {
      const out: Notice[] = [];
      for (const d of drafts) {
        if (d.requires !== undefined && !this.notices.exists(d.requires)) continue;
        // Inside a maintenance window in its scope: recorded, shown as held, handed to no sink (see release).
        const mark = seeded ? null : this.silence(d.source, now);
        const fresh = mark ? this.notices.insertHeld(d, createdAt, mark.reason, mark.until) : this.notices.insert(d, createdAt, seeded);
        if (!fresh) continue;
        if (mark) this.heldUntil(mark.until);
        out.push({
          key: d.key, priority: d.priority, source: d.source, title: d.title, message: d.message, url: d.url, urlTitle: d.urlTitle, createdAt, acknowledgedAt: null, acknowledgedBy: null, snoozedUntil: null, snoozedBy: null,
          ...(mark ? { silenced: { ...mark, state: 'held' as const } } : {}),
        });
      }
      return out;
    })();
    for (const n of raised) {
      if (n.silenced) continue;
      try {
        this.send(n, false);
      } catch (err) {
        // Stored, but its send could not be recorded (a full disk): the tick sends it later.
        if (this.store.noteFailure(err, 'recording a notice sent') === null) throw err;
      }
    }
    if (raised.length > 0) this.onChange(raised);
    return raised;
  }

  /** The stored notices, newest first. */
  list(): Notice[] {
    return this.notices.newest(LIST_LIMIT).map(toNotice);
  }

  /** Acknowledge a notice for `by` (stops its repeats); returns when. Acknowledging twice keeps the first time and who. */
  acknowledge(key: string, by: string): string {
    return this.ack(key, this.now().toISOString(), by);
  }

  /** Snooze a notice for `minutes`, by `by`: no re-delivery until then, when it is delivered once more. */
  snooze(key: string, minutes: number, by: string): string {
    const row = this.row(key);
    const until = new Date(this.now().getTime() + minutes * 60_000).toISOString();
    this.notices.snooze(key, until, by);
    const snoozed = { ...toNotice(row), snoozedUntil: until, snoozedBy: by };
    this.withdraw(snoozed);
    this.onChange([snoozed]);
    return until;
  }

  /**
   * Periodic work, every few seconds: repeat due emergencies, remind snoozed notices whose snooze
   * ended, deliver any notice stored but never handed to the sinks (a crash between the two), and
   * let the sinks retry owed sends and poll for acknowledgements made on their side. A sink's
   * failure is logged; a failed write of its own (a full disk) rejects, and what it did not do is
   * still due at the next tick: a notice is handed to the sinks only once its send is recorded.
   */
  async tick(): Promise<void> {
    const now = this.now();
    const nowIso = now.toISOString();
    const { retryMs, expireMs } = emergencyTiming(this.notify);
    // Only the rows with work to do now, picked by SQL: a year of P0 findings is thousands of
    // emergencies, nearly all expired or not yet due, and this runs every few seconds all day.
    // (ISO times of one format compare as text.)
    const expiredBefore = new Date(now.getTime() - expireMs).toISOString();
    const dueBefore = new Date(now.getTime() - retryMs).toISOString();
    // Three disjoint kinds, each through its partial index (migration 10): snoozes that ended,
    // notices never handed to the sinks, emergencies not expired and due again.
    const rows = [...this.notices.snoozesEnded(nowIso), ...this.notices.neverSent(), ...this.notices.emergenciesDue(expiredBefore, dueBefore)];
    const changed: Notice[] = [];
    for (const r of rows) {
      // Inside a maintenance window in its scope now: a reminder or an owed first send is held
      // until the window ends (release), an emergency's repeat waits (it is due again after it).
      const mark = this.silence(r.source, now);
      if (r.snoozed_until !== null) {
        if (r.snoozed_until > nowIso) continue;
        this.notices.unsnooze(r.key);
        const live = r.priority < 2 || now.getTime() < Date.parse(r.created_at) + expireMs;
        if (live && mark) {
          changed.push(this.hold(r, mark));
          continue;
        }
        changed.push(toNotice({ ...r, snoozed_until: null }));
        if (live) this.send(toNotice({ ...r, snoozed_until: null }), true);
        continue;
      }
      if (r.sends === 0) {
        if (mark) changed.push(this.hold(r, mark));
        else this.send(toNotice(r), false);
        continue;
      }
      const expired = now.getTime() >= Date.parse(r.created_at) + expireMs;
      const due = r.last_sent_at === null || now.getTime() >= Date.parse(r.last_sent_at) + retryMs;
      if (r.priority === 2 && !expired && due && !mark) this.send(toNotice(r), true);
    }
    for (const sink of this.sinks) {
      if (!sink.tick) continue;
      try {
        for (const a of await sink.tick()) {
          if (this.notices.acknowledgedAt(a.key) === null) this.ack(a.key, a.acknowledgedAt, a.by);
        }
      } catch (err) {
        // A full disk is the data folder's problem, said once there, not every few seconds here.
        if (this.store.noteFailure(err, "a notice sink's tick") === null) this.log(`a notice sink's tick failed: ${messageOf(err)}`);
      }
    }
    if (changed.length > 0) this.onChange(changed);
  }

  /** Whether a window holding a notice has ended by `now` (cheap: the earliest end is kept in memory). */
  releaseDue(now: Date = this.now()): boolean {
    this.heldEnd ??= this.notices.nextHeldEnd() ?? '';
    return this.heldEnd !== '' && this.heldEnd <= now.toISOString();
  }

  /**
   * The held notices whose window ended: each is delivered once if `judge` says its condition
   * still holds, else marked cleared (one acknowledged meanwhile is marked so); one whose source a
   * following window covers stays held until that one ends. What became of each, and the send of
   * the delivered, are recorded in one transaction before any sink has them, so a restart neither
   * loses one nor delivers one twice. Returns the notices delivered.
   */
  release(judge: (row: NoticeRow) => HeldVerdict): Notice[] {
    const now = this.now();
    const nowIso = now.toISOString();
    const changed: Notice[] = [];
    const deliver: Notice[] = [];
    this.store.sql.transaction(() => {
      for (const r of this.notices.heldDue(nowIso)) {
        const next = this.silence(r.source, now);
        if (next && next.until > nowIso) {
          changed.push(this.hold(r, next));
          continue;
        }
        const state = r.acknowledged_at !== null ? 'acknowledged' : judge(r) === 'deliver' ? 'delivered' : 'cleared';
        this.notices.settle(r.key, state);
        // A delivered notice still snoozed is delivered when its snooze ends (the tick's reminder),
        // not now; any other snooze is over: one not delivered must not be reminded of later.
        const snoozed = state === 'delivered' && r.snoozed_until !== null && r.snoozed_until > nowIso;
        if (r.snoozed_until !== null && !snoozed) this.notices.unsnooze(r.key);
        const settled = toNotice({ ...r, silence_state: state, snoozed_until: snoozed ? r.snoozed_until : null });
        changed.push(settled);
        if (state !== 'delivered' || snoozed || r.priority === -2) continue;
        this.notices.sent(r.key, nowIso);
        deliver.push(settled);
      }
    })();
    this.heldEnd = undefined;
    for (const n of deliver) this.handOut(n, false);
    if (changed.length > 0) this.onChange(changed);
    return deliver;
  }

  /**
   * The windows changed (one added or ended in the console): each held notice is held until the
   * end of the window that covers its source now, or is due for release now when none does (the
   * next tick delivers it once if its condition still holds).
   */
  rescheduleHeld(): void {
    const now = this.now();
    const nowIso = now.toISOString();
    const changed: Notice[] = [];
    for (const r of this.notices.held()) {
      const mark = this.silence(r.source, now);
      const until = mark?.until ?? nowIso;
      if (until === r.silenced_until && (mark?.reason ?? r.silenced_reason) === r.silenced_reason) continue;
      changed.push(this.hold(r, { reason: mark?.reason ?? r.silenced_reason ?? '', until }));
    }
    this.heldEnd = undefined;
    if (changed.length > 0) this.onChange(changed);
  }

  /** Hold a stored notice until `mark`'s window ends; returns it as held. */
  private hold(r: NoticeRow, mark: MaintenanceMark): Notice {
    this.notices.hold(r.key, mark.reason, mark.until);
    this.heldUntil(mark.until);
    return toNotice({ ...r, snoozed_until: r.snoozed_until !== null && r.snoozed_until > this.now().toISOString() ? r.snoozed_until : null, silenced_reason: mark.reason, silenced_until: mark.until, silence_state: 'held' });
  }

  /** Keep the earliest end of a holding window in memory. */
  private heldUntil(until: string): void {
    if (this.heldEnd === undefined) return;
    if (this.heldEnd === '' || until < this.heldEnd) this.heldEnd = until;
  }

  private ack(key: string, at: string, by: string): string {
    const row = this.row(key);
    if (row.acknowledged_at !== null) return row.acknowledged_at;
    this.notices.acknowledge(key, at, by);
    const acked = { ...toNotice(row), acknowledgedAt: at, acknowledgedBy: by };
    this.withdraw(acked);
    this.onChange([acked]);
    return at;
  }

  private row(key: string): NoticeRow {
    const row = this.notices.byKey(key);
    if (!row) throw new Error(`No notice with key ${JSON.stringify(key)}: it may have been raised by another Loopdeck data folder; refresh the list.`);
    return row;
  }

  /**
   * Hand a notice to every sink (never for −2), the send recorded first: a send that cannot be
   * recorded (a full disk) throws before any sink has it, and the tick that finds it unsent (or
   * its repeat due) sends it then, once, instead of every tick while the disk stays full.
   */
  private send(n: Notice, repeat: boolean): void {
    if (n.priority === -2) return;
    this.notices.sent(n.key, this.now().toISOString());
    this.handOut(n, repeat);
  }

  /** Hand a notice whose send is recorded to every sink. */
  private handOut(n: Notice, repeat: boolean): void {
    const quiet = n.priority === -1 || (n.priority <= 0 && inQuietHours(this.notify.quietHours, this.now()));
    for (const sink of this.sinks) {
      this.guard(() => sink.deliver(n, { repeat, quiet }));
    }
  }

  private withdraw(n: Notice): void {
    for (const sink of this.sinks) {
      if (sink.withdraw) this.guard(() => sink.withdraw?.(n));
    }
  }

  private guard(fn: () => Promise<void> | void): void {
    const fail = (err: unknown): void => {
      if (this.store.noteFailure(err, 'a notice sink') === null) this.log(`a notice sink failed: ${messageOf(err)}`);
    };
    try {
      const r = fn();
      if (r) r.catch(fail);
    } catch (err) {
      fail(err);
    }
  }
}
