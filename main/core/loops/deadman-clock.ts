import type { Cycle, Deadman } from '../../../shared/domain';
import type { LoopConfig } from '../config/schema';
import { deadmanAt, type DeadmanInput } from './deadman';

/** The dead-man looks at the newest cycles only: the fire's own cycle and the one before it. */
const NEWEST_CYCLES = 8;

/** Whether two dead-man states say the same. */
export function sameDeadman(a: Deadman | null | undefined, b: Deadman | null): boolean {
  if (!a || !b) return a === b;
  return a.state === b.state && a.expectedAt === b.expectedAt && a.lastFireAt === b.lastFireAt && a.reason === b.reason;
}

/**
 * Each loop's dead-man from the clock and its newest cycles, never from a year of them: derived
 * again when the loop's cycles changed, or once the clock reaches the time its last derivation
 * said it holds until (the next fire, the grace's end, a cap; see deadmanAt), not on every poll.
 * A clock that went back derives it again too.
 */
export class DeadmanClock {
  /** When each loop's dead-man was derived, and until when it holds (epoch ms). */
  private readonly held = new Map<string, { readonly at: number; readonly until: number }>();

  /** Whether the loop's last dead-man still stands at `nowMs` (derive would return undefined unless its cycles moved). */
  holds(loop: string, nowMs: number): boolean {
    const held = this.held.get(loop);
    return held !== undefined && held.at <= nowMs && nowMs < held.until;
  }

  /** Derive every loop's dead-man again at its next read (the maintenance windows changed). */
  forget(): void {
    this.held.clear();
  }

  /** The loop's dead-man as of `now`, or undefined when it was not due (the last one stands). */
  derive(loop: string, cfg: LoopConfig, cycles: readonly Cycle[], now: Date, cyclesMoved: boolean, maintenance?: DeadmanInput['maintenance']): Deadman | undefined {
    const nowMs = now.getTime();
    const held = this.held.get(loop);
    if (!cyclesMoved && held !== undefined && held.at <= nowMs && nowMs < held.until) return undefined;
    const { deadman, until } = deadmanAt({ schedule: cfg.schedule, timezone: cfg.timezone, graceMs: cfg.grace, capMs: cfg.cap, capsMs: cfg.caps, cycles: cycles.slice(0, NEWEST_CYCLES), now, ...(maintenance ? { maintenance } : {}) });
    this.held.set(loop, { at: nowMs, until });
    return deadman;
  }
}
