import type { Cycle, PullRequest } from '../../../shared/domain';
import { derivePullRequests, prEvidenceKey, type DeliverRecord } from './pull-requests';

const PR_ORDER = { ready: 0, incomplete: 1, pending: 2 } as const;

/**
 * The loops' pull requests, derived again only for a loop whose PR evidence changed: a cycle's
 * sightings or deliver start (prEvidenceKey), a cycle leaving the window, or its deliver record.
 * A transcript line seldom names a PR, so most changes derive nothing here.
 */
export class PrTracker {
  private readonly byLoop = new Map<string, readonly PullRequest[]>();
  /** Each cycle's PR evidence, by loop and date. */
  private readonly evidence = new Map<string, Map<string, string>>();
  private readonly dirty = new Set<string>();
  private current: readonly PullRequest[] = [];

  /** Every loop's PRs, ready first, newest first within a status. */
  get prs(): readonly PullRequest[] {
    return this.current;
  }

  /** A loop's cycles changed: note whether its PRs may have. */
  noteCycles(loop: string, upserted: readonly Cycle[], removed: readonly string[]): void {
    const evidence = this.evidence.get(loop) ?? new Map<string, string>();
    this.evidence.set(loop, evidence);
    if (removed.length > 0) this.dirty.add(loop);
    for (const d of removed) evidence.delete(d);
    for (const c of upserted) {
      const key = prEvidenceKey(c);
      if (evidence.get(c.date) !== key) this.dirty.add(loop);
      evidence.set(c.date, key);
    }
  }

  /** A loop's deliver record changed. */
  noteDeliverRecord(loop: string): void {
    this.dirty.add(loop);
  }

  /**
   * Derive the PRs of the loops noted since the last call; the new list when it changed, else null.
   * `loops` gives every loop's name (in order), cycles and deliver record.
   */
  /** Whether a loop's PR evidence changed since the last derive (else `derive` has nothing to do). */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  derive(loops: ReadonlyMap<string, { cycles: readonly Cycle[]; deliverRecord: DeliverRecord | null }>, now: Date): readonly PullRequest[] | null {
    if (this.dirty.size === 0) return null;
    for (const name of this.dirty) {
      const loop = loops.get(name);
      if (loop) this.byLoop.set(name, derivePullRequests({ loop: name, cycles: loop.cycles, deliverRecord: loop.deliverRecord, now }));
    }
    this.dirty.clear();
    const prs = [...loops.keys()].flatMap((name) => this.byLoop.get(name) ?? []);
    prs.sort((a, b) => PR_ORDER[a.status] - PR_ORDER[b.status] || (b.since ?? '').localeCompare(a.since ?? ''));
    // The list is small (one entry per URL a deliver phase named) and rarely derived: compared whole.
    if (JSON.stringify(prs) === JSON.stringify(this.current)) return null;
    this.current = prs;
    return prs;
  }
}
