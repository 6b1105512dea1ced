import { isDeepStrictEqual } from 'node:util';
import type { EventPayload } from '../../../shared/contract';
import type { BacklogItem, Cycle, Deadman, LoopState } from '../../../shared/domain';
import { markHollow } from '../../../shared/hollow';
import { markCommits } from '../contract/phase-commits';
import type { ReflogEntry } from '../loops/branch-reflog';
import type { Config } from '../config/schema';
import { DeadmanClock, sameDeadman } from '../loops/deadman-clock';
import type { LoopPoll } from '../loops/loop-poll';
import type { UnreadLoops } from './unread-loops';
import type { MaintenanceSchedule } from '../maintenance/maintenance-schedule';

/** What the loop states tell the engine: a `loop.changed` to publish, and the loop's cycles that moved. */
export interface LoopStatesOptions {
  readonly config: Config;
  readonly unread: UnreadLoops;
  /** `news` is false for a change that moved only a running phase's runner load (a sample): shown, read by nothing else. */
  readonly onChanged: (payload: EventPayload<'loop.changed'>, news: boolean) => void;
  readonly onCycles: (loop: string, upserted: readonly Cycle[], removed: readonly string[]) => void;
  /** A loop's backlog as last read: where the loop state and its ledgers meet (a hollow remediate). */
  readonly backlogOf?: (loop: string) => readonly BacklogItem[];
  /** A loop's nightly branch's moves by cycle date (its clone's reflog), or null without one: each phase's commits. */
  readonly commitsOf?: (loop: string) => ((date: string) => readonly ReflogEntry[]) | null;
  /** The maintenance windows: a fire inside one in the loop's scope is not late or missed. */
  readonly maintenance?: MaintenanceSchedule;
}

/**
 * Each loop's state as the engine last published it: its cycles and its dead-man. A poll's read
 * of a loop is applied here; only what moved is published (one loop's changed cycles, and the
 * dead-man when it changed), and `changed` collects the same for the notices.
 */
export class LoopStates {
  private readonly states = new Map<string, LoopState>();
  private readonly deadmen = new DeadmanClock();

  constructor(private readonly options: LoopStatesOptions) {
    for (const [name, loop] of Object.entries(options.config.loops)) this.states.set(name, { name, host: loop.host, cycles: [], deadman: null, ...(loop.knownFailures !== undefined ? { knownFailures: loop.knownFailures } : {}) });
  }

  /** Every configured loop's state, in the config's order. */
  all(): IterableIterator<LoopState> {
    return this.states.values();
  }

  /** One loop's state, or undefined for a name the config has not. */
  get(name: string): LoopState | undefined {
    return this.states.get(name);
  }

  /**
   * Take one loop's poll: keep its cycles, re-derive the dead-man, publish what changed. Cycles
   * `restored` from the store get no dead-man: they are not what the host holds now.
   */
  apply(read: LoopPoll, now: Date, changed: LoopState[], restored = false): void {
    const name = read.name;
    const before = this.states.get(name);
    const cyclesMoved = read.upserted.length > 0 || read.removed.length > 0;
    const deadman = restored ? null : (this.deadmanOf(name, read.cycles, now, cyclesMoved) ?? before?.deadman ?? null);
    const deadmanChanged = !sameDeadman(before?.deadman, deadman);
    if (!cyclesMoved && !deadmanChanged) return;
    const moved = new Set(read.upserted.map((c) => c.date));
    const cycles = cyclesMoved ? this.marked(name, read.cycles, moved, before?.cycles ?? []) : (before?.cycles ?? read.cycles);
    const upserted = cycles.filter((c) => moved.has(c.date));
    const known = this.options.config.loops[name]?.knownFailures;
    const state: LoopState = { name, host: read.host, cycles, deadman, ...(known !== undefined ? { knownFailures: known } : {}) };
    this.states.set(name, state);
    // A load sample (RunnerLoad, every 30 s while a phase runs) moves only the phases' `contention`:
    // the console shows it, and no notice, contract rule or PR reads it, so it is no news to them.
    const news = deadmanChanged || read.removed.length > 0 || !sampledOnly(upserted, before?.cycles ?? []);
    this.options.onChanged({ loop: name, host: read.host, upserted, removed: read.removed, ...(deadmanChanged ? { deadman } : {}) }, news);
    if (!news) return;
    changed.push({ ...state, cycles: upserted });
    this.options.onCycles(name, upserted, read.removed);
  }

