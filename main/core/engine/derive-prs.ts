import type { LoopState, PullRequest } from '../../../shared/domain';
import type { DeliverRecord } from '../prs/pull-requests';
import type { PrTracker } from '../prs/pr-tracker';

/**
 * The PR list derived again from each loop's cycles and its ledgers' deliver record, or null when
 * it did not change (PrTracker.derive: only the loops whose PR evidence moved are looked at).
 */
export function derivePrs(tracker: PrTracker, loops: Iterable<LoopState>, deliverRecordOf: (loop: string) => DeliverRecord | null, now: Date): readonly PullRequest[] | null {
  const byLoop = new Map([...loops].map((l) => [l.name, { cycles: l.cycles, deliverRecord: deliverRecordOf(l.name) }] as const));
  return tracker.derive(byLoop, now);
}
