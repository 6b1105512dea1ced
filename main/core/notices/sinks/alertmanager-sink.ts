import { backoffDelay } from '../../../../shared/backoff';
import type { DrillRun, LoopState, Notice } from '../../../../shared/domain';
import type { Store } from '../../store/store';
import { NoticeRows } from '../notice-rows';
import { log } from '../../logging/log';
import { alertAnnotations, alertLabels, conditionOf, findingKey, generatorUrl, isEventRule, ruleOfKey, type AmAlert, type ConditionScope } from './alertmanager-alert';
import type { NoticeSink, RemoteAck } from '../notice-service';
import type { NoticeDraft } from '../notice-draft';
import type { RemoteSinkOptions } from '../notify-config';
import { messageOf } from '../../../../shared/errors';

/** What Alertmanager was last told, kept across restarts so an alert ended while Loopdeck was down is still resolved. */
const POSTED_META = 'alertmanager.posted';

/** How the Alertmanager sink is made. */
export interface AlertmanagerSinkOptions extends RemoteSinkOptions {
  /** How often firing alerts are posted again (Alertmanager's docs: every 30 s to 3 min). Default 1 min. */
  readonly resendMs?: number;
  /** How far ahead a firing alert's `endsAt` is put: Alertmanager resolves it then unless posted again. Default 4 min. */
  readonly lifetimeMs?: number;
  /** How long an event (a host back, a drill finished) fires before it ends on its own. Default 15 min. */
  readonly eventMs?: number;
  /** The most alerts kept firing; past it the oldest are resolved. Default 500. */
  readonly maxAlerts?: number;
  /** After a failed post, the first wait before the next attempt, doubling while posts keep failing. */
  readonly backoffMs?: number;
  /** The longest wait between attempts during an outage (default 5 min). */
  readonly backoffMaxMs?: number;
  /** Uniform in [0, 1) for the backoff's jitter; tests pin it. */
  readonly random?: () => number;
}

/** A firing alert as the sink keeps it: what to post, and the notice's source to judge its condition by. */
interface Firing {
  readonly source: string;
  readonly alert: Omit<AmAlert, 'endsAt'>;
  /** An event's end (ms): it fires until then. */
  readonly eventEnd: number | null;
}

/**
 * Hands notices of priority 0 and up to Alertmanager (`POST <url>/api/v2/alerts`) as alerts that
 * fire while the notice is unacknowledged and its condition holds. Firing alerts are posted again
 * every minute with `endsAt` a few minutes ahead, as Alertmanager expects of its clients, so an
 * alert Loopdeck stops sending (it quit, or lost the network) ends by itself. An acknowledgement or
 * a cleared condition is posted as a resolve (`endsAt` = when it ended); a resolve that fails is
 * kept and retried with the shared backoff until it lands or the alert would have ended anyway.
 * Nothing is posted until the notifier has judged the whole state once in this process, and the
 * notices the first start lists (`seeded`) never fire.
 */
export class AlertmanagerSink implements NoticeSink {
  private readonly store: Store;
  private readonly notices: NoticeRows;
  private readonly endpoint: string | null;
  private readonly now: () => Date;
  private readonly fetch: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly resendMs: number;
  private readonly lifetimeMs: number;
  private readonly eventMs: number;
  private readonly maxAlerts: number;
  private readonly backoff: { baseMs: number; maxMs: number; random: () => number };
  private readonly firing = new Map<string, Firing>();
  /** Owed resolves, with the time the alert would end in Alertmanager anyway (after which they are moot). */
  private readonly resolving = new Map<string, { alert: AmAlert; moot: number }>();
  /** Alerts Alertmanager holds as firing, as last posted. */
  private readonly posted: Map<string, AmAlert>;
  private readonly loopHosts = new Map<string, string>();
  private readonly drillHosts = new Map<string, string>();
  private ready = false;
  private dirty = false;
  private nextPostAt = Number.NEGATIVE_INFINITY;
  private retryAt = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private inflight: Promise<void> | null = null;

  constructor(opts: AlertmanagerSinkOptions) {
    const url = opts.notify.alertmanager?.url;
    this.endpoint = url ? `${url.replace(/\/+$/, '')}/api/v2/alerts` : null;
    this.store = opts.store;
    this.notices = new NoticeRows(opts.store);
    this.now = opts.now ?? (() => new Date());
    this.fetch = opts.fetch ?? fetch;
    this.log = opts.log ?? ((m) => log.error(m));
    this.resendMs = opts.resendMs ?? 60_000;
    this.lifetimeMs = opts.lifetimeMs ?? 4 * this.resendMs;
    this.eventMs = opts.eventMs ?? 15 * 60_000;
    this.maxAlerts = opts.maxAlerts ?? 500;
    this.backoff = { baseMs: opts.backoffMs ?? 5_000, maxMs: opts.backoffMaxMs ?? 300_000, random: opts.random ?? Math.random };
    this.posted = new Map(this.endpoint ? loadPosted(this.store.getMeta(POSTED_META)) : []);
  }

