import { backoffDelay } from '../../../../shared/backoff';
import type { Notice } from '../../../../shared/domain';
import type { Store } from '../../store/store';
import { NoticeRows } from '../notice-rows';
import type { NoticeSink, RemoteAck } from '../notice-service';
import { truncate } from '../notice-text';
import { emergencyTiming, type RemoteSinkOptions } from '../notify-config';
import type { NoticeRow } from '../schema';
import { log } from '../../logging/log';
import { messageOf } from '../../../../shared/errors';

/** Where Pushover's API lives unless `notify.pushover.baseUrl` says otherwise. */
export const PUSHOVER_BASE_URL = 'https://api.pushover.net';

/** How the Pushover sink is made. */
export interface PushoverSinkOptions extends RemoteSinkOptions {
  /** Least time between receipt polls; Pushover asks for no more than one every 5 s. */
  readonly pollMs?: number;
  /** After a failed send, owed sends wait this long before the next attempt, doubling while sends keep failing. */
  readonly backoffMs?: number;
  /** The longest wait between attempts during an outage (default 5 min). */
  readonly backoffMaxMs?: number;
  /** Uniform in [0, 1) for the backoff's jitter; tests pin it. */
  readonly random?: () => number;
}


/** The columns of a notice's row this sink writes. */
type RowFields = Partial<Pick<NoticeRow, 'pushover_owed' | 'pushover_receipt' | 'pushover_receipt_state' | 'pushover_error'>>;

interface ApiAnswer {
  status?: number;
  receipt?: string;
  errors?: unknown;
  acknowledged?: number;
  acknowledged_at?: number;
  expired?: number;
}

const REJECTED = 'rejected: ';

/**
 * Forwards notices to Pushover's messages API when `notify.pushover` has a user and a token.
 * Every send is first recorded as owed in the notice's row, so a network failure (or a restart)
 * loses nothing: owed sends are retried on later ticks. An emergency keeps its receipt; Pushover
 * itself repeats it, so this sink skips the service's repeats while the receipt is open, cancels
 * it when the notice is acknowledged or snoozed in Loopdeck, and polls it for an acknowledgement
 * made on the phone.
 */
export class PushoverSink implements NoticeSink {
  private readonly store: Store;
  private readonly notices: NoticeRows;
  private readonly cfg: { user: string; token: string; base: string } | null;
  private readonly timing: { retryMs: number; expireMs: number };
  private readonly now: () => Date;
  private readonly fetch: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly pollMs: number;
  private readonly backoff: { baseMs: number; maxMs: number; random: () => number };
  /** Failed rounds of sends since the last success: the backoff's attempt. */
  private failures = 0;
  private readonly inflight = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private lastPollAt = Number.NEGATIVE_INFINITY;
  private retryAt = Number.NEGATIVE_INFINITY;
  /**
   * What a notice's row should say but could not be written (a full disk), by key: read over the
   * row, so a message Pushover accepted is not sent again every tick while the disk stays full,
   * and written at the next tick that can.
   */
  private readonly unrecorded = new Map<string, RowFields>();

  constructor(opts: PushoverSinkOptions) {
    const p = opts.notify.pushover;
    this.cfg = p?.user && p.token ? { user: p.user, token: p.token, base: (p.baseUrl ?? PUSHOVER_BASE_URL).replace(/\/+$/, '') } : null;
    this.store = opts.store;
    this.notices = new NoticeRows(opts.store);
    this.timing = emergencyTiming(opts.notify);
    this.now = opts.now ?? (() => new Date());
    this.fetch = opts.fetch ?? fetch;
    this.log = opts.log ?? ((m) => log.error(m));
    this.pollMs = opts.pollMs ?? 10_000;
    this.backoff = { baseMs: opts.backoffMs ?? 15_000, maxMs: opts.backoffMaxMs ?? 300_000, random: opts.random ?? Math.random };
  }

  /** Whether Pushover is configured (otherwise every call is a no-op). */
  get enabled(): boolean {
    return this.cfg !== null;
  }

  /** Send the notice (quiet: as Pushover priority −1 at most); the service's emergency repeats are Pushover's job. */
  async deliver(notice: Notice, opts: { repeat: boolean; quiet: boolean }): Promise<void> {
    if (!this.cfg || notice.priority === -2) return;
    const row = this.row(notice.key);
    if (!row) return;
    if (opts.repeat && notice.priority === 2 && (row.pushover_receipt_state === 'open' || row.pushover_error?.startsWith(REJECTED))) return;
    this.set(notice.key, { pushover_owed: opts.quiet ? 'quiet' : 'alert' });
    await this.track(this.send(notice.key));
  }

