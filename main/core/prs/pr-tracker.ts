import type { Cycle, PrRemote, PullRequest } from '../../../shared/domain';
import { derivePullRequests, prEvidenceKey, type DeliverRecord } from './pull-requests';

const PR_ORDER = { ready: 0, incomplete: 1, pending: 2, merged: 3, closed: 4 } as const;

/**
 * A PR with what GitHub says about it: merged or closed there, it leaves the loop's status (ready
 * to merge is no longer true) and `since` is when it was merged or closed.
 */
export function withRemote(pr: PullRequest, remote: PrRemote | undefined): PullRequest {
  if (!remote) return pr;
  if (remote.state === 'merged') return { ...pr, status: 'merged', since: remote.mergedAt ?? remote.closedAt ?? pr.since, github: remote };
  if (remote.state === 'closed') return { ...pr, status: 'closed', since: remote.closedAt ?? pr.since, github: remote };
  return { ...pr, github: remote };
}

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
  /** The loops' PRs from their evidence alone (what `withRemote` decorates). */
  private derived: readonly PullRequest[] = [];
  /** GitHub's view of PRs, by URL (empty without a `github:` section). */
  private remote: ReadonlyMap<string, PrRemote> = new Map();

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

  /** Whether a loop's PR evidence changed since the last derive (else `derive` has nothing to do). */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  /**
   * Derive the PRs of the loops noted since the last call; the new list when it changed, else null.
   * `loops` gives every loop's name (in order), cycles and deliver record.
   */
  derive(loops: ReadonlyMap<string, { cycles: readonly Cycle[]; deliverRecord: DeliverRecord | null }>, now: Date): readonly PullRequest[] | null {
    if (this.dirty.size === 0) return null;
    for (const name of this.dirty) {
      const loop = loops.get(name);
      if (loop) this.byLoop.set(name, derivePullRequests({ loop: name, cycles: loop.cycles, deliverRecord: loop.deliverRecord, now }));
    }
    this.dirty.clear();
    this.derived = [...loops.keys()].flatMap((name) => this.byLoop.get(name) ?? []);
    return this.decorate();
  }

  /** The PRs as derived from the evidence, before GitHub's view (what to ask GitHub about). */
  get fromEvidence(): readonly PullRequest[] {
    return this.derived;
  }

  /** GitHub's view changed: the new list when that changed it, else null. */
  setRemote(remote: ReadonlyMap<string, PrRemote>): readonly PullRequest[] | null {
    this.remote = remote;
    return this.decorate();
  }

  private decorate(): readonly PullRequest[] | null {
    const prs = this.derived.map((pr) => withRemote(pr, this.remote.get(pr.url)));
    prs.sort((a, b) => PR_ORDER[a.status] - PR_ORDER[b.status] || (b.since ?? '').localeCompare(a.since ?? ''));
    // The list is small (one entry per URL a deliver phase named) and rarely derived: compared whole.
    if (JSON.stringify(prs) === JSON.stringify(this.current)) return null;
    this.current = prs;
    return prs;
  }
}
