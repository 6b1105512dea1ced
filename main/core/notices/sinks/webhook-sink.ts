import { hostname } from 'node:os';
import { backoffDelay } from '../../../../shared/backoff';
import type { DrillRun, LoopState, Notice, Problem } from '../../../../shared/domain';
import { VERSION } from '../../config/version';
import { log } from '../../logging/log';
import type { Store } from '../../store/store';
import { alertAnnotations, alertLabels } from './alertmanager-alert';
import type { NoticeSink, RemoteAck } from '../notice-service';
import type { RemoteSinkOptions } from '../notify-config';
import { toNotice } from '../schema';
import { NoticeRows } from '../notice-rows';
import { WebhookDeliveries } from './webhook-deliveries';
import { signatureHeaders, webhookPayload, type PayloadContext } from './webhook-payload';
import type { DeliveryRow, DeliveryState } from './webhook-schema';
import { messageId, webhookTargets, type WebhookTarget } from './webhook-target';
import { messageOf } from '../../../../shared/errors';

/** How the webhook sink is made. */
export interface WebhookSinkOptions extends RemoteSinkOptions {
  /** Where `env:NAME` secrets are read (default: this process's environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** The console's URL when known (serve mode): CloudEvents' `source`, Alertmanager's `externalURL`. */
  readonly consoleUrl?: () => string | undefined;
  /** This machine's name, for `loopdeck://<hostname>` when no console URL is known. */
  readonly hostname?: string;
  /** After a failed attempt, the wait before the next one, doubling while attempts keep failing (default 10 s). */
  readonly backoffMs?: number;
  /** The longest wait between attempts during an outage (default 5 min). */
  readonly backoffMaxMs?: number;
  /** Uniform in [0, 1) for the backoff's jitter; tests pin it. */
  readonly random?: () => number;
  /** The most deliveries owed to one webhook; past it the oldest are dropped (default 1000). */
  readonly maxQueue?: number;
  /** A delivery still failing this long after its notice was raised is given up (default 24 h). */
  readonly giveUpMs?: number;
  /** An attempt without an answer this long fails (default 15 s). */
  readonly timeoutMs?: number;
}

/** One webhook's sending state in this process: attempts go out one at a time, oldest first. */
interface Lane {
  readonly target: WebhookTarget;
  failures: number;
  retryAt: number;
  inflight: Promise<void> | null;
  /** Something was queued while a drain ran: drain again when it ends. */
  again: boolean;
}

/** The meta key holding when a webhook was first configured: notices older than that are not owed to it. */
const sinceMeta = (t: WebhookTarget): string => `webhooks.since.${t.id}`;

/** How far before the newest recorded delivery the catch-up looks (notices raised in the same second). */
const CATCH_UP_SLACK_MS = 60_000;

/**
 * POSTs every notice (of priority −1 and up: a machine has no quiet hours; the body says the
 * priority) to each `notify.webhooks` entry, in its format, signed with the Standard Webhooks
 * headers when it has a secret.
 *
 * Delivery is at most once per (notice, webhook), with no loss across restarts. The choice: a row
 * in `webhook_deliveries` holding the webhook-id is written ('pending') before the first attempt,
 * and marked 'delivered' only when a 2xx comes back. A restart retries the pending rows, with the
 * same webhook-id (a hash of the notice key and the webhook, so it is the same in every process),
 * and never sends a delivered one again. A crash after the receiver took a body but before its 2xx
 * was recorded is then sent again with the id it already saw: that is the Standard Webhooks
 * idempotency model, where the receiver dedupes by `webhook-id`. A notice raised is never re-sent
 * under a new id, so a deduping receiver sees each notice once. The service records a send before
 * handing it to the sinks; a crash between that and the pending row is caught up at the next
 * start (the notices sent since the newest delivery without a row for the webhook).
 *
 * Retries use the shared backoff, per webhook; a 2xx ends it; a 4xx other than 408 and 429 (or a
 * redirect) is not retried; an attempt still failing after `giveUpMs` is given up. Messages name
 * the config key and the URL's host, never the secret, the path or the query.
 */
export class WebhookSink implements NoticeSink {
  private readonly store: Store;
  private readonly notices: NoticeRows;
  private readonly deliveries: WebhookDeliveries;
  private readonly now: () => Date;
  private readonly fetch: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly lanes: Lane[];
  private readonly configProblems: Problem[];
  private readonly consoleUrl: () => string | undefined;
  private readonly hostname: string;
  private readonly backoff: { baseMs: number; maxMs: number; random: () => number };
  private readonly maxQueue: number;
  private readonly giveUpMs: number;
  private readonly timeoutMs: number;
  private readonly loopHosts = new Map<string, string>();
  private readonly drillHosts = new Map<string, string>();
  /** Deliveries whose 2xx could not be recorded (a full disk): not sent again in this process. */
  private readonly unrecorded = new Map<string, DeliveryState>();
  /** Look for notices sent without a delivery row (the first tick, and after a failed write). */
  private catchUp = true;

