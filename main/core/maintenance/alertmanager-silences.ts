import { backoffDelay } from '../../../shared/backoff';
import { messageOf } from '../../../shared/errors';
import type { Store } from '../store/store';
import { log } from '../logging/log';
import type { MaintenanceWindowConfig } from '../config/maintenance-config';
import type { MaintenanceOccurrence, MaintenanceSchedule, MaintenanceTopology } from './maintenance-schedule';

/** The silences posted for each occurrence, kept across restarts: one is posted once per occurrence, never again. */
const POSTED_META = 'maintenance.silences';

/** A matcher as Alertmanager's `POST /api/v2/silences` takes it. */
export interface SilenceMatcher {
  readonly name: string;
  readonly value: string;
  readonly isRegex: boolean;
  readonly isEqual: boolean;
}

/** A silence as Alertmanager's `POST /api/v2/silences` takes it. */
export interface SilenceBody {
  readonly matchers: readonly SilenceMatcher[];
  readonly startsAt: string;
  readonly endsAt: string;
  readonly createdBy: string;
  readonly comment: string;
}

/** What Alertmanager was given for one occurrence: the parts posted (`loop`, `host`, `proxy`, `all`) and their silence ids. */
interface Posted {
  readonly endsAt: string;
  readonly parts: Record<string, string>;
}

/** How the silences are made. */
export interface AlertmanagerSilencesOptions {
  /** Alertmanager's base URL (`notify.alertmanager.url`); null: nothing is posted. */
  readonly url: string | null;
  readonly store: Store;
  readonly schedule: MaintenanceSchedule;
  readonly now?: () => Date;
  readonly fetch?: typeof fetch;
  readonly log?: (message: string) => void;
  /** After a failed post, the first wait before the next attempt (doubling while posts fail); tests shorten it. */
  readonly backoffMs?: number;
  readonly random?: () => number;
}

/** A regex alternative of config names (letters, digits, `.`, `_`, `-`): the dot is the only one to escape. */
function alternatives(names: readonly string[]): { value: string; isRegex: boolean } {
  if (names.length === 1) return { value: names[0] ?? '', isRegex: false };
  return { value: names.map((n) => n.replace(/\./g, '\\.')).join('|'), isRegex: true };
}

/**
 * The silences a window's occurrence asks of Alertmanager, by part: Alertmanager ANDs the matchers
 * of one silence, so each kind of name the scope gives is a silence of its own (`loop=~"a|b"`,
 * `host=~"…"`, `proxy=~"…"`), matching the labels Loopdeck's alerts carry (and any other alert
 * with those labels, such as Prometheus's on the same hosts). A proxy reached through a host in
 * `hosts` is silenced with it, as the window covers it. A window naming nothing silences every
 * Loopdeck alert (`key=~".+"`: only Loopdeck's alerts carry a `key` label), not Alertmanager's others.
 */
export function silenceParts(window: MaintenanceWindowConfig, topology: MaintenanceTopology): Record<string, SilenceMatcher> {
  const { loops, hosts, proxies } = window;
  if (loops === undefined && hosts === undefined && proxies === undefined) return { all: { name: 'key', value: '.+', isRegex: true, isEqual: true } };
  const out: Record<string, SilenceMatcher> = {};
  if (loops?.length) out.loop = { name: 'loop', ...alternatives(loops), isEqual: true };
  if (hosts?.length) out.host = { name: 'host', ...alternatives(hosts), isEqual: true };
  const onHosts = Object.entries(topology.proxies).filter(([, p]) => p.host !== undefined && (hosts ?? []).includes(p.host)).map(([name]) => name);
  const allProxies = [...new Set([...(proxies ?? []), ...onHosts])];
  if (allProxies.length) out.proxy = { name: 'proxy', ...alternatives(allProxies), isEqual: true };
  return out;
}

/**
 * Posts an Alertmanager silence for each maintenance window's occurrence when it begins (`POST
 * <url>/api/v2/silences`: the scope's matchers, the occurrence's start and end, the reason as the
 * comment, created by `loopdeck`), once per occurrence: what was posted is kept in the store, so
 * neither a tick nor a restart posts it again. One ended before its time (in the console, or taken
 * out of the config) has its silences expired. A post that fails is retried with the shared backoff
 * while the occurrence lasts.
 */
export class AlertmanagerSilences {
  private readonly endpoint: string | null;
  private readonly now: () => Date;
  private readonly fetch: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly posted: Map<string, Posted>;
  private readonly backoff: { baseMs: number; maxMs: number; random: () => number };
  private failures = 0;
  private retryAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | null = null;

  constructor(private readonly options: AlertmanagerSilencesOptions) {
    this.endpoint = options.url ? `${options.url.replace(/\/+$/, '')}/api/v2/silences` : null;
    this.now = options.now ?? (() => new Date());
    this.fetch = options.fetch ?? fetch;
    this.log = options.log ?? ((m) => log.error(m));
    this.backoff = { baseMs: options.backoffMs ?? 5_000, maxMs: 300_000, random: options.random ?? Math.random };
    this.posted = this.endpoint ? loadPosted(options.store.getMeta(POSTED_META)) : new Map();
  }

