/**
 * How far back a host's tokens a second is averaged. A llama.cpp server adds a request's tokens to
 * its counter when the request finishes, and vLLM once an engine step, so the rate between two
 * polls 10 s apart swings between 0 and a burst; over a minute it reads as the load it is.
 */
export const TOKEN_RATE_WINDOW_MS = 60_000;

interface Point {
  readonly t: number;
  readonly total: number;
}

/** What one observation of a generated-token counter gives. */
export interface TokenObservation {
  /** Tokens since the previous observation and the time they cover (stored, as the history's deltas); null, 0 when unknown. */
  readonly tokens: number | null;
  readonly spanMs: number;
  /** Tokens a second over the last TOKEN_RATE_WINDOW_MS (at least the last two observations); null until there are two. */
  readonly rate: number | null;
}

const NONE: TokenObservation = { tokens: null, spanMs: 0, rate: null };

/**
 * Each (proxy, host)'s cumulative generated-token counter over the rate window: deltas for the
 * history and tokens a second for the card. A counter that went down was reset (a restart): it
 * counts from zero at the previous observation. Bounded: a window's observations a host.
 */
export class TokenCounters {
  private readonly seen = new Map<string, Point[]>();

  /** Observe a host's counter at `t` (ms); null or a host down forgets it. */
  observe(key: string, t: number, total: number | null, up: boolean): TokenObservation {
    if (total === null || !up) {
      this.seen.delete(key);
      return NONE;
    }
    let points = this.seen.get(key) ?? [];
    const prev = points[points.length - 1];
    if (prev && t <= prev.t) return NONE;
    let tokens: number | null = null;
    if (prev && total < prev.total) {
      points = [{ t: prev.t, total: 0 }];
      tokens = total;
    } else if (prev) tokens = total - prev.total;
    points.push({ t, total });
    // Keep the newest point at or before the window's start, so the rate spans the whole window.
    while (points.length > 2 && (points[1] as Point).t <= t - TOKEN_RATE_WINDOW_MS) points.shift();
    this.seen.set(key, points);
    const first = points[0] as Point;
    const rate = points.length >= 2 ? Math.round(((total - first.total) * 1_000_000) / (t - first.t)) / 1000 : null;
    return { tokens, spanMs: prev ? t - prev.t : 0, rate };
  }

  /** Forget a host that is gone. */
  forget(key: string): void {
    this.seen.delete(key);
  }
}
