import type { IncidentLimits } from '../../../../shared/domain';
import { troubleEpisodes, type TroubleEpisode } from './trouble-episodes';
import { uncovered, type Span } from '../../state/spans';
import type { CapacityHistory } from './history-store';
import { MINUTE_MS, RETENTION_MS, TEN_MINUTES_MS } from './history-store';
import { PromMatrix, promLabel, promQuery, stepFor, type PromGetter } from '../sources/prometheus-source';
import { prometheusQueries } from '../sources/prometheus-queries';
import { messageOf } from '../../../../shared/errors';

// What Loopdeck knows of the fleet over a bad phase's window (issue 40, item 3): the trouble it
// shows and the parts it has no history for. A polled proxy's past is the minute rollups Loopdeck
// stored while it ran, so a night it slept through has none. A prometheus proxy's past is
// Prometheus's own: one range query of `up` per (proxy, phase window), bounded in points and
// bytes, asked once and kept, so a night Loopdeck slept through is read as if it had watched.

/** Points a window's `up` range query asks for at most (its step grows with the window). */
export const TROUBLE_POINTS = 500;
/** The most bytes of its answer (500 points of a few hundred instances). */
export const MAX_TROUBLE_BODY = 4 * 1024 * 1024;
/** Windows kept (answers and failures); the oldest asked is dropped past it. */
export const WINDOWS_KEPT = 256;
/** A window still growing (a running phase) is asked again only when its end moved past this. */
export const WINDOW_REFRESH_MS = 5 * 60_000;
/** A failed query is asked again after this. */
export const RETRY_MS = 5 * 60_000;
/** Queries in flight at once, over all proxies. */
export const MAX_IN_FLIGHT = 4;

/** The fleet over a window: trouble on it, and the stretches with no history of it. */
export interface FleetWindow {
  readonly episodes: readonly TroubleEpisode[];
  readonly unwatched: readonly Span[];
}

/** One proxy, as the fleet windows need it. */
export interface WindowProxy {
  readonly name: string;
  readonly kind: string;
  readonly url: string;
  readonly selector?: string;
  readonly limits: IncidentLimits;
}

/** What a prometheus window query found (up to `to`), or why it failed. */
type Asked =
  | { readonly state: 'done'; readonly to: number; readonly episodes: readonly TroubleEpisode[]; readonly covered: readonly Span[] }
  | { readonly state: 'failed'; readonly to: number; readonly at: number; readonly error: string };

/** What the fleet windows need of their service. */
export interface FleetWindowsOptions {
  readonly history: CapacityHistory;
  readonly now: () => Date;
  /** How to GET from a prometheus proxy's server; null while its host is not reachable. */
  readonly promGetter: (proxy: string) => PromGetter | null;
  /** A prometheus window was read (or failed): bad phases put down to `unknown` may now be known. */
  readonly onRead: () => void;
  /** A read of the stored history failed (a damaged data folder): said by the store, none used. */
  readonly readRows: <T>(what: string, fn: () => T) => T | null;
}

/** The fleet's trouble and its unwatched stretches over a phase's window, from stored rollups or Prometheus. */
export class FleetWindows {
  private readonly asked = new Map<string, Asked>();
  /** Windows being asked now: an answer kept meanwhile is still used (a growing window does not flap). */
  private readonly asking = new Map<string, Promise<void>>();

  constructor(private readonly opts: FleetWindowsOptions) {}

  /** Prometheus windows being read: a one-shot `snapshot` waits for them. */
  get pending(): boolean {
    return this.asking.size > 0;
  }

  /** Resolves when the windows being read now are read (each query is bounded by its timeout). */
  async settled(): Promise<void> {
    await Promise.all(this.asking.values());
  }

  /** The fleet of `proxies` between `from` and `to` (ms): trouble, and the parts without history. */
  window(proxies: readonly WindowProxy[], from: number, to: number): FleetWindow {
    const episodes: TroubleEpisode[] = [];
    const unwatched: Span[] = [];
    for (const p of proxies) {
      const one = p.kind === 'prometheus' ? this.fromPrometheus(p, from, to) : this.fromRollups(p, from, to);
      episodes.push(...one.episodes);
      unwatched.push(...one.unwatched);
    }
    return { episodes, unwatched };
  }