  constructor(opts: WebhookSinkOptions) {
    const { targets, problems } = webhookTargets(opts.notify, opts.env ?? process.env);
    this.configProblems = problems;
    this.store = opts.store;
    this.notices = new NoticeRows(opts.store);
    this.deliveries = new WebhookDeliveries(opts.store);
    this.now = opts.now ?? (() => new Date());
    this.fetch = opts.fetch ?? fetch;
    this.log = opts.log ?? ((m) => log.error(m));
    this.consoleUrl = opts.consoleUrl ?? (() => undefined);
    this.hostname = opts.hostname ?? hostname();
    this.backoff = { baseMs: opts.backoffMs ?? 10_000, maxMs: opts.backoffMaxMs ?? 300_000, random: opts.random ?? Math.random };
    this.maxQueue = opts.maxQueue ?? 1000;
    this.giveUpMs = opts.giveUpMs ?? 24 * 3_600_000;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.lanes = targets.map((target) => ({ target, failures: 0, retryAt: Number.NEGATIVE_INFINITY, inflight: null, again: false }));
    for (const { target } of this.lanes) {
      this.write(`noting when ${target.key} was configured`, () => {
        if (this.store.getMeta(sinceMeta(target)) === null) this.store.setMeta(sinceMeta(target), this.now().toISOString());
      });
    }
  }

  /** Whether any webhook can be posted to. */
  get enabled(): boolean {
    return this.lanes.length > 0;
  }

  /** Config problems: webhooks left out because their secret is unset or not a Standard Webhooks secret. */
  problems(): Problem[] {
    return this.configProblems;
  }

  /** The hosts the loops and drill runs are on, for the `alertmanager` format's `host` label. */
  observe(state: { loops: readonly LoopState[]; drillRuns: readonly DrillRun[] }): void {
    for (const l of state.loops) this.loopHosts.set(l.name, l.host);
    for (const r of state.drillRuns) this.drillHosts.set(r.id, r.host);
  }

  /** A notice raised: owed to every webhook (recorded first), then posted. Repeats are not posted again. */
  deliver(notice: Notice, opts: { repeat: boolean; quiet: boolean }): Promise<void> | void {
    if (this.lanes.length === 0 || opts.repeat || notice.priority === -2) return;
    const queued = this.write(`recording notice ${notice.key} owed to the webhooks`, () => this.queue(notice.key, notice.createdAt));
    if (!queued) return;
    return Promise.all(this.lanes.map((l) => this.kick(l))).then(() => undefined);
  }

  /** Catch up what a crash or a full disk left unrecorded, and retry what is owed once its backoff has passed. */
  async tick(): Promise<readonly RemoteAck[]> {
    if (this.lanes.length === 0) return [];
    if (this.catchUp) this.write('catching up the notices owed to the webhooks', () => this.findUnrecorded());
    const now = this.now().getTime();
    await Promise.all(this.lanes.filter((l) => now >= l.retryAt).map((l) => this.kick(l)));
    return [];
  }

  /** Wait for the attempts in flight (before the store closes, and in tests). */
  async flush(): Promise<void> {
    while (this.lanes.some((l) => l.inflight)) await Promise.allSettled(this.lanes.map((l) => l.inflight));
  }

  /** Record the notice owed to every webhook (the webhook-id with it), and keep each queue within its bound. */
  private queue(key: string, createdAt: string): void {
    const d = this.deliveries;
    this.store.sql.transaction(() => {
      for (const { target } of this.lanes) {
        if (!d.insert(key, target.id, messageId(key, target), createdAt)) continue;
        const over = d.pendingCount(target.id) - this.maxQueue;
        if (over <= 0) continue;
        for (const k of d.oldestPending(target.id, over)) d.drop(k, target.id);
        this.log(`Webhook ${target.key} (${target.host}): more than ${this.maxQueue} notices owed; the ${over} oldest were dropped. Check that the receiver is up.`);
      }
    })();
  }

  /** Notices the service sent since the newest delivery of each webhook that have no row for it (a crash between the two writes). */
  private findUnrecorded(): void {
    for (const { target } of this.lanes) {
      const since = this.store.getMeta(sinceMeta(target)) ?? this.now().toISOString();
      const last = this.deliveries.newest(target.id);
      const from = last && Date.parse(last) - CATCH_UP_SLACK_MS > Date.parse(since) ? new Date(Date.parse(last) - CATCH_UP_SLACK_MS).toISOString() : since;
      for (const r of this.deliveries.missed(from, target.id)) this.queue(r.key, r.created_at);
    }
    this.catchUp = false;
  }

  private kick(lane: Lane): Promise<void> {
    if (lane.inflight) {
      lane.again = true;
      return lane.inflight;
    }
    if (this.now().getTime() < lane.retryAt) return Promise.resolve();
    lane.again = false;
    const p = this.drain(lane).finally(() => {
      lane.inflight = null;
      if (lane.again) void this.kick(lane);
    });
    lane.inflight = p;
    return p;
  }

