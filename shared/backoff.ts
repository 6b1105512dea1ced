// The one backoff policy: SSH reconnects, Pushover retries and the renderer's WebSocket reconnect
// all wait this way. It lives in shared/ because the renderer may import nothing from main/.

/** How a backoff grows: from `baseMs`, doubling per attempt, never above `maxMs`. */
export interface BackoffPolicy {
  /** The wait before the first retry (attempt 0), before jitter. */
  readonly baseMs: number;
  /** The longest wait, after jitter. */
  readonly maxMs: number;
  /**
   * Spread around the exponential figure, as a fraction (0.25 = ±25 %), so many clients failing
   * together (a host reboot, a proxy restart) do not retry in lockstep. Default 0.25; 0 for none.
   */
  readonly jitter?: number;
  /** Uniform in [0, 1); injectable so tests get exact figures. */
  readonly random?: () => number;
}

/** The wait in ms before retry number `attempt` (0-based): exponential with jitter, capped. */
export function backoffDelay(attempt: number, policy: BackoffPolicy): number {
  const { baseMs, maxMs, jitter = 0.25, random = Math.random } = policy;
  // The exponent is capped so a long outage cannot overflow to Infinity (or NaN with jitter).
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(Math.floor(attempt) || 0, 0), 30));
  const r = random();
  // A random source that misbehaves (NaN, out of range) gets the middle, not a NaN timer.
  const u = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0.5;
  const jittered = exp * (1 - jitter + 2 * jitter * u);
  return Math.round(Math.min(maxMs, Math.max(0, jittered)));
}
