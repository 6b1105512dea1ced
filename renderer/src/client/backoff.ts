import { backoffDelay as sharedBackoffDelay } from '../../../shared/backoff';

/** First reconnect delay. */
export const BACKOFF_BASE_MS = 250;
/** Longest reconnect delay. */
export const BACKOFF_MAX_MS = 5000;

/**
 * Delay before reconnect attempt `attempt` (0-based): 250 ms doubling to 5 s, jittered by ±25 %
 * so many consoles restarted together do not reconnect in lockstep (the shared backoff policy).
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  return sharedBackoffDelay(attempt, { baseMs: BACKOFF_BASE_MS, maxMs: BACKOFF_MAX_MS, random });
}