  /** Whether Alertmanager is configured (otherwise every call is a no-op). */
  get enabled(): boolean {
    return this.endpoint !== null;
  }

  /** A notice raised now: it fires (repeats are Alertmanager's job, through its `repeat_interval`). */
  deliver(notice: Notice, opts: { repeat: boolean; quiet: boolean }): Promise<void> | void {
    if (!this.endpoint || !this.ready || opts.repeat || notice.priority < 0 || notice.acknowledgedAt !== null) return;
    if (this.firing.has(notice.key)) return;
    this.fire(notice);
    this.trim();
    return this.kick();
  }

  /** Acknowledged in Loopdeck (or on the phone): resolve its alert. A snooze leaves it firing. */
  withdraw(notice: Notice): Promise<void> | void {
    if (!this.endpoint || notice.acknowledgedAt === null) return;
    this.end(notice.key, Date.parse(notice.acknowledgedAt));
    return this.kick();
  }

  /**
   * Judge the firing alerts against what the notifier derived: `full` for the whole state (the
   * first update of a process: the firing set is rebuilt from the stored notices), otherwise the
   * delta, which clears only what it covers. Called before the update's new notices are raised,
   * so they are labelled with the hosts this state names.
   */
  observe(
    state: { loops: readonly LoopState[]; findings: readonly { loop: string; id: string }[]; drillRuns: readonly DrillRun[]; prsDerived?: boolean },
    drafts: readonly NoticeDraft[],
    full: boolean,
  ): void {
    if (!this.endpoint) return;
    for (const l of state.loops) this.loopHosts.set(l.name, l.host);
    for (const r of state.drillRuns) this.drillHosts.set(r.id, r.host);
    const scope: ConditionScope = {
      full: full || !this.ready,
      derived: new Set(drafts.map((d) => d.key)),
      loops: new Map(state.loops.map((l) => [l.name, l])),
      findings: new Set(state.findings.map(findingKey)),
      prs: state.prsDerived ?? true,
    };
    if (scope.full) this.rebuild(scope);
    else for (const [key, f] of this.firing) if (conditionOf({ key, source: f.source }, scope) === 'cleared') this.end(key, this.now().getTime());
    const wasReady = this.ready;
    this.ready = true;
    if (!wasReady || this.dirty) void this.kick();
  }

  /** Post what is due: firing alerts once a minute, resolves and new alerts at once (or after the backoff). */
  async tick(): Promise<RemoteAck[]> {
    if (this.endpoint && this.ready && (this.dirty || this.now().getTime() >= this.nextPostAt)) await this.kick();
    return [];
  }

  /** Wait for the post in flight (before closing the store, and in tests). */
  async flush(): Promise<void> {
    while (this.inflight) await this.inflight;
  }

  private rebuild(scope: ConditionScope): void {
    const now = this.now().getTime();
    const candidates = this.notices.alertCandidates();
    const keep: string[] = [];
    for (const c of candidates) {
      if (keep.length >= this.maxAlerts) break;
      const event = isEventRule(ruleOfKey(c.key));
      if (event ? now < Date.parse(c.created_at) + this.eventMs : conditionOf(c, scope) !== 'cleared') keep.push(c.key);
    }
    const wanted = new Set(keep);
    for (const key of this.firing.keys()) if (!wanted.has(key)) this.end(key, now);
    for (const key of keep) {
      const r = this.notices.byKey(key);
      if (r && !this.firing.has(key)) this.fire({ key: r.key, priority: r.priority as Notice['priority'], source: r.source, title: r.title, message: r.message, url: r.url, urlTitle: r.url_title, createdAt: r.created_at, acknowledgedAt: null, snoozedUntil: r.snoozed_until });
    }
    // Alerts a previous run posted whose notice no longer fires (acknowledged or cleared meanwhile).
    for (const key of this.posted.keys()) if (!this.firing.has(key)) this.end(key, now);
  }

  private fire(n: Notice): void {
    const known = this.posted.get(n.key);
    // Labels identify the alert in Alertmanager: keep the ones it already has.
    const labels = known?.labels ?? alertLabels(n, { loopHost: (l) => this.loopHosts.get(l), drillHost: (id) => this.drillHosts.get(id) });
    const gen = generatorUrl(n.url);
    const event = isEventRule(ruleOfKey(n.key));
    this.firing.set(n.key, {
      source: n.source,
      alert: { labels, annotations: alertAnnotations(n), startsAt: n.createdAt, ...(gen ? { generatorURL: gen } : {}) },
      eventEnd: event ? Date.parse(n.createdAt) + this.eventMs : null,
    });
    this.resolving.delete(n.key);
    this.dirty = true;
  }

  /** Past the cap, the oldest firing alerts are resolved: the newest are what needs a person now. */
  private trim(): void {
    if (this.firing.size <= this.maxAlerts) return;
    const byAge = [...this.firing].sort((a, b) => a[1].alert.startsAt.localeCompare(b[1].alert.startsAt));
    const drop = byAge.slice(0, this.firing.size - this.maxAlerts);
    for (const [key] of drop) this.end(key, this.now().getTime());
    this.log(`Alertmanager: more than ${this.maxAlerts} notices fire at once; the ${drop.length} oldest were resolved in Alertmanager (they stay in Loopdeck's list).`);
  }

