import type { ErrorShare } from '../../../../shared/domain';
import { serverFailures } from '../../../../shared/fleet-incidents';

/** One sample's counter deltas: requests and server failures over the span ending at `t`. */
interface Entry {
  readonly t: number;
  readonly requests: number;
  readonly errors: number;
}

interface Series {
  readonly entries: Entry[];
  /** Index of the oldest entry still in the window (entries before it are dropped in batches). */
  head: number;
  requests: number;
  errors: number;
}

/** Reads the stored counter deltas of one (proxy, host) in `from < t <= to` (the history store's `counterRows`). */
export type WindowSeed = (proxy: string, host: string, from: number, to: number) => readonly { t: number; requests: number; errors: string | null }[];

const key = (proxy: string, host: string): string => `${proxy}\0${host}`;

/**
 * Server failures and requests over a sliding window per (proxy, host), as running sums: each poll
 * adds its sample's deltas and drops what fell out of the window, so the cost of a poll is its own
 * samples, never the history. A series seen for the first time (a start, a new host) starts from
 * the stored samples of its window, so a restart does not forget a burst in progress.
 */
export class ErrorWindow {
  private readonly series = new Map<string, Series>();

  constructor(private readonly seed: WindowSeed) {}

  /**
   * Take one stored sample (already written, so a first call's seed includes it) and answer the
   * share over `(t - windowMs, t]`; null while no counted sample is in the window.
   */
  observe(proxy: string, host: string, t: number, requests: number | null, errors: Readonly<Record<string, number>> | null, windowMs: number): ErrorShare | null {
    const k = key(proxy, host);
    let s = this.series.get(k);
    if (!s) {
      s = { entries: [], head: 0, requests: 0, errors: 0 };
      for (const r of this.seed(proxy, host, t - windowMs, t)) {
        const failed = r.errors === null ? 0 : serverFailures(JSON.parse(r.errors) as Record<string, number>);
        this.push(s, { t: r.t, requests: r.requests, errors: failed });
      }
      this.series.set(k, s);
    } else if (requests !== null) {
      this.push(s, { t, requests, errors: errors === null ? 0 : serverFailures(errors) });
    }
    this.drop(s, t - windowMs);
    return s.entries.length > s.head ? { errors: s.errors, requests: s.requests, windowMs } : null;
  }

  /** A (proxy, host) no longer polled: its window goes. */
  forget(proxy: string, host: string): void {
    this.series.delete(key(proxy, host));
  }

  private push(s: Series, e: Entry): void {
    s.entries.push(e);
    s.requests += e.requests;
    s.errors += e.errors;
  }

  private drop(s: Series, before: number): void {
    while (s.head < s.entries.length && (s.entries[s.head] as Entry).t <= before) {
      const e = s.entries[s.head] as Entry;
      s.requests -= e.requests;
      s.errors -= e.errors;
      s.head++;
    }
    // Compact now and then: the array holds at most a window's samples plus this slack.
    if (s.head > 64 && s.head * 2 > s.entries.length) {
      s.entries.splice(0, s.head);
      s.head = 0;
    }
    if (s.head === s.entries.length) {
      // Floating sums drift by rounding: an empty window is exactly zero.
      s.requests = 0;
      s.errors = 0;
    }
  }
}