  /** Wait for every request in flight (before closing the store, and in tests). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Stop Pushover repeating an emergency the operator acknowledged or snoozed in Loopdeck. */
  async withdraw(notice: Notice): Promise<void> {
    const row = this.cfg ? this.row(notice.key) : undefined;
    if (row?.pushover_receipt_state === 'open') await this.track(this.cancel(row));
  }

  /** Retry owed sends and cancels, and poll open receipts; returns acknowledgements made on the phone. */
  async tick(): Promise<RemoteAck[]> {
    if (!this.cfg) return [];
    const now = this.now();
    for (const [key, fields] of [...this.unrecorded]) this.set(key, fields);
    if (now.getTime() >= this.retryAt) {
      const stored = this.notices.pushoverOwed();
      const owed = new Set([...stored, ...[...this.unrecorded].filter(([, f]) => f.pushover_owed).map(([key]) => key)]);
      for (const key of owed) await this.send(key);
    }
    const acks: RemoteAck[] = [];
    const open = this.notices
      .pushoverOpen()
      .map((r) => ({ ...r, ...this.unrecorded.get(r.key) }))
      .filter((r) => r.pushover_receipt_state === 'open');
    const poll = now.getTime() - this.lastPollAt >= this.pollMs;
    if (poll) this.lastPollAt = now.getTime();
    for (const row of open) {
      const withdrawn = row.acknowledged_at !== null || (row.snoozed_until !== null && row.snoozed_until > now.toISOString());
      if (withdrawn) await this.cancel(row);
      else if (poll) {
        const ack = await this.poll(row);
        if (ack) acks.push(ack);
      }
    }
    return acks;
  }

  private async track(p: Promise<void>): Promise<void> {
    this.pending.add(p);
    try {
      await p;
    } finally {
      this.pending.delete(p);
    }
  }

  /** A notice's row, with what could not be written yet over it. */
  private row(key: string): NoticeRow | undefined {
    const row = this.notices.byKey(key);
    const pending = this.unrecorded.get(key);
    return row && pending ? { ...row, ...pending } : row;
  }

  /**
   * Write fields of a notice's row (with any still unwritten). Never throws: what cannot be written
   * (a full disk: the data folder's problem) is kept in memory, read over the row, and written by
   * a later tick.
   */
  private set(key: string, fields: RowFields): void {
    const all: RowFields = { ...this.unrecorded.get(key), ...fields };
    const names = Object.keys(all);
    if (names.length === 0) return;
    try {
      const sql = `UPDATE notices SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE key = ?`;
      this.store.sql.prepare(sql).run(...names.map((n) => all[n as keyof RowFields] ?? null), key);
      this.unrecorded.delete(key);
    } catch (err) {
      this.unrecorded.set(key, all);
      if (this.store.noteFailure(err, `recording Pushover's answer for notice ${key}`) === null) {
        this.log(`Pushover: could not record the state of notice ${key} (${messageOf(err)}); kept in memory and recorded later.`);
      }
    }
  }

  private form(row: NoticeRow): URLSearchParams {
    const cfg = this.cfg as NonNullable<PushoverSink['cfg']>;
    const priority = row.pushover_owed === 'quiet' ? Math.min(row.priority, -1) : row.priority;
    const form = new URLSearchParams({
      token: cfg.token,
      user: cfg.user,
      title: truncate(row.title, 250),
      message: truncate(row.message || row.title, 1024),
      priority: String(priority),
      timestamp: String(Math.floor(Date.parse(row.created_at) / 1000)),
    });
    if (row.url !== null && row.url.length <= 512) {
      form.set('url', row.url);
      if (row.url_title !== null) form.set('url_title', truncate(row.url_title, 100));
    }
    if (priority === 2) {
      form.set('retry', String(Math.max(30, Math.ceil(this.timing.retryMs / 1000))));
      form.set('expire', String(Math.min(10_800, Math.floor(this.timing.expireMs / 1000))));
    }
    return form;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: URLSearchParams): Promise<{ status: number; json: ApiAnswer | null }> {
    const cfg = this.cfg as NonNullable<PushoverSink['cfg']>;
    const res = await this.fetch(`${cfg.base}${path}`, { method, ...(body ? { body } : {}), signal: AbortSignal.timeout(15_000) });
    const json = (await res.json().catch(() => null)) as ApiAnswer | null;
    return { status: res.status, json };
  }