  /** The alert stops firing; if Alertmanager holds it, a resolve is owed. */
  private end(key: string, at: number): void {
    this.firing.delete(key);
    const p = this.posted.get(key);
    if (!p || this.resolving.has(key)) return;
    const moot = Date.parse(p.endsAt);
    const endsAt = new Date(Math.max(Math.min(at, moot), Date.parse(p.startsAt))).toISOString();
    if (moot > this.now().getTime()) this.resolving.set(key, { alert: { ...p, endsAt }, moot });
    else this.posted.delete(key);
    this.dirty = true;
  }

  private kick(): Promise<void> {
    this.dirty = true;
    if (!this.ready || this.inflight || this.now().getTime() < this.retryAt) return this.inflight ?? Promise.resolve();
    const p = this.round().finally(() => {
      this.inflight = null;
      // Something ended or fired while the post was on its way: post again now, not on the next tick.
      if (this.dirty && this.now().getTime() >= this.retryAt) void this.kick();
    });
    this.inflight = p;
    return p;
  }

  private async round(): Promise<void> {
    const endpoint = this.endpoint as string;
    this.dirty = false;
    const now = this.now().getTime();
    const batch: { key: string; alert: AmAlert; firing: boolean }[] = [];
    for (const [key, f] of this.firing) {
      if (f.eventEnd !== null && f.eventEnd <= now) {
        // An event past its end: Alertmanager ends it at the endsAt it was given.
        this.firing.delete(key);
        this.posted.delete(key);
        continue;
      }
      const endsAt = new Date(f.eventEnd ?? now + this.lifetimeMs).toISOString();
      batch.push({ key, alert: { ...f.alert, endsAt }, firing: true });
    }
    for (const [key, r] of this.resolving) {
      if (r.moot <= now) {
        this.resolving.delete(key);
        this.posted.delete(key);
      } else batch.push({ key, alert: r.alert, firing: false });
    }
    try {
      for (let i = 0; i < batch.length; i += 200) {
        const chunk = batch.slice(i, i + 200);
        const res = await this.fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(chunk.map((c) => c.alert)),
          signal: AbortSignal.timeout(15_000),
        });
        if (!res.ok) {
          const body = (await res.text().catch(() => '')).slice(0, 300).trim();
          throw new Error(`HTTP ${res.status}${body ? `: ${body}` : ''}`);
        }
        for (const c of chunk) {
          if (c.firing) {
            this.posted.set(c.key, c.alert);
            // Acknowledged or cleared while this post was on its way: Alertmanager now holds it, so resolve it.
            if (!this.firing.has(c.key)) this.end(c.key, this.now().getTime());
          } else if (this.resolving.get(c.key)?.alert === c.alert) {
            this.resolving.delete(c.key);
            this.posted.delete(c.key);
          }
        }
      }
      if (this.failures > 0) this.log(`Alertmanager at ${endpoint} answers again; ${batch.length} alerts posted.`);
      this.failures = 0;
      this.retryAt = Number.NEGATIVE_INFINITY;
      this.nextPostAt = now + this.resendMs;
    } catch (err) {
      const wait = backoffDelay(this.failures++, this.backoff);
      this.retryAt = this.now().getTime() + wait;
      this.dirty = true;
      const why = messageOf(err);
      this.log(`Alertmanager post to ${endpoint} failed (${why}); ${this.resolving.size} resolves and ${this.firing.size} firing alerts are retried in ${Math.round(wait / 1000)} s. Check notify.alertmanager.url in the config.`);
    } finally {
      this.keepPosted();
    }
  }

  /**
   * Keep what Alertmanager holds for the next run. Never throws: a round runs from `void` calls,
   * and a failed write (a full disk, the data folder's problem then) is made good by the next round.
   */
  private keepPosted(): void {
    try {
      this.store.setMeta(POSTED_META, JSON.stringify([...this.posted.values()]));
    } catch (err) {
      if (this.store.noteFailure(err, 'keeping the alerts posted to Alertmanager') === null) {
        this.log(`Alertmanager: could not keep the alerts posted (${messageOf(err)}); kept again after the next post.`);
      }
    }
  }
}

/** The posted alerts a previous run kept, keyed by their `key` label; anything malformed is skipped. */
function loadPosted(json: string | null): [string, AmAlert][] {
  if (!json) return [];
  try {
    const list = JSON.parse(json) as unknown;
    if (!Array.isArray(list)) return [];
    return list.flatMap((a: AmAlert) =>
      a && typeof a === 'object' && typeof a.labels?.key === 'string' && typeof a.startsAt === 'string' && typeof a.endsAt === 'string' ? [[a.labels.key, a] as [string, AmAlert]] : [],
    );
  } catch {
    return [];
  }
}
