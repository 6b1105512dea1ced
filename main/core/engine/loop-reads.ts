import { isEmptyDelta } from '../../../shared/deltas';
import type { EventName, EventPayload } from '../../../shared/contract';
import type { Problem } from '../../../shared/domain';
import type { Config } from '../config/schema';
import type { TrendNights } from '../nights/trend-nights';
import type { LedgerBook } from '../ledgers/ledger-book';
import type { LedgerFollower, LedgerPoll } from '../ledgers/ledger-follower';
import type { LoopFollower } from '../loops/loop-follower';
import type { LoopPoll, ReadScope } from '../loops/loop-poll';
import type { PrTracker } from '../prs/pr-tracker';
import { NotConnectedError } from '../ssh/connection';
import type { HostTable } from '../hosts/host-table';
import type { LoopStates } from './loop-states';
import type { ContractWatch } from './contract-watch';
import type { PollChanges } from './poll-changes';
import type { SourceErrors } from './source-errors';
import type { UnreadLoops } from './unread-loops';
import { loopProblemKey, type ProblemKey } from '../state/problem-key';
import { messageOf } from '../../../shared/errors';

/** The keys a loop's ledgers' and older nights' failures are recorded under (its runs folder's: the loop's name). */

/** Let pending requests in between followers: a first read of a year of history is seconds of work. */
const letRequestsIn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The engine's parts one loop's read goes through. */
export interface LoopReadParts {
  readonly config: Config;
  readonly hosts: HostTable;
  readonly unread: UnreadLoops;
  readonly errors: SourceErrors;
  readonly loops: LoopStates;
  readonly ledgerFollowers: ReadonlyMap<string, LedgerFollower>;
  readonly ledgers: LedgerBook;
  readonly prTracker: PrTracker;
  readonly nights: TrendNights;
  /** The Broken contract list's followers: the loops' nightly branches. */
  readonly contract: Pick<ContractWatch, 'readBranches' | 'readAnchor' | 'branchProblem'>;
  readonly emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
  /** A failure the store or the source under `key` is to report (Engine.failed). */
  readonly failed: (key: ProblemKey, err: unknown, problem: () => Problem) => void;
}

/**
 * One loop's read in a poll: its runs folder, then its ledgers, then a chunk of its older nights
 * for Trends, applied to the loop's state in one publication; or, with its host down since the
 * start, what the store holds from the last run. A link that drops mid-read is the host's state
 * to report, not the loop's.
 */
export class LoopReads {
  constructor(private readonly deps: LoopReadParts) {}

  /**
   * Whether this loop's poll would read nothing and change nothing: its host watches every folder
   * the loop reads and nothing of it woke (a `quiet` scope), its cycles' clocks, its dead-man and
   * its older nights hold nothing due at `nowMs`, and no failure of its is recorded for a read to
   * clear. A poll leaves such loops out, so an idle poll's cost follows what is due, not the fleet.
   */
  idle(follower: LoopFollower, hostScope: ReadScope, nowMs: number): boolean {
    const name = follower.name;
    if (!hostScope.quiet || !this.deps.hosts.reachable(follower.host) || this.deps.unread.never(name)) return false;
    if (follower.quietUntil() <= nowMs || !this.deps.loops.deadmanHolds(name, nowMs) || !this.deps.nights.caughtUp(name)) return false;
    if (this.deps.ledgerFollowers.get(name)?.settled === false) return false;
    const { errors } = this.deps;
    return !errors.has(loopProblemKey.runs(name)) && !errors.has(loopProblemKey.ledgers(name)) && !errors.has(loopProblemKey.nights(name));
  }

