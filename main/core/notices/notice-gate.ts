import type { Capacity, PullRequest } from '../../../shared/domain';

/** Notices are derived at least this often (ms) for the rules the clock drives, even when nothing changed. */
const EVERY_MS = 5000;

/** What the notices read that is not a delta: compared by reference, as their owners replace them. */
export interface GateInputs {
  readonly changedSomething: boolean;
  readonly prs: readonly PullRequest[];
  readonly capacity: readonly Capacity[];
  readonly caughtUp: boolean;
}

/**
 * When the notices must be derived: when something they read changed, or every few seconds for the
 * rules the clock drives (a host down for five minutes) — not on every poll of a quiet day.
 */
export class NoticeGate {
  private last: { at: number; prs: readonly PullRequest[] | null; capacity: readonly Capacity[] | null; caughtUp: boolean | null } = {
    at: -Infinity,
    prs: null,
    capacity: null,
    caughtUp: null,
  };
  private drills = false;

  /** A drill run changed (its notices read every run). */
  drillsChanged(): void {
    this.drills = true;
  }

  /** A pre-flight ran (its notice is due at once, not at the next clock tick). */
  preflightChanged(): void {
    this.drills = true;
  }

  /** Whether to derive now; when it says yes, it takes these inputs as the ones derived from. */
  due(now: Date, inputs: GateInputs): boolean {
    const l = this.last;
    const due =
      inputs.changedSomething || this.drills || inputs.prs !== l.prs || inputs.capacity !== l.capacity || inputs.caughtUp !== l.caughtUp || Math.abs(now.getTime() - l.at) >= EVERY_MS;
    if (due) {
      this.last = { at: now.getTime(), prs: inputs.prs, capacity: inputs.capacity, caughtUp: inputs.caughtUp };
      this.drills = false;
    }
    return due;
  }
}
