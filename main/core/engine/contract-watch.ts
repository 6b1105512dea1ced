import type { ContractBreach } from '../../../shared/contract-breach';
import type { EventName, EventPayload } from '../../../shared/contract';
import type { LoopState, Problem, PullRequest } from '../../../shared/domain';
import type { Config } from '../config/schema';
import { ContractBook } from '../contract/contract-book';
import { BranchBreaches } from '../contract/branch-breaches';
import { loopPaths, type LoopContractInput, type LoopPaths } from '../contract/loop-breaches';
import type { LedgerBook } from '../ledgers/ledger-book';
import type { LedgerFollower } from '../ledgers/ledger-follower';
import { BranchFollower } from '../loops/branch-follower';
import { AnchorCheck } from '../contract/anchor-check';
import { DeadmanComments } from '../prs/github/deadman-comments';
import type { SignalSink } from '../state/event-bus';
import type { Disposables } from '../state/disposables';
import type { HostShell } from '../hosts/host-shell';
import { branchOf, type ReflogEntry } from '../loops/branch-reflog';
import type { FileSource } from '../sources/file-source';
import type { Store } from '../store/store';
import type { LoopStates } from './loop-states';
import type { ReadChanges, ReadScope } from '../loops/loop-poll';
import { posix } from 'node:path';

const NO_BACKLOG: LoopContractInput['backlog'] = [];

/** What the watch reads of the engine. */
export interface ContractWatchOptions {
  readonly config: Config;
  readonly store: Store;
  /** A host's file source, for the loops' branch reflogs (null: not reachable this way). */
  readonly sourceOf: (host: string) => FileSource | null | undefined;
  /** A host's shell, to ask the clone whether the audit's anchor SHA resolves. */
  readonly shellOf: (host: string) => Pick<HostShell, 'exec'> | null | undefined;
  readonly loops: LoopStates;
  readonly ledgers: LedgerBook;
  readonly ledgerFollowers: ReadonlyMap<string, LedgerFollower>;
  /** The PRs as derived now. */
  readonly prs: () => readonly PullRequest[];
  /** Where `github.token: env:NAME` is read (process.env by default). */
  readonly githubEnv?: NodeJS.ProcessEnv;
  /** Where the rolling issue's problems are reported, and a poll asked for when its comments moved the list. */
  readonly bus: SignalSink;
  readonly wake: () => void;
  /** The engine's teardown: the GitHub reader stops with it. */
  readonly teardown: Disposables;
  readonly emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
}

/** One loop's breaches found beside its state and backlog, and what they were derived from. */
interface More {
  readonly loop: LoopState;
  readonly branchRead: number;
  readonly prs: readonly PullRequest[];
  /** The lists found elsewhere, each the same array while unchanged. */
  readonly found: readonly (readonly ContractBreach[])[];
  readonly text: string;
  readonly list: readonly ContractBreach[];
}

const NO_BREACHES: readonly ContractBreach[] = [];

/** The newest nights whose reflogs every poll reads, and how often (in polls) all of them are read. */
const HOT_BRANCHES = 2;
const BRANCH_ALL_EVERY = 20;

/**
 * The Broken contract list of the engine's loops (shared/contract-breach.ts): from each loop's
 * state and backlog, its ledgers' follower (rewrites, ids, anchors) and its nightly branch's reflog
 * (followed here, one BranchFollower a loop with a clone), published (`contract.changed`) after a
 * poll that moved it.
 */
export class ContractWatch {
  private readonly book = new ContractBook();
  private readonly paths = new Map<string, LoopPaths>();
  private readonly branches = new Map<string, BranchFollower>();
  /** How many times each loop's reflogs changed: a new count derives its branch breaches again. */
  private readonly branchReads = new Map<string, number>();
  private readonly more = new Map<string, More>();
  /** Each loop's branch breaches, kept by cycle while its reflogs and the PRs stand. */
  private readonly branchBreaches = new Map<string, BranchBreaches>();
  /** How many times each loop's reflogs were polled (every BRANCH_ALL_EVERY-th reads them all). */
  private readonly branchPolls = new Map<string, number>();
  private readonly anchors = new AnchorCheck();
  /** The rolling issue's comments (`deadman:` on a loop, with a `github:` section), read outside the poll. */
  private readonly deadman: DeadmanComments | null;
  private deadmanReading: Promise<void> | null = null;

