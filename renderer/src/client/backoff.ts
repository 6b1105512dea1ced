/** First reconnect delay. */
export const BACKOFF_BASE_MS = 250;
/** Longest reconnect delay. */
export const BACKOFF_MAX_MS = 5000;

/**
 * Delay before reconnect attempt `attempt` (0-based): 250 ms doubling to 5 s, jittered by ±25 %
 * so many consoles restarted together do not reconnect in lockstep. Never above the cap.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const exp = BACKOFF_BASE_MS * 2 ** Math.min(Math.max(attempt, 0), 16);
  const base = Math.min(BACKOFF_MAX_MS, exp);
  const jittered = base * (0.75 + random() * 0.5);
  return Math.round(Math.min(BACKOFF_MAX_MS, Math.max(0, jittered)));
}
