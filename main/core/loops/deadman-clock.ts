import type { Cycle, Deadman } from '../../../shared/domain';
import type { LoopConfig } from '../config/schema';
import { deriveDeadman } from './deadman';

/** The dead-man is re-derived from the clock at most this often (ms) when no cycle changed. */
const EVERY_MS = 1000;
/** The dead-man looks at the newest cycles only: the fire's own cycle and the one before it. */
const NEWEST_CYCLES = 8;

/** Whether two dead-man states say the same. */
export function sameDeadman(a: Deadman | null | undefined, b: Deadman | null): boolean {
  if (!a || !b) return a === b;
  return a.state === b.state && a.expectedAt === b.expectedAt && a.lastFireAt === b.lastFireAt && a.reason === b.reason;
}

/**
 * Each loop's dead-man from the clock and its newest cycles: derived at most once a second unless
 * the loop's cycles changed, never from a year of them.
 */
export class DeadmanClock {
  private readonly at = new Map<string, number>();

  /** The loop's dead-man as of `now`, or undefined when it was not due (the last one stands). */
  derive(loop: string, cfg: LoopConfig, cycles: readonly Cycle[], now: Date, cyclesMoved: boolean): Deadman | undefined {
    const last = this.at.get(loop);
    if (!cyclesMoved && last !== undefined && Math.abs(now.getTime() - last) < EVERY_MS) return undefined;
    this.at.set(loop, now.getTime());
    return deriveDeadman({ schedule: cfg.schedule, timezone: cfg.timezone, graceMs: cfg.grace, capMs: cfg.cap, capsMs: cfg.caps, cycles: cycles.slice(0, NEWEST_CYCLES), now });
  }
}