  /** Post the webhook's owed notices oldest first, until none is left or an attempt fails (then the backoff waits). */
  private async drain(lane: Lane): Promise<void> {
    const { target } = lane;
    for (;;) {
      let rows: DeliveryRow[];
      try {
        rows = this.deliveries.next(target.id).filter((r) => !this.unrecorded.has(`${r.notice_key}\n${r.webhook}`));
      } catch (err) {
        if (this.store.noteFailure(err, 'reading the webhook deliveries') === null) this.log(`Webhooks: could not read the deliveries (${String(err)}); retried on the next tick.`);
        return;
      }
      if (rows.length === 0) return;
      // Each row leaves 'pending' (or is kept unrecorded) before the next query, so the loop ends.
      for (const row of rows) if (!(await this.attempt(lane, row))) return;
    }
  }

  /** One attempt; false when the webhook failed in a way worth retrying (the lane then waits out its backoff). */
  private async attempt(lane: Lane, row: DeliveryRow): Promise<boolean> {
    const { target } = lane;
    const notice = this.notice(row.notice_key);
    if (!notice) {
      this.settle(row, 'dropped', 'the notice is no longer stored');
      return true;
    }
    if (this.now().getTime() - Date.parse(notice.createdAt) > this.giveUpMs) {
      this.settle(row, 'expired', row.last_error);
      this.log(`Webhook ${target.key} (${target.host}): gave up notice ${row.notice_key} after ${row.attempts} attempts (last: ${row.last_error ?? 'none'}).`);
      return true;
    }
    const { contentType, body } = webhookPayload(notice, target.format, this.context(notice, row.message_id));
    const at = this.now();
    this.write('recording a webhook attempt', () =>
      this.deliveries.attempted(row, at.toISOString()),
    );
    let status: number;
    let retryAfter: string | null;
    try {
      const res = await this.fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': contentType, 'user-agent': `Loopdeck/${VERSION}`, ...signatureHeaders(row.message_id, at, body, target.signingKey) },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      return this.failed(lane, row, `${messageOf(err)}${cause}`);
    }
    if (status >= 200 && status < 300) {
      if (lane.failures > 0) this.log(`Webhook ${target.key} (${target.host}) answers again.`);
      lane.failures = 0;
      lane.retryAt = Number.NEGATIVE_INFINITY;
      this.settle(row, 'delivered', null);
      return true;
    }
    if (status >= 300 && status < 500 && status !== 408 && status !== 429) {
      this.settle(row, 'rejected', `HTTP ${status}`);
      this.log(`Webhook ${target.key} (${target.host}) refused notice ${row.notice_key} with HTTP ${status}; not retried (it would be refused again). Check ${target.key}.url and what the receiver expects.`);
      return true;
    }
    return this.failed(lane, row, `HTTP ${status}`, status === 429 || status === 503 ? retryAfterMs(retryAfter, at.getTime()) : null);
  }

  /** A retriable failure: the lane waits out the backoff (or the receiver's Retry-After, within the backoff's bound). */
  private failed(lane: Lane, row: DeliveryRow, why: string, askedMs: number | null = null): false {
    const wait = Math.max(backoffDelay(lane.failures++, this.backoff), Math.min(askedMs ?? 0, this.backoff.maxMs));
    lane.retryAt = this.now().getTime() + wait;
    this.write('recording a failed webhook attempt', () =>
      this.deliveries.failed(row, why),
    );
    this.log(`Webhook ${lane.target.key} (${lane.target.host}): posting notice ${row.notice_key} failed (${why}); retried in ${Math.round(wait / 1000)} s.`);
    return false;
  }

  /** A delivery's final state. When it cannot be written, it is kept here so this process does not post it again. */
  private settle(row: DeliveryRow, state: DeliveryState, why: string | null): void {
    const ok = this.write(`recording webhook delivery of notice ${row.notice_key}`, () =>
      this.deliveries.settle(row, state, why),
    );
    if (!ok) this.unrecorded.set(`${row.notice_key}\n${row.webhook}`, state);
  }

  private notice(key: string): Notice | null {
    const r = this.notices.byKey(key);
    if (!r) return null;
    return toNotice(r);
  }

  private context(n: Notice, id: string): PayloadContext {
    const consoleUrl = this.consoleUrl();
    const hosts = { loopHost: (l: string) => this.loopHosts.get(l), drillHost: (runId: string) => this.drillHosts.get(runId) };
    const ctx: PayloadContext = { messageId: id, source: consoleUrl ?? `loopdeck://${this.hostname}`, consoleUrl, labels: alertLabels(n, hosts) };
    // A host back is its outage's alert resolved: the same labels, so a receiver pairs the two.
    if (!n.key.startsWith('host-recovered:')) return ctx;
    const down = this.notice(`host-down:${n.key.slice('host-recovered:'.length)}`);
    return down ? { ...ctx, resolves: { labels: alertLabels(down, hosts), startsAt: down.createdAt, annotations: alertAnnotations(down) } } : ctx;
  }

  /** Run a write; false (said once through the store's disk-full problem, or logged) when it failed. */
  private write(what: string, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (err) {
      this.catchUp = true;
      if (this.store.noteFailure(err, what) === null) this.log(`Webhooks: ${what} failed (${messageOf(err)}); retried on the next tick.`);
      return false;
    }
  }
}

/** A Retry-After header (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