  constructor(private readonly o: ContractWatchOptions) {
    for (const [name, loop] of Object.entries(o.config.loops)) {
      this.paths.set(name, loopPaths(loop));
      const source = o.sourceOf(loop.host);
      if (source && loop.dir) this.branches.set(name, new BranchFollower(name, loop, source, o.store));
    }
    const watched = Object.values(o.config.loops).some((l) => l.deadman);
    this.deadman = o.config.github && watched
      ? new DeadmanComments({ github: o.config.github, loops: o.config.loops, ...(o.githubEnv ? { env: o.githubEnv } : {}), onProblem: (problem) => o.bus.signal('problem', { key: 'github deadman', problem }) })
      : null;
    const deadman = this.deadman;
    if (deadman) o.teardown.add(() => deadman.stop());
  }

  /**
   * Read a loop's nightly branches for its followed cycles, as far as the poll's scope reaches: all
   * of them in a full poll, none in a quiet one, and in one a watcher woke only when it named a
   * reflog or its folder. Rejects as a follower does when its host drops.
   */
  async readBranches(loop: string, dates: readonly string[], scope: ReadScope = {}): Promise<boolean> {
    const follower = this.branches.get(loop);
    if (!follower || scope.quiet) return false;
    const only = scope.only;
    if (only && !dates.some((d) => named(only, follower.pathOf(d)))) return false;
    // A poll reads the newest nights' reflogs (a loop commits to tonight's branch); every
    // BRANCH_ALL_EVERY-th, and the first, reads them all: an idle poll's cost does not grow with history.
    const n = this.branchPolls.get(loop) ?? 0;
    this.branchPolls.set(loop, n + 1);
    const readNow = only ? new Set(dates.filter((d) => named(only, follower.pathOf(d)))) : n % BRANCH_ALL_EVERY === 0 ? null : new Set(dates.slice(0, HOT_BRANCHES));
    if (!(await follower.poll(dates, readNow))) return false;
    this.branchReads.set(loop, (this.branchReads.get(loop) ?? 0) + 1);
    return true;
  }

  /** A loop's nightly branch's moves by cycle date, or null when it has no clone to follow. */
  entriesOf(loop: string): ((date: string) => readonly ReflogEntry[]) | null {
    const follower = this.branches.get(loop);
    return follower ? (date) => follower.entries(date) : null;
  }

  /**
   * Ask the clone whether the audit ledger's latest anchor names a commit it has (once a SHA: see
   * AnchorCheck); never rejects — a host that cannot be asked is a problem, not a breach.
   */
  async readAnchor(loop: string, now: Date): Promise<void> {
    const config = this.o.config.loops[loop];
    const audit = config?.ledgers.audit;
    const marks = this.o.ledgers.get(loop)?.audits ?? [];
    if (!config?.dir || !audit || marks.length === 0) return;
    const path = posix.isAbsolute(audit) ? audit : posix.join(config.dir, audit);
    await this.anchors.check(loop, config, marks, path, this.o.shellOf(config.host) ?? null, now);
  }

  /** The folders of a loop's reflogs that hold one (watched, so a commit wakes a poll; a folder not made yet is not). */
  watchDirs(loop: string): string[] {
    const follower = this.branches.get(loop);
    if (!follower) return [];
    const held = (this.o.loops.get(loop)?.cycles ?? []).map((c) => c.date).filter((d) => follower.entries(d).length > 0).map((d) => follower.pathOf(d));
    return [...new Set(held.filter((p): p is string => p !== null).map((p) => posix.dirname(p)))];
  }

