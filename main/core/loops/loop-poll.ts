import type { Cycle, LoopState } from '../../../shared/domain';

// What one poll of a loop's runs folder reads and returns, and when the clock alone changes a cycle.

/** Files whose content a watcher saw change, and folders whose listing it saw change. */
export interface ReadChanges {
  readonly files: ReadonlySet<string>;
  readonly dirs: ReadonlySet<string>;
}

/**
 * How much a poll reads: everything (the default); nothing (`quiet`: the host watches every folder
 * it would read and saw no change); or `only` what its watcher saw change.
 */
export interface ReadScope {
  readonly quiet?: boolean;
  readonly only?: ReadChanges;
}

/** What one poll found: the loop's cycles (newest first) and which of them changed. */
export interface LoopPoll extends LoopState {
  /** Cycles new to the window or whose derived state changed, newest first. */
  readonly upserted: readonly Cycle[];
  /** Dates that left the window (folder gone, or pushed out by newer cycles). */
  readonly removed: readonly string[];
}

/** Whether the clock alone can change a cycle's derived state (a running phase turns incomplete at its cap). */
export function clockBound(c: Cycle): boolean {
  return c.status === 'running' || c.phases.some((p) => p.status === 'running');
}

/**
 * The first moment after `nowMs` at which the clock can change a cycle's derived state: a phase's
 * start plus its cap (`capOf`, the phase's own; a running phase turns incomplete), or the cycle's earliest start plus the cap
 * (a cycle waiting on a pending phase does). A phase without a known start stays young.
 */
export function nextClockChange(c: Cycle, capMs: number, nowMs: number, capOf: (phase: string) => number = () => capMs): number {
  const own = c.phases.map((p) => ({ t: Date.parse(p.startedAt ?? ''), cap: capOf(p.name) })).filter((s) => !Number.isNaN(s.t));
  const starts = own.map((s) => s.t);
  const flips = [...own.map((s) => s.t + s.cap), ...(starts.length ? [Math.min(...starts) + capMs] : [])].filter((t) => t > nowMs);
  return flips.length ? Math.min(...flips) : Infinity;
}