  /**
   * A read's cycles with their hollow and commit marks: the cycles it moved (or did not have before)
   * marked now, the others as marked before. The marks read the cycle, the backlog and the branch's
   * moves, and a move of either of those marks every cycle again (refreshHollow, refreshCommits):
   * a read that moved one cycle of a year's history marks one, not the year against the backlog.
   */
  private marked(loop: string, cycles: readonly Cycle[], moved: ReadonlySet<string>, before: readonly Cycle[]): Cycle[] {
    const kept = new Map(before.map((c) => [c.date, c]));
    const fresh = cycles.filter((c) => moved.has(c.date) || !kept.has(c.date));
    const marked = new Map(this.withCommits(loop, markHollow(fresh, this.options.backlogOf?.(loop) ?? [])).map((c) => [c.date, c]));
    return cycles.map((c) => marked.get(c.date) ?? kept.get(c.date) ?? c);
  }

  /**
   * The loop's backlog changed: mark its remediate phases hollow (or not) again, and publish the
   * cycles whose mark moved (a later DONE clears one; a new audit's items can make one).
   */
  refreshHollow(loop: string, changed: LoopState[]): void {
    this.remark(loop, changed, (cycles) => markHollow(cycles, this.options.backlogOf?.(loop) ?? []));
  }

  /** The loop's nightly branch moved: each phase's commits again, publishing the cycles whose commits moved. */
  refreshCommits(loop: string, changed: LoopState[]): void {
    this.remark(loop, changed, (cycles) => this.withCommits(loop, cycles));
  }

  private withCommits(loop: string, cycles: readonly Cycle[]): Cycle[] {
    const entriesOf = this.options.commitsOf?.(loop);
    return entriesOf ? markCommits(cycles, entriesOf) : [...cycles];
  }

  /** Mark the loop's cycles again with `mark` (the same objects where nothing moved) and publish those that moved. */
  private remark(loop: string, changed: LoopState[], mark: (cycles: readonly Cycle[]) => Cycle[]): void {
    const before = this.states.get(loop);
    if (!before || before.cycles.length === 0) return;
    const cycles = mark(before.cycles);
    const upserted = cycles.filter((c, i) => c !== before.cycles[i]);
    if (upserted.length === 0) return;
    const state = { ...before, cycles };
    this.states.set(loop, state);
    this.options.onChanged({ loop, host: before.host, upserted, removed: [] }, true);
    changed.push({ ...state, cycles: upserted });
  }

  /** Whether the loop's dead-man stands at `nowMs`: a read that moves no cycle publishes nothing of it. */
  deadmanHolds(loop: string, nowMs: number): boolean {
    return this.deadmen.holds(loop, nowMs);
  }

  /** The maintenance windows changed: every dead-man is derived again at its loop's next read. */
  forgetDeadmen(): void {
    this.deadmen.forget();
  }

  /** Once a loop has been read, its dead-man runs on the clock even while the host is unreachable: a silent loop is news. */
  refreshDeadman(loop: string, now: Date, changed: LoopState[]): void {
    const before = this.states.get(loop);
    // A loop never read in this run (its host still connecting, or unreachable since the start):
    // no cycles known is not no cycles run, and the host's own state says why nothing is known.
    if (!before || this.options.unread.never(loop)) return;
    const deadman = this.deadmanOf(loop, before.cycles, now, false);
    if (deadman === undefined || sameDeadman(before.deadman, deadman)) return;
    const state = { ...before, deadman };
    this.states.set(loop, state);
    this.options.onChanged({ loop, host: before.host, upserted: [], removed: [], deadman }, true);
    changed.push({ ...state, cycles: [] });
  }

  private deadmanOf(loop: string, cycles: readonly Cycle[], now: Date, cyclesMoved: boolean): Deadman | undefined {
    const cfg = this.options.config.loops[loop];
    const schedule = this.options.maintenance;
    const maintenance = schedule && !schedule.empty ? (fireMs: number) => schedule.markAt({ kind: 'loop', name: loop }, fireMs) : undefined;
    return cfg && this.deadmen.derive(loop, cfg, cycles, now, cyclesMoved, maintenance);
  }
}

/** A cycle without its phases' runner load: what a load sample cannot move. */
const withoutLoad = (c: Cycle): Cycle => ({ ...c, phases: c.phases.map(({ contention: _load, ...p }) => p) });

/**
 * Whether every cycle a read moved differs from the one kept for its date only in its phases'
 * runner load (`contention`): a load sample, not a line of the loop's.
 */
function sampledOnly(upserted: readonly Cycle[], before: readonly Cycle[]): boolean {
  return (
    upserted.length > 0 &&
    upserted.every((c) => {
      const was = before.find((b) => b.date === c.date);
      return was !== undefined && isDeepStrictEqual(withoutLoad(c), withoutLoad(was));
    })
  );
}