  /** One loop's poll (see Engine.pollAll); true when it read more than files a watcher named. */
  async poll(follower: LoopFollower, hostScope: ReadScope, now: Date, changed: PollChanges): Promise<boolean> {
    const named = hostScope.only !== undefined && hostScope.only.dirs.size === 0;
    const readMore = !named;
    // A read of files a watcher named (a line or a few), or of nothing, is short: only a full read
    // (a first one of a year of history is seconds of work) lets pending requests in between.
    if (!named && !hostScope.quiet) await letRequestsIn();
    const name = follower.name;
    if (!this.deps.config.loops[name]) return readMore;
    if (!this.deps.hosts.reachable(follower.host)) {
      // Down since the start, and settled so: what the store holds from the last run, not nothing.
      if (this.deps.unread.never(name) && !this.deps.unread.pending(name, this.deps.hosts.get(follower.host))) this.restore(follower, now, changed);
      this.deps.loops.refreshDeadman(name, now, changed.loops);
      return readMore;
    }
    // The cycles are applied once the ledgers are read: a first read marks a hollow remediate
    // (shared/hollow.ts) in the same publication as its cycle, not in a second one.
    let cyclesRead: LoopPoll | null = null;
    try {
      cyclesRead = await follower.poll(now, hostScope);
      this.deps.errors.set(loopProblemKey.runs(name), null);
    } catch (err) {
      // A link that dropped mid-poll is the host's state to report, not the loop's: the next
      // poll after the reconnect resumes from the committed offsets.
      if (err instanceof NotConnectedError || !this.deps.hosts.reachable(follower.host)) return readMore;
      this.deps.failed(loopProblemKey.runs(name), err, () => ({ source: `loops.${name}`, line: null, message: messageOf(err) }));
    }
    // The ledgers are read even when the runs folder could not be, and apart from it.
    const ledgers = this.deps.ledgerFollowers.get(name);
    if (!ledgers) {
      if (cyclesRead) this.deps.loops.apply(cyclesRead, now, changed.loops);
      this.deps.unread.read(name);
      return readMore;
    }
    if (!named && !hostScope.quiet) await letRequestsIn();
    let backlogMoved = false;
    try {
      const read = await ledgers.poll(now, hostScope);
      if (this.takeLedgers(name, ledgers, read)) {
        backlogMoved = !isEmptyDelta(read.backlog);
        // A backlog table landing can leave findings of its section uncovered that did not move themselves.
        changed.findings.push(...(backlogMoved ? (this.deps.ledgers.get(name)?.findings ?? []) : read.findings.upserted));
        changed.backlog.push(...read.backlog.upserted);
        changed.tasks.push(...read.tasks.upserted);
      }
      this.deps.errors.set(loopProblemKey.ledgers(name), null);
    } catch (err) {
      if (err instanceof NotConnectedError || !this.deps.hosts.reachable(follower.host)) {
        if (cyclesRead) this.deps.loops.apply(cyclesRead, now, changed.loops);
        return readMore;
      }
      this.deps.failed(loopProblemKey.ledgers(name), err, () => ({ source: `loops.${name}`, line: null, message: messageOf(err) }));
    }
    // Older nights for Trends first: a console that sees this poll's cycles sees a poll that is over.
    // The nightly branch's reflog and the audit's anchor are asked before the cycles are applied:
    // a console sees this poll's cycles, their commits and the PRs derived from them land together.
    const dates = (cyclesRead?.cycles ?? this.deps.loops.get(name)?.cycles ?? []).map((c) => c.date);
    const branchMoved = await this.readBranches(name, follower.host, hostScope, dates);
    if (!hostScope.quiet) await this.deps.contract.readAnchor(name, now);
    if (cyclesRead) await this.backfillHistory(name, follower.host, cyclesRead.cycles);
    if (cyclesRead) this.deps.loops.apply(cyclesRead, now, changed.loops);
    if (backlogMoved) this.deps.loops.refreshHollow(name, changed.loops);
    if (branchMoved) this.deps.loops.refreshCommits(name, changed.loops);
    this.deps.unread.read(name);
    return readMore;
  }

  /** The loop's nightly branches' reflogs, for its followed cycles (the Broken contract list reads them). */
  private async readBranches(loop: string, host: string, scope: ReadScope, dates: readonly string[]): Promise<boolean> {
    const key = loopProblemKey.branch(loop);
    try {
      const moved = await this.deps.contract.readBranches(loop, dates, scope);
      this.deps.errors.set(key, this.deps.contract.branchProblem(loop));
      return moved;
    } catch (err) {
      if (!(err instanceof NotConnectedError) && this.deps.hosts.reachable(host)) {
        this.deps.failed(key, err, () => ({ source: `loops.${loop}.branch`, line: null, message: `Reading loop ${loop}'s nightly branch reflog failed: ${messageOf(err)}` }));
      }
      return false;
    }
  }

  /** A chunk of a loop's older nights for Trends (a first start; see TrendNights). */
  private backfillHistory(loop: string, host: string, followed: LoopPoll['cycles']): Promise<void> {
    const failed = (err: unknown): void => {
      if (!(err instanceof NotConnectedError) && this.deps.hosts.reachable(host)) this.deps.failed(loopProblemKey.nights(loop), err, () => ({ source: `loops.${loop}`, line: null, message: `Reading loop ${loop}'s older nights for Trends failed: ${messageOf(err)}` }));
    };
    return this.deps.nights.backfill(loop, this.deps.hosts.get(host)?.source ?? undefined, followed).then(() => this.deps.errors.set(loopProblemKey.nights(loop), null), failed);
  }

  /** A loop whose host has been down since the start: its cycles and ledgers as stored at the last run, once. */
  private restore(follower: LoopFollower, now: Date, changed: PollChanges): void {
    const cycles = follower.restore(now);
    if (cycles) this.deps.loops.apply(cycles, now, changed.loops, true);
    const ledgers = this.deps.ledgerFollowers.get(follower.name);
    const read = ledgers?.restore(now);
    // Restored findings were news at the last run, not now: they are not handed to the notices.
    if (ledgers && read && this.takeLedgers(follower.name, ledgers, read)) this.deps.loops.refreshHollow(follower.name, changed.loops);
  }

  /** Keep a loop's ledgers as read (or restored) and publish what changed; true when something was published. */
  private takeLedgers(loop: string, follower: LedgerFollower, read: LedgerPoll): boolean {
    if (read.deliverChanged) this.deps.prTracker.noteDeliverRecord(loop);
    const published = this.deps.ledgers.take(loop, follower.ledgers, read);
    if (published) this.deps.emit(published.event, published.payload);
    this.deps.nights.ledgers(loop, read.findings);
    return published !== null;
  }
}
