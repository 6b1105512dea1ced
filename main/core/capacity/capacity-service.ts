import type { CommandInput, CommandOutput } from '../../../shared/contract';
import type { Capacity, IncidentLimits } from '../../../shared/domain';
import { DEFAULT_ERROR_WINDOW_MS, DEFAULT_INCIDENT_LIMITS } from '../../../shared/fleet-incidents';
import { pinnedAt } from '../clock';
import { log } from '../logging/log';
import { httpGet, type HttpReply } from '../ssh/http-over-ssh';
import type { Store } from '../store/store';
import { pollCrossbar } from './sources/crossbar';
import { gatewayAdapter } from './sources/gateway';
import { ErrorWindow } from './history/error-window';
import { CapacityHistory, type StoredSample } from './history/history-store';
import { FleetWindows, type FleetWindow } from './history/fleet-windows';
import { historyOutput, RANGE_MS } from './history/history-query';
import { boundErrors, MAX_HOSTS_PER_PROXY, MAX_USAGE_ROWS_PER_POLL } from './limits';
import { pollLlamaServer } from './sources/llama-server';
import { pollPrometheus, prometheusHistory, type PromGetter } from './sources/prometheus-source';
import { TokenCounters } from './sources/token-rate';
import { pollVllm } from './sources/vllm';
import { downResult, type Adapter, type Counters, type PollResult, type Sample, type UsageRow } from './sources/poll-types';
import { isErrorStatus } from './sources/usage-rows';
import { messageOf } from '../../../shared/errors';
import type { MaintenanceMark } from '../../../shared/maintenance';

/** One proxy to poll, from the config. */
export interface ProxyConfig {
  /** The configured host (SSH or local) whose loopback the URL is on; none: reached directly (prometheus only). */
  readonly host?: string;
  readonly kind: Capacity['kind'];
  /** Base URL as seen from that host, e.g. `http://127.0.0.1:8090`. */
  readonly url: string;
  /** Poll interval, ms. */
  readonly every: number;
  /** Gateway: the configured shed threshold, when its status does not say. */
  readonly shedThreshold?: number | null;
  /** Per-request timeout, ms (default: the interval, at most 10 s). */
  readonly timeoutMs?: number;
  /** Prometheus: label matchers picking the inference servers' series, e.g. `{job="llama"}`. */
  readonly selector?: string;
  /** Fleet-incident thresholds (`incidents:`); each absent one has its default (shared/fleet-incidents.ts). */
  readonly incidents?: Partial<IncidentLimits> & { readonly errorWindow?: number };
}

/** GET a URL on a host, bounded by a timeout and optionally a body size (httpGet bound to the host's connection). */
export type HostFetch = (url: string, timeoutMs: number, maxBytes?: number) => Promise<HttpReply>;

/** A prometheus proxy without `host:` is reached from this machine. */
const directFetch: HostFetch = (url, timeoutMs, maxBytes) => httpGet(null, url, timeoutMs, maxBytes);

/** What the capacity service needs. */
export interface CapacityServiceOptions {
  readonly proxies: Readonly<Record<string, ProxyConfig>>;
  /** How to reach a host; null while it is not reachable (SSH down). */
  readonly getFor: (hostName: string) => HostFetch | null;
  readonly store: Store;
  /** The clock; one pinned by `pinnedClock` (`--now`) makes Prometheus's queries run at that time, and its empty answers say so. */
  readonly now?: () => Date;
  readonly onChange: (capacity: Capacity[]) => void;
  /** How often to prune the history, ms (default hourly; also on start). */
  readonly pruneEveryMs?: number;
  /** Prometheus's history of a bad phase's window was read: its cause may now be known. */
  readonly onWindowRead?: () => void;
  /** The maintenance window a proxy is in now, or null: its rows carry it, and their incidents are planned. */
  readonly maintenanceOf?: (proxy: string, now: Date) => MaintenanceMark | null;
}

interface CounterState {
  readonly t: number;
  readonly counters: Counters | null;
}