  /** A loop's branch follower's own problem (a branch name git would refuse), or null. */
  branchProblem(loop: string): Problem | null {
    return this.branches.get(loop)?.problems()[0] ?? null;
  }

  /**
   * Derive what moved and publish the list when it changed; then ask GitHub, outside the poll, for
   * the rolling issue's comments on the phases due (one reading at a time; news wakes a poll).
   */
  publish(now: Date): void {
    const list = this.book.update(this.inputs(), now);
    if (list) this.o.emit('contract.changed', { contract: list });
    const deadman = this.deadman;
    if (!deadman || this.deadmanReading) return;
    this.deadmanReading = deadman
      .check([...this.o.loops.all()], now)
      .then((changed) => {
        if (changed) this.o.wake();
      })
      .finally(() => {
        this.deadmanReading = null;
      });
  }

  /** Resolves once a reading of the rolling issue in flight (if any) has ended. */
  async settled(): Promise<void> {
    await this.deadmanReading;
  }

  /** The list as last derived. */
  list(): readonly ContractBreach[] {
    return this.book.list();
  }

  private *inputs(): Generator<LoopContractInput> {
    for (const loop of this.o.loops.all()) {
      const paths = this.paths.get(loop.name);
      if (!paths) continue;
      yield { loop, paths, backlog: this.o.ledgers.get(loop.name)?.backlog ?? NO_BACKLOG, more: this.moreOf(loop) };
    }
  }

  /** The ledgers' and the branch's breaches of a loop: the same array while they are the same. */
  private moreOf(loop: LoopState): readonly ContractBreach[] {
    const was = this.more.get(loop.name);
    const branchRead = this.branchReads.get(loop.name) ?? 0;
    const prs = this.o.prs();
    const found = [this.o.ledgerFollowers.get(loop.name)?.contractBreaches() ?? NO_BREACHES, this.anchors.breaches(loop.name), this.deadman?.breaches() ?? NO_BREACHES];
    const branchSame = was !== undefined && was.loop === loop && was.branchRead === branchRead && was.prs === prs;
    // Nothing it is made of moved (an idle poll): no list built, nothing compared.
    if (was && branchSame && found.every((f, i) => f === was.found[i])) return was.list;
    const [ledger = NO_BREACHES, anchors = NO_BREACHES, deadman = NO_BREACHES] = found;
    const branch = branchSame ? was.list.filter(isBranchKind) : this.branchOf(loop, prs);
    const list = [...ledger, ...anchors, ...deadman.filter((b) => b.loop === loop.name), ...branch];
    const text = JSON.stringify(list);
    if (was && was.text === text) {
      this.more.set(loop.name, { ...was, loop, branchRead, prs, found });
      return was.list;
    }
    this.more.set(loop.name, { loop, branchRead, prs, found, text, list });
    return list;
  }

  private branchOf(loop: LoopState, prs: readonly PullRequest[]): ContractBreach[] {
    const follower = this.branches.get(loop.name);
    const config = this.o.config.loops[loop.name];
    if (!follower || !config) return [];
    let kept = this.branchBreaches.get(loop.name);
    if (!kept) this.branchBreaches.set(loop.name, (kept = new BranchBreaches()));
    const ev = { branch: (date: string) => branchOf(config, date), path: (date: string) => follower.pathOf(date), entries: (date: string) => follower.entries(date) };
    return kept.of(loop, ev, prs, this.branchReads.get(loop.name) ?? 0);
  }
}

const named = (only: ReadChanges, path: string | null): boolean => path !== null && (only.files.has(path) || only.dirs.has(posix.dirname(path)));

const BRANCH_KINDS: ReadonlySet<ContractBreach['kind']> = new Set(['no-op-after-commit', 'no-pr', 'two-prs']);
const isBranchKind = (b: ContractBreach): boolean => BRANCH_KINDS.has(b.kind);