  /** A polled proxy: its minute rollups (ten-minute ones past their week); a bucket with no row was not polled. */
  private fromRollups(p: WindowProxy, from: number, to: number): FleetWindow {
    const resolution = from >= this.opts.now().getTime() - (RETENTION_MS[MINUTE_MS] ?? 0) ? MINUTE_MS : TEN_MINUTES_MS;
    const rows = this.opts.readRows("reading the fleet's history over a phase", () => this.opts.history.rows(resolution, from - resolution, to, p.name)) ?? [];
    const episodes: TroubleEpisode[] = [];
    let start = 0;
    for (let i = 1; i <= rows.length; i++) {
      // Rows come by host, then time: one host's run at a time.
      if (i < rows.length && rows[i]?.host === rows[start]?.host) continue;
      episodes.push(...troubleEpisodes(rows.slice(start, i), resolution, p.limits));
      start = i;
    }
    // A bucket a poll wrote covers its width; a poll a little late leaves no gap (one bucket of slack).
    const covered = rows.map((r) => ({ since: r.t, until: r.t + 2 * resolution }));
    return { episodes, unwatched: uncovered(covered, from, to) };
  }

  /** A prometheus proxy: the window's answer if asked, else asked now (the window unwatched until it comes). */
  private fromPrometheus(p: WindowProxy, from: number, to: number): FleetWindow {
    const key = `${p.name}\0${from}`;
    const got = this.asked.get(key);
    const now = this.opts.now().getTime();
    const stale = got === undefined || (got.state === 'done' ? to > got.to + WINDOW_REFRESH_MS : now - got.at >= RETRY_MS);
    if (stale && !this.asking.has(key)) this.ask(p, key, from, to);
    if (got?.state !== 'done') return { episodes: [], unwatched: [{ since: from, until: to }] };
    return { episodes: got.episodes, unwatched: uncovered(got.covered, from, Math.min(to, got.to)).concat(to > got.to ? [{ since: got.to, until: to }] : []) };
  }

  private ask(p: WindowProxy, key: string, from: number, to: number): void {
    if (this.asking.size >= MAX_IN_FLIGHT) return;
    const get = this.opts.promGetter(p.name);
    if (!get) return;
    const read = prometheusWindow(get, p, from, to)
      .then(
        (found) => this.remember(key, { state: 'done', to, ...found }),
        (err: unknown) => this.remember(key, { state: 'failed', to, at: this.opts.now().getTime(), error: messageOf(err) }),
      )
      .finally(() => {
        this.asking.delete(key);
        this.opts.onRead();
      });
    this.asking.set(key, read);
  }

  private remember(key: string, value: Asked): void {
    this.asked.delete(key);
    this.asked.set(key, value);
    while (this.asked.size > WINDOWS_KEPT) {
      const oldest = this.asked.keys().next().value;
      if (oldest === undefined) break;
      this.asked.delete(oldest);
    }
  }
}

/**
 * One range query of `up` over a window: each instance's stretches at 0 are `down` episodes, and
 * the times Prometheus answered for any instance are the window's covered part. Throws an Error
 * naming the query when Prometheus does not answer.
 */
export async function prometheusWindow(get: PromGetter, p: WindowProxy, from: number, to: number): Promise<{ episodes: TroubleEpisode[]; covered: Span[] }> {
  const step = Math.max(15, stepFor(to - from, TROUBLE_POINTS));
  const query = prometheusQueries(p.selector).up;
  const params = { start: String(from / 1000), end: String(to / 1000), step: String(step) };
  const parsed = PromMatrix.safeParse(await promQuery(get, promLabel(p.name, p.url), '/api/v1/query_range', query, params, MAX_TROUBLE_BODY));
  if (!parsed.success) throw new Error(`${promLabel(p.name, p.url)}: query \`${query}\`: the answer is not a range matrix`);
  const width = step * 1000;
  const episodes: TroubleEpisode[] = [];
  const covered: Span[] = [];
  for (const series of parsed.data) {
    const host = series.metric.instance;
    let down: { since: number; until: number } | null = null;
    for (const [ts, value] of series.values) {
      const t = Math.round(ts * 1000);
      covered.push({ since: t, until: t + width });
      if (host === undefined) continue;
      const isDown = Number(value) === 0;
      if (isDown && down && t <= down.until) down.until = t + width;
      else if (isDown) {
        if (down) episodes.push({ proxy: p.name, host, what: 'down', since: down.since, until: down.until });
        down = { since: t, until: t + width };
      } else if (down) {
        episodes.push({ proxy: p.name, host, what: 'down', since: down.since, until: down.until });
        down = null;
      }
    }
    if (down && host !== undefined) episodes.push({ proxy: p.name, host, what: 'down', since: down.since, until: down.until });
  }
  return { episodes, covered };
}