const key = (proxy: string, host: string): string => `${proxy}\0${host}`;
const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, '')}${path}`;
const comparable = (c: Capacity): string => JSON.stringify({ ...c, polledAt: null });

/** A proxy's incident thresholds with the defaults filled in, and its error window (ms). */
function limitsFor(cfg: ProxyConfig): { limits: IncidentLimits; windowMs: number } {
  const { errorWindow, ...own } = cfg.incidents ?? {};
  return { limits: { ...DEFAULT_INCIDENT_LIMITS, ...own }, windowMs: errorWindow ?? DEFAULT_ERROR_WINDOW_MS };
}

/** Counter deltas since the previous poll; a counter that went down was reset (proxy restart). */
function deltas(cur: Counters, prev: Counters): { requests: number; errors: Record<string, number> } {
  const d = (a: number, b: number | undefined): number => (b === undefined || a < b ? a : a - b);
  const errors: Record<string, number> = {};
  for (const [s, v] of Object.entries(cur.errors)) errors[s] = d(v, prev.errors[s]);
  return { requests: d(cur.requests, prev.requests), errors };
}

/** What an adapter returned, cut to the per-poll limits (the adapters cut and say so; this is the backstop). */
function bounded(result: PollResult): PollResult {
  const { capacity, samples, usage } = result;
  if (capacity.length <= MAX_HOSTS_PER_PROXY && samples.length <= MAX_HOSTS_PER_PROXY && usage.length <= MAX_USAGE_ROWS_PER_POLL) return result;
  return { capacity: capacity.slice(0, MAX_HOSTS_PER_PROXY), samples: samples.slice(0, MAX_HOSTS_PER_PROXY), usage: usage.slice(-MAX_USAGE_ROWS_PER_POLL) };
}

/** Counts of newly seen usage rows for one host, as counter deltas. */
function usageDeltas(rows: readonly UsageRow[], host: string): { requests: number; errors: Record<string, number> } {
  const mine = rows.filter((r) => r.host === host);
  const errors: Record<string, number> = {};
  for (const r of mine) if (isErrorStatus(r.status) && r.status !== null) errors[r.status] = (errors[r.status] ?? 0) + 1;
  return { requests: mine.length, errors };
}

/**
 * Polls every configured proxy on its own interval, keeps the latest capacity per (proxy, host)
 * with up/down transitions, stores samples and usage rows with retention, and answers history.
 */
export class CapacityService {
  private readonly now: () => Date;
  private readonly hist: CapacityHistory;
  /** The fleet over bad phases' windows: stored rollups, or Prometheus's own history. */
  private readonly windows: FleetWindows;
  private readonly latest = new Map<string, Capacity>();
  private readonly counters = new Map<string, CounterState>();
  /** The generated-token counter of each (proxy, host), for tokens a second and the stored deltas. */
  private readonly tokenCounters = new TokenCounters();
  /** Server failures over each (proxy, host)'s recent window, for the error-burst incident. */
  private readonly errorWindow: ErrorWindow;
  private readonly timers: NodeJS.Timeout[] = [];
  /** The poll in flight per proxy: a timer skips it, pollOnce waits for it (`snapshot` polls right after start). */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Stopped: a poll still in flight then stores nothing (the store may be closing under it). */
  private stopped = false;

  constructor(private readonly opts: CapacityServiceOptions) {
    this.now = opts.now ?? (() => new Date());
    this.hist = new CapacityHistory(opts.store.sql);
    this.windows = new FleetWindows({
      history: this.hist,
      now: this.now,
      promGetter: (name) => {
        const cfg = this.opts.proxies[name];
        return cfg ? this.promGetter(name, cfg, Math.max(cfg.timeoutMs ?? 10_000, 10_000)) : null;
      },
      onRead: () => this.opts.onWindowRead?.(),
      readRows: (what, fn) => this.write(what, fn),
    });
    this.errorWindow = new ErrorWindow((proxy, host, from, to) => this.write('reading the fleet\'s recent error counts', () => this.hist.counterRows(proxy, host, from, to)) ?? []);
  }

  /** Prune, poll everything once, then poll each proxy on its interval and prune on a schedule. */
  start(): void {
    this.stopped = false;
    this.prune(this.now());
    for (const [name, cfg] of Object.entries(this.opts.proxies)) {
      void this.pollProxy(name, cfg);
      this.timers.push(setInterval(() => void this.pollProxy(name, cfg), Math.max(cfg.every, 250)));
    }
    this.timers.push(setInterval(() => this.prune(this.now()), this.opts.pruneEveryMs ?? 3_600_000));
  }

  /** Stop polling and pruning. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
  }

  /** Poll every proxy once, now. */
  async pollOnce(): Promise<void> {
    await Promise.all(Object.entries(this.opts.proxies).map(([name, cfg]) => this.pollProxy(name, cfg)));
  }

  /** The latest capacity of every (proxy, host), sorted. */
  current(): Capacity[] {
    return [...this.latest.values()].sort((a, b) => a.proxy.localeCompare(b.proxy) || a.host.localeCompare(b.host));
  }

  /**
   * Downsampled history for the charts, with warnings: polled proxies from the store, prometheus
   * proxies from Prometheus's range queries (a failed one is a warning naming the query).
   */
  async history(input: Pick<CommandInput<'capacity.history'>, 'range' | 'proxy' | 'host'> & { maxPoints?: number }): Promise<CommandOutput<'capacity.history'>> {
    const now = this.now();
    const out = historyOutput(this.hist, input, now, this.current());
    const proms = Object.entries(this.opts.proxies).filter(([name, cfg]) => cfg.kind === 'prometheus' && (input.proxy === undefined || input.proxy === name));
    if (proms.length === 0) return out;
    const to = now.getTime();
    const from = to - RANGE_MS[input.range];
    const answers = await Promise.all(
      proms.map(([name, cfg]) => {
        const get = this.promGetter(name, cfg, Math.max(cfg.timeoutMs ?? 10_000, 10_000));
        if (!get) return { series: [], warnings: [`proxy "${name}": host "${cfg.host ?? ''}" is not reachable (its connection is down); its history is unknown until it reconnects.`] };
        return prometheusHistory(get, name, cfg.url, { selector: cfg.selector, host: input.host, from, to, maxPoints: input.maxPoints });
      }),
    );
    return { ...out, series: [...out.series, ...answers.flatMap((a) => a.series)], warnings: [...out.warnings, ...answers.flatMap((a) => a.warnings)] };
  }

  /** How to GET from a prometheus proxy's server: through its host, or directly; null while the host is down. */
  private promGetter(name: string, cfg: ProxyConfig, timeoutMs: number): PromGetter | null {
    const fetch = cfg.host === undefined ? directFetch : this.opts.getFor(cfg.host);
    if (!fetch) return null;
    return async (path, maxBytes) => {
      const r = await fetch(joinUrl(cfg.url, path), timeoutMs, maxBytes);
      return { status: r.status, body: r.body };
    };
  }

  /**
   * The fleet of the named proxies (all when null) between `from` and `to` (ms): its trouble and
   * the stretches Loopdeck has no history of it for — what a bad phase's window is laid against
   * (main/core/loops/attribution.ts). Polled proxies from the stored rollups (one query each over
   * the window); prometheus proxies from one range query each, asked once and kept.
   */
  fleetIn(proxies: readonly string[] | null, from: number, to: number): FleetWindow {
    const used = Object.entries(this.opts.proxies)
      .filter(([name]) => proxies === null || proxies.includes(name))
      .map(([name, cfg]) => ({ name, kind: cfg.kind, url: cfg.url, ...(cfg.selector !== undefined ? { selector: cfg.selector } : {}), limits: limitsFor(cfg).limits }));
    return this.windows.window(used, from, to);
  }

  /** Prometheus's history of a bad phase's window is being read. */
  get windowsPending(): boolean {
    return this.windows.pending;
  }

  /** Resolves when the windows being read now are read. */
  windowsSettled(): Promise<void> {
    return this.windows.settled();
  }

  /** Drop history past its retention at `now`. */
  prune(now: Date): void {
    this.write('pruning the fleet\'s capacity history', () => this.hist.prune(now.getTime()));
  }

  /**
   * A write to the capacity history, which a full or damaged data folder must not turn into an
   * uncaught error out of a timer: the store says so as the data folder's problem (noteFailure),
   * the live figures go on, and the next poll writes again. Null when the write failed.
   */
  private write<T>(what: string, fn: () => T): T | null {
    try {
      return fn();
    } catch (err) {
      if (this.opts.store.noteFailure(err, what) === null) log.warn(`Capacity: ${what} failed.`, err);
      return null;
    }
  }

  private adapter(cfg: ProxyConfig): Adapter {
    if (cfg.kind === 'crossbar') return pollCrossbar;
    if (cfg.kind === 'llama-server') return pollLlamaServer;
    if (cfg.kind === 'vllm') return pollVllm;
    return gatewayAdapter(cfg.shedThreshold ?? null);
  }

  private pollProxy(name: string, cfg: ProxyConfig): Promise<void> {
    const running = this.inFlight.get(name);
    if (running) return running;
    const poll = this.pollProxyNow(name, cfg).finally(() => this.inFlight.delete(name));
    this.inFlight.set(name, poll);
    return poll;
  }

  private async pollProxyNow(name: string, cfg: ProxyConfig): Promise<void> {
    const now = this.now();
    if (cfg.kind === 'prometheus') {
      const get = this.promGetter(name, cfg, cfg.timeoutMs ?? Math.min(Math.max(cfg.every, 1000), 10_000));
      const result = get
        ? await pollPrometheus(get, name, now, cfg.url, cfg.selector, { pinned: pinnedAt(this.opts.now) !== null })
        : downResult(name, cfg.kind, now, `proxy "${name}": host "${cfg.host ?? ''}" is not reachable (its connection is down); capacity is unknown until it reconnects.`);
      if (!this.stopped) this.apply(name, cfg, this.expandDown(name, bounded(result)), now);
      return;
    }
    const fetch = cfg.host === undefined ? directFetch : this.opts.getFor(cfg.host);
    let result: PollResult;
    if (!fetch) {
      result = downResult(name, cfg.kind, now, `proxy "${name}": host "${cfg.host}" is not reachable (its connection is down); capacity is unknown until it reconnects.`);
    } else {
      const timeoutMs = cfg.timeoutMs ?? Math.min(Math.max(cfg.every, 1000), 10_000);
      const get = async (path: string) => {
        const r = await fetch(joinUrl(cfg.url, path), timeoutMs);
        return { status: r.status, body: r.body };
      };
      try {
        result = await this.adapter(cfg)(get, name, now, cfg.url);
      } catch (e) {
        result = downResult(name, cfg.kind, now, `proxy "${name}": GET ${cfg.url}: ${messageOf(e)}`);
      }
    }
    if (!this.stopped) this.apply(name, cfg, this.expandDown(name, bounded(result)), now);
  }

  /** A crossbar (or Prometheus) that did not answer takes down every backend it was known to have. */
  private expandDown(proxy: string, result: PollResult): PollResult {
    const only = result.capacity[0];
    if (result.capacity.length !== 1 || !only || only.up || only.host !== proxy || (only.kind !== 'crossbar' && only.kind !== 'prometheus')) return result;
    const known = [...this.latest.values()].filter((c) => c.proxy === proxy && c.host !== proxy);
    if (known.length === 0) return result;
    const t = result.samples[0]?.t ?? Date.now();
    return {
      capacity: known.map((c) => ({ ...c, up: false, slotsBusy: null, inflight: null, queued: null, ...(c.kind === 'prometheus' ? { tokensPerSecond: null } : {}), error: only.error, polledAt: only.polledAt, missing: [] })),
      samples: known.map((c): Sample => ({ proxy, host: c.host, t, up: false, slotsTotal: c.slotsTotal, slotsBusy: null, inflight: null, queued: null, counters: null })),
      usage: [],
    };
  }

  private apply(proxy: string, cfg: ProxyConfig, result: PollResult, now: Date): void {
    // A prometheus proxy's past is Prometheus's own: nothing of it is stored here.
    if (cfg.kind === 'prometheus') result = { ...result, samples: [], usage: [] };
    const fresh = this.write('storing the fleet\'s usage rows', () => this.hist.addUsage(proxy, result.usage)) ?? [];
    const usageKnown = cfg.kind === 'crossbar' && result.capacity.some((c) => !c.missing.includes('usage'));
    const tokenRates = new Map<string, number | null>();
    const stored: StoredSample[] = result.samples.map((s) => {
      const k = key(s.proxy, s.host);
      const prev = this.counters.get(k);
      let requests: number | null = null;
      let errors: Record<string, number> | null = null;
      let spanMs = 0;
      if (s.counters && prev?.counters) {
        ({ requests, errors } = deltas(s.counters, prev.counters));
        spanMs = s.t - prev.t;
      } else if (!s.counters && s.up && usageKnown && prev) {
        ({ requests, errors } = usageDeltas(fresh, s.host));
        spanMs = s.t - prev.t;
      }
      if (s.counters || (s.up && usageKnown)) this.counters.set(k, { t: s.t, counters: s.counters });
      const { tokens, spanMs: tokenSpanMs, rate } = this.tokenCounters.observe(k, s.t, s.generatedTokens ?? null, s.up);
      if (s.generatedTokens !== undefined) tokenRates.set(k, rate);
      return {
        proxy: s.proxy, host: s.host, t: s.t, up: s.up, slotsTotal: s.slotsTotal, slotsBusy: s.slotsBusy, inflight: s.inflight, queued: s.queued,
        spanMs, requests, errors: boundErrors(errors), kvCachePct: s.kvCachePct ?? null, tokens, tokenSpanMs,
      };
    });
    this.write('storing the fleet\'s capacity samples', () => this.hist.record(stored));
    // A prometheus proxy stores no samples: it has no error window (its counters are Prometheus's).
    const { limits, windowMs } = limitsFor(cfg);
    const shares = new Map(stored.map((s) => [key(s.proxy, s.host), this.errorWindow.observe(s.proxy, s.host, s.t, s.requests, s.errors, windowMs)]));

    let changed = false;
    const seen = new Set<string>();
    const planned = this.opts.maintenanceOf?.(proxy, now) ?? null;
    for (const c of result.capacity) {
      const k = key(c.proxy, c.host);
      seen.add(k);
      const prev = this.latest.get(k);
      const share = shares.get(k);
      const rate = tokenRates.get(k);
      // The mark is this poll's: one a row kept from an earlier poll (a proxy gone down) had is not.
      const { maintenance: _earlier, ...polled } = c;
      const next: Capacity = {
        ...polled,
        since: prev && prev.up === c.up ? prev.since : now.toISOString(),
        ...(share !== undefined ? { errorShare: share } : {}),
        ...(rate !== undefined && c.up ? { tokensPerSecond: rate } : {}),
        limits,
        ...(planned ? { maintenance: planned } : {}),
      };
      if (!prev || comparable(prev) !== comparable(next)) changed = true;
      this.latest.set(k, next);
    }
    // Backends a proxy no longer lists are gone; the proxy's own placeholder goes once it answers.
    for (const [k, c] of this.latest) {
      if (c.proxy === proxy && !seen.has(k)) {
        this.latest.delete(k);
        this.errorWindow.forget(c.proxy, c.host);
        this.tokenCounters.forget(k);
        changed = true;
      }
    }
    if (changed) this.opts.onChange(this.current());
  }
}

