import type { Problem } from '../../../shared/domain';
import type { ProblemKey } from '../state/problem-key';

/**
 * Sources that failed (a runs folder, a loop's ledgers, the drills), one problem each under a
 * stable key, with a revision that moves only when one was added, changed or cleared: the engine
 * publishes problems when it moved, not on every poll.
 */
export class SourceErrors {
  private readonly errors = new Map<ProblemKey, Problem>();
  private changes = 0;

  /** How many times the set changed: compare it, not the problems. */
  get revision(): number {
    return this.changes;
  }

  /** Record the source's problem, or clear it with null. */
  set(key: ProblemKey, problem: Problem | null): void {
    const before = this.errors.get(key);
    if (problem === null) {
      if (before !== undefined && this.errors.delete(key)) this.changes++;
      return;
    }
    if (before?.message === problem.message && before.source === problem.source) return;
    this.errors.set(key, problem);
    this.changes++;
  }

  /** Whether a problem is recorded under the key. */
  has(key: ProblemKey): boolean {
    return this.errors.has(key);
  }

  /** The current problems, in the order they were first recorded. */
  list(): Problem[] {
    return [...this.errors.values()];
  }
}