  /** Post the silences of the occurrences in force that Alertmanager has not been given; resolves when done (or failed). */
  tick(): Promise<void> {
    if (!this.endpoint || this.inflight) return this.inflight ?? Promise.resolve();
    if (this.options.schedule.empty && this.posted.size === 0) return Promise.resolve();
    if (this.now().getTime() < this.retryAt) return Promise.resolve();
    const p = this.round().finally(() => {
      this.inflight = null;
    });
    this.inflight = p;
    return p;
  }

  /** Wait for the post in flight (before the store closes). */
  async flush(): Promise<void> {
    while (this.inflight) await this.inflight;
  }

  private async round(): Promise<void> {
    const endpoint = this.endpoint as string;
    const nowMs = this.now().getTime();
    let dirty = false;
    // What ended is forgotten: its occurrence will not come again.
    for (const [id, p] of this.posted) {
      if (Date.parse(p.endsAt) <= nowMs) {
        this.posted.delete(id);
        dirty = true;
      }
    }
    const active = this.options.schedule.active(nowMs);
    try {
      // What was ended before its time (a console window ended, a config window taken out) is
      // expired in Alertmanager too: its silence would otherwise hide alerts until the old end.
      const inForce = new Set(active.map((o) => o.id));
      for (const [id, p] of this.posted) {
        if (inForce.has(id)) continue;
        for (const silence of Object.values(p.parts)) if (silence) await this.expire(endpoint, silence);
        this.posted.delete(id);
        dirty = true;
      }
      for (const o of active) {
        const done = this.posted.get(o.id)?.parts ?? {};
        for (const [part, matcher] of Object.entries(silenceParts(o.window, this.options.schedule.topology))) {
          if (done[part] !== undefined) continue;
          const id = await this.post(endpoint, o, matcher);
          this.posted.set(o.id, { endsAt: new Date(o.endMs).toISOString(), parts: { ...(this.posted.get(o.id)?.parts ?? {}), [part]: id } });
          dirty = true;
        }
      }
      this.failures = 0;
      this.retryAt = Number.NEGATIVE_INFINITY;
    } catch (err) {
      const wait = backoffDelay(this.failures++, this.backoff);
      this.retryAt = this.now().getTime() + wait;
      this.log(`Alertmanager silence post to ${endpoint} failed (${messageOf(err)}); retried in ${Math.round(wait / 1000)} s. Check notify.alertmanager.url in the config.`);
    } finally {
      if (dirty) this.keep();
    }
  }

  /** Expire a silence (`DELETE <url>/api/v2/silence/<id>`); one Alertmanager no longer has is gone already. */
  private async expire(endpoint: string, silence: string): Promise<void> {
    const res = await this.fetch(`${endpoint.replace(/silences$/, 'silence')}/${encodeURIComponent(silence)}`, { method: 'DELETE', signal: AbortSignal.timeout(15_000) });
    const text = await res.text().catch(() => '');
    if (!res.ok && res.status !== 404) throw new Error(`HTTP ${res.status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ''}`);
  }

  private async post(endpoint: string, o: MaintenanceOccurrence, matcher: SilenceMatcher): Promise<string> {
    const body: SilenceBody = {
      matchers: [matcher],
      startsAt: new Date(o.startMs).toISOString(),
      endsAt: new Date(o.endMs).toISOString(),
      createdBy: 'loopdeck',
      comment: o.window.reason,
    };
    const res = await this.fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new Error(`HTTP ${res.status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ''}`);
    try {
      const id = (JSON.parse(text) as { silenceID?: unknown }).silenceID;
      return typeof id === 'string' ? id : '';
    } catch {
      return '';
    }
  }

  /** Keep what was posted; a failed write (a full disk) is the data folder's problem, made good by the next post. */
  private keep(): void {
    try {
      this.options.store.setMeta(POSTED_META, JSON.stringify(Object.fromEntries(this.posted)));
    } catch (err) {
      if (this.options.store.noteFailure(err, 'keeping the maintenance silences posted to Alertmanager') === null) this.log(`Alertmanager: could not keep the silences posted (${messageOf(err)}).`);
    }
  }
}

/** The silences a previous run posted, by occurrence; anything malformed is skipped. */
function loadPosted(json: string | null): Map<string, Posted> {
  if (!json) return new Map();
  try {
    const obj = JSON.parse(json) as unknown;
    if (!obj || typeof obj !== 'object') return new Map();
    return new Map(
      Object.entries(obj as Record<string, Posted>).filter(([, p]) => p && typeof p.endsAt === 'string' && p.parts !== null && typeof p.parts === 'object'),
    );
  } catch {
    return new Map();
  }
}