  private async send(key: string): Promise<void> {
    const row = this.row(key);
    if (!row || row.pushover_owed === null || this.inflight.has(key)) return;
    // Acknowledged while the send was owed: the operator already knows.
    if (row.acknowledged_at !== null) return this.set(key, { pushover_owed: null });
    this.inflight.add(key);
    const form = this.form(row);
    try {
      const { status, json } = await this.call('POST', '/1/messages.json', form);
      if (status >= 200 && status < 300 && json?.status === 1) {
        const emergency = form.get('priority') === '2' && typeof json.receipt === 'string';
        // Pushover answers again: owed sends go out on the next tick, and a later outage starts from the base.
        this.failures = 0;
        this.retryAt = Number.NEGATIVE_INFINITY;
        this.set(key, {
          pushover_owed: null,
          pushover_error: null,
          ...(emergency ? { pushover_receipt: json.receipt, pushover_receipt_state: 'open' as const } : {}),
        });
      } else if (status >= 400 && status < 500 && status !== 429) {
        // Pushover refused this request; sending it again would be refused again.
        const why = Array.isArray(json?.errors) ? json.errors.join('; ') : `HTTP ${status}`;
        this.set(key, { pushover_owed: null, pushover_error: `${REJECTED}${why}` });
        this.log(`Pushover rejected notice ${key} (HTTP ${status}): ${why}. Check notify.pushover.user and notify.pushover.token in the config.`);
      } else {
        this.failed(key, `HTTP ${status}`);
      }
    } catch (err) {
      this.failed(key, messageOf(err));
    } finally {
      this.inflight.delete(key);
    }
  }

  private failed(key: string, why: string): void {
    this.set(key, { pushover_error: why });
    // One step per round of sends, not per owed notice: ten owed notices failing together are one failure.
    const now = this.now().getTime();
    if (now >= this.retryAt) this.retryAt = now + backoffDelay(this.failures++, this.backoff);
    this.log(`Pushover send of notice ${key} failed (${why}); it stays owed and is retried.`);
  }

  private async cancel(row: NoticeRow): Promise<void> {
    const cfg = this.cfg as NonNullable<PushoverSink['cfg']>;
    try {
      const { json } = await this.call('POST', `/1/receipts/${encodeURIComponent(row.pushover_receipt ?? '')}/cancel.json`, new URLSearchParams({ token: cfg.token }));
      if (json?.status === 1) this.set(row.key, { pushover_receipt_state: 'cancelled' });
      else this.log(`Pushover did not cancel the emergency for notice ${row.key}; retrying on the next tick.`);
    } catch (err) {
      this.log(`Pushover cancel for notice ${row.key} failed (${messageOf(err)}); retrying on the next tick.`);
    }
  }

  private async poll(row: NoticeRow): Promise<RemoteAck | null> {
    const cfg = this.cfg as NonNullable<PushoverSink['cfg']>;
    try {
      const path = `/1/receipts/${encodeURIComponent(row.pushover_receipt ?? '')}.json?token=${encodeURIComponent(cfg.token)}`;
      const { status, json } = await this.call('GET', path);
      if (json?.status === 1 && json.acknowledged === 1) {
        this.set(row.key, { pushover_receipt_state: 'acknowledged' });
        const at = typeof json.acknowledged_at === 'number' && json.acknowledged_at > 0 ? json.acknowledged_at * 1000 : this.now().getTime();
        return { key: row.key, acknowledgedAt: new Date(at).toISOString(), by: 'Pushover' };
      }
      if (json?.status === 1 && json.expired === 1) this.set(row.key, { pushover_receipt_state: 'expired' });
      else if (status >= 400 && status < 500 && status !== 429) {
        this.set(row.key, { pushover_receipt_state: 'gone', pushover_error: `${REJECTED}receipt poll HTTP ${status}` });
        this.log(`Pushover does not know the receipt of notice ${row.key} (HTTP ${status}); no longer polling it.`);
      }
    } catch (err) {
      this.log(`Pushover receipt poll for notice ${row.key} failed (${messageOf(err)}); retrying later.`);
    }
    return null;
  }
}
