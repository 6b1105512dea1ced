import type { Notice } from '../../../../shared/domain';
import { NoticeRows } from '../notice-rows';
import type { NoticeSink, RemoteAck } from '../notice-service';
import { truncate, URL_MAX } from '../notice-text';
import { emergencyTiming, type RemoteSinkOptions } from '../notify-config';
import type { NoticeRow } from '../schema';
import { log } from '../../logging/log';
import { messageOf } from '../../../../shared/errors';
import { OwedSends, REJECTED } from './owed-sends';

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

/**
 * Forwards notices to Pushover's messages API when `notify.pushover` has a user and a token.
 * Every send is first recorded as owed in the notice's row, so a network failure (or a restart)
 * loses nothing: owed sends are retried on later ticks. An emergency keeps its receipt; Pushover
 * itself repeats it, so this sink skips the service's repeats while the receipt is open, cancels
 * it when the notice is acknowledged or snoozed in Loopdeck, and polls it for an acknowledgement
 * made on the phone. The owed sends, their retries and backoff are the push sinks' shared ones
 * (owed-sends.ts).
 */
export class PushoverSink implements NoticeSink {
  private readonly notices: NoticeRows;
  private readonly cfg: { user: string; token: string; base: string } | null;
  private readonly timing: { retryMs: number; expireMs: number };
  private readonly now: () => Date;
  private readonly fetch: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly pollMs: number;
  /** Owed sends, their backoff, and what a full disk kept from the rows. */
  private readonly sends: OwedSends<RowFields>;
  private lastPollAt = Number.NEGATIVE_INFINITY;

  constructor(opts: PushoverSinkOptions) {
    const p = opts.notify.pushover;
    this.cfg = p?.user && p.token ? { user: p.user, token: p.token, base: (p.baseUrl ?? PUSHOVER_BASE_URL).replace(/\/+$/, '') } : null;
    this.notices = new NoticeRows(opts.store);
    this.timing = emergencyTiming(opts.notify);
    this.now = opts.now ?? (() => new Date());
    this.fetch = opts.fetch ?? fetch;
    this.log = opts.log ?? ((m) => log.error(m));
    this.pollMs = opts.pollMs ?? 10_000;
    this.sends = new OwedSends<RowFields>({
      store: opts.store,
      service: 'Pushover',
      owedColumn: 'pushover_owed',
      storedOwed: () => this.notices.pushoverOwed(),
      now: this.now,
      log: this.log,
      backoff: { baseMs: opts.backoffMs ?? 15_000, maxMs: opts.backoffMaxMs ?? 300_000, random: opts.random ?? Math.random },
    });
  }

  /** Whether Pushover is configured (otherwise every call is a no-op). */
  get enabled(): boolean {
    return this.cfg !== null;
  }

  /** Send the notice (quiet: as Pushover priority −1 at most); the service's emergency repeats are Pushover's job. */
  async deliver(notice: Notice, opts: { repeat: boolean; quiet: boolean }): Promise<void> {
    if (!this.cfg || notice.priority === -2) return;
    const row = this.sends.row(notice.key);
    if (!row) return;
    if (opts.repeat && notice.priority === 2 && (row.pushover_receipt_state === 'open' || row.pushover_error?.startsWith(REJECTED))) return;
    this.sends.set(notice.key, { pushover_owed: opts.quiet ? 'quiet' : 'alert' });
    await this.sends.track(this.send(notice.key));
  }

  /** Wait for every request in flight (before closing the store, and in tests). */
  flush(): Promise<void> {
    return this.sends.flush();
  }

  /** Stop Pushover repeating an emergency the operator acknowledged or snoozed in Loopdeck. */
  async withdraw(notice: Notice): Promise<void> {
    const row = this.cfg ? this.sends.row(notice.key) : undefined;
    if (row?.pushover_receipt_state === 'open') await this.sends.track(this.cancel(row));
  }

  /** Retry owed sends and cancels, and poll open receipts; returns acknowledgements made on the phone. */
  async tick(): Promise<RemoteAck[]> {
    if (!this.cfg) return [];
    const now = this.now();
    this.sends.recordUnrecorded();
    for (const key of this.sends.due()) await this.send(key);
    const acks: RemoteAck[] = [];
    const open = this.notices
      .pushoverOpen()
      .map((r) => this.sends.over(r))
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
    if (row.url !== null && row.url.length <= URL_MAX) {
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

  private send(key: string): Promise<void> {
    return this.sends.attempt(key, () => this.sendOnce(key));
  }

  private async sendOnce(key: string): Promise<void> {
    const row = this.sends.row(key);
    if (!row || row.pushover_owed === null) return;
    // Acknowledged while the send was owed: the operator already knows.
    if (row.acknowledged_at !== null) return this.sends.set(key, { pushover_owed: null });
    const form = this.form(row);
    try {
      const { status, json } = await this.call('POST', '/1/messages.json', form);
      if (status >= 200 && status < 300 && json?.status === 1) {
        const emergency = form.get('priority') === '2' && typeof json.receipt === 'string';
        this.sends.succeeded();
        this.sends.set(key, {
          pushover_owed: null,
          pushover_error: null,
          ...(emergency ? { pushover_receipt: json.receipt, pushover_receipt_state: 'open' as const } : {}),
        });
      } else if (status >= 400 && status < 500 && status !== 429) {
        // Pushover refused this request; sending it again would be refused again.
        const why = Array.isArray(json?.errors) ? json.errors.join('; ') : `HTTP ${status}`;
        this.sends.set(key, { pushover_owed: null, pushover_error: `${REJECTED}${why}` });
        this.log(`Pushover rejected notice ${key} (HTTP ${status}): ${why}. Check notify.pushover.user and notify.pushover.token in the config.`);
      } else {
        this.failed(key, `HTTP ${status}`);
      }
    } catch (err) {
      this.failed(key, messageOf(err));
    }
  }

  private failed(key: string, why: string): void {
    this.sends.set(key, { pushover_error: why });
    this.sends.failed();
    this.log(`Pushover send of notice ${key} failed (${why}); it stays owed and is retried.`);
  }

  private async cancel(row: NoticeRow): Promise<void> {
    const cfg = this.cfg as NonNullable<PushoverSink['cfg']>;
    try {
      const { json } = await this.call('POST', `/1/receipts/${encodeURIComponent(row.pushover_receipt ?? '')}/cancel.json`, new URLSearchParams({ token: cfg.token }));
      if (json?.status === 1) this.sends.set(row.key, { pushover_receipt_state: 'cancelled' });
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
        this.sends.set(row.key, { pushover_receipt_state: 'acknowledged' });
        const at = typeof json.acknowledged_at === 'number' && json.acknowledged_at > 0 ? json.acknowledged_at * 1000 : this.now().getTime();
        return { key: row.key, acknowledgedAt: new Date(at).toISOString(), by: 'Pushover' };
      }
      if (json?.status === 1 && json.expired === 1) this.sends.set(row.key, { pushover_receipt_state: 'expired' });
      else if (status >= 400 && status < 500 && status !== 429) {
        this.sends.set(row.key, { pushover_receipt_state: 'gone', pushover_error: `${REJECTED}receipt poll HTTP ${status}` });
        this.log(`Pushover does not know the receipt of notice ${row.key} (HTTP ${status}); no longer polling it.`);
      }
    } catch (err) {
      this.log(`Pushover receipt poll for notice ${row.key} failed (${messageOf(err)}); retrying later.`);
    }
    return null;
  }
}
