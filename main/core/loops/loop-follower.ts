import { posix } from 'node:path';
import type { Cycle, FailureCause, Phase, PhaseContention } from '../../../shared/domain';
import { clockBound, nextClockChange, type LoopPoll, type ReadChanges, type ReadScope } from './loop-poll';
import { phaseCap, type LoopConfig } from '../config/schema';
import { derivePhase, deriveCycle } from './phase-status';
import { phaseEvidence, signalEvidence } from './phase-evidence';
import { PhaseFiles, type FollowOutcome } from './phase-files';
import { phaseSignal } from './phase-signal';
import { FileReadError, type FileSource, type FileStat } from '../sources/file-source';
import type { Store } from '../store/store';
import { classifyCycleFiles, isCycleFolder, type PhaseFile } from '../text/cycle-layout';
import { RunsFolder } from './runs-folder';

/** How many of the newest cycles are read on every poll. */
export const HOT_CYCLES = 2;

/**
 * A cycle whose only change is the file time a finished phase shows as its end is derived again
 * at most this often (ms): a phase past its cap that its agent still writes to moves that time on
 * every line, and the end it shows need not move faster than this.
 */
export const TIMES_ONLY_MS = 5000;

/**
 * Follows one loop's runs folder: every phase file of its most recent cycles, through the store,
 * and derives the loop's state from what was read. Work is proportional to change: a poll lists
 * the runs folder by name, reads the hot cycles and one cold cycle (round robin, for a late edit
 * of an old night), follows only files whose stat moved, keeps what it read in memory (appended,
 * never re-read from the store), and derives only the cycles whose files changed or whose state
 * the clock can still change. Paths are joined POSIX-style because runner hosts are Linux or
 * macOS, whichever machine Loopdeck runs on.
 */
export class LoopFollower {
  /** The phase files' records, times and transcript signals, as followed. */
  private readonly files: PhaseFiles;
  /** The phase files last seen in each cycle folder, by date. */
  private readonly cycleFiles = new Map<string, PhaseFile[]>();
  /** Derived cycles by date, and the window of dates, newest first. */
  private readonly derived = new Map<string, Cycle>();
  private dates: readonly string[] = [];
  /** The window's dates as a set, and the `dates` array it was built from (rebuilt when that changes). */
  private window: { readonly of: readonly string[]; readonly set: ReadonlySet<string> } = { of: [], set: new Set() };
  /** The `dates` array every date of which had been derived at the end of a derive. */
  private derivedAll: readonly string[] | null = null;
  /** The cycles as last returned, newest first: rebuilt only when one changed. */
  private cycleList: Cycle[] | null = null;
  /** The runs folder's names as last listed, and the window of dates they gave. */
  private listedNames = '';
  private listedDates: readonly string[] = [];
  /** Dates whose files changed since they were last derived. */
  private readonly dirty = new Set<string>();
  /** Dates where only a file time a finished phase shows moved: derived at most every TIMES_ONLY_MS. */
  private readonly timesDirty = new Set<string>();
  /** When each date was last derived (performance clock, ms), for TIMES_ONLY_MS. */
  private readonly derivedAtWall = new Map<string, number>();
  /**
   * When the clock next changes a cycle's derived state (a running phase turning incomplete at
   * its cap), by date: such a cycle is derived again then, not on every poll.
   */
  private readonly clockDue = new Map<string, number>();
  /** The runs folder and its cycle folders as listed, with the problems of their names. */
  private readonly folder: RunsFolder;
  private coldCursor = 0;
  /** A cycle's listing changed since problems were last pruned. */
  private listingChanged = true;
  /** The last poll left a backlog unread in some file (a huge transcript takes several polls). */
  get behind(): boolean {
    return this.files.behind;
  }
  /** The cycles are the store's (restore) and no cycle was read from the host yet: the first poll reads them all. */
  private restored = false;

  constructor(
    readonly name: string,
    private readonly config: LoopConfig,
    private readonly source: FileSource,
    private readonly store: Store,
    /** Who a bad phase is put down to, from what the engine saw meanwhile (attribution.ts); without it, what the phase's files tell. */
    private readonly causeOf?: (phase: Phase, now: Date) => FailureCause,
    /** The runner's load while a phase of a cycle ran (contention.ts), by cycle date and phase; without it, none is shown. */
    private readonly contentionOf?: (date: string, phase: string) => PhaseContention | undefined,
  ) {
    this.files = new PhaseFiles(source, store);
    this.folder = new RunsFolder(name, config, source, store);
  }

  /** A phase with its cause, when it failed, went incomplete or is running with a signal (hung, spinning, the watchdog). */
  private attributed(phase: Phase, now: Date): Phase {
    const bad = phase.status === 'failed' || phase.status === 'incomplete' || (phase.status === 'running' && !!phase.signal);
    if (!bad || !this.causeOf) return phase;
    return { ...phase, cause: this.causeOf(phase, now) };
  }

  /**
   * The fleet's history of some window was read: the cycles with a phase put down to `unknown`
   * are derived again at the next poll (their cause may now be known).
   */
  reattribute(): void {
    for (const [date, cycle] of this.derived) if (cycle.phases.some((p) => p.cause?.kind === 'unknown')) this.dirty.add(date);
  }

  /**
   * A phase of the cycle was sampled for the runner's load: the cycle is derived again at the next
   * derive (a poll's). Kept apart from `dirty`: a sample is not a backlog (see `reattributing`).
   */
  touch(date: string): void {
    if (this.derived.has(date)) this.sampled.add(date);
  }

  /** Dates with a phase sampled for the runner's load since they were last derived. */
  private readonly sampled = new Set<string>();

  /** Some cycle waits to be derived again for its cause (reattribute). */
  get reattributing(): boolean {
    return this.dirty.size > 0 && this.known;
  }

  /** The folders where news appears: the runs folder and the hot cycles (watched between polls). */
  hotDirs(): readonly string[] {
    if (this.hot?.dates !== this.dates) this.hot = { dates: this.dates, dirs: [this.config.runs, ...this.dates.slice(0, HOT_CYCLES).map((d) => posix.join(this.config.runs, d))] };
    return this.hot.dirs;
  }

  /** The hot folders, worked out again only when the window of dates changed. */
  private hot: { readonly dates: readonly string[]; readonly dirs: readonly string[] } | null = null;

  /** The host the loop runs on. */
  get host(): string {
    return this.config.host;
  }

  /** The loop's cycles as last derived, newest first. */
  cycles(): Cycle[] {
    this.cycleList ??= this.dates.map((d) => this.derived.get(d)).filter((c): c is Cycle => c !== undefined);
    return this.cycleList;
  }

  /** Some cycle was read from the host (not only restored from the store): a poll may read only what changed. */
  private get known(): boolean {
    return this.cycleFiles.size > 0 && !this.restored;
  }

  /**
   * Until when (epoch ms) a `quiet` poll changes nothing: every cycle read is derived and no
   * cycle's clock (a cap, silence turning a phase hung) comes due before then. -Infinity when a
   * quiet poll has work now or would read (nothing read yet, or only what the store held).
   */
  quietUntil(): number {
    if (!this.known || this.dirty.size > 0 || this.timesDirty.size > 0 || this.sampled.size > 0 || this.derivedAll !== this.dates) return Number.NEGATIVE_INFINITY;
    let until = Number.POSITIVE_INFINITY;
    for (const at of this.clockDue.values()) if (at < until) until = at;
    return until;
  }

  /**
   * Read what changed, then derive what it feeds (and what the clock moved) as of `now`. A `quiet`
   * poll — the host watches the hot folders and nothing woke it — reads nothing and only lets the
   * clock move the cycles it can still change.
   */
  async poll(now: Date, options: ReadScope = {}): Promise<LoopPoll> {
    if (options.quiet && this.known) return this.derive(now, this.dates, []);
    if (options.only && this.known && !options.only.dirs.has(this.config.runs)) {
      this.files.beginPoll();
      await this.readChanged(options.only);
      return this.derive(now, this.dates, []);
    }
    const names = await this.folder.names();
    // A year of cycle folders: filtered and sorted again only when the listing changed.
    const joined = names.join('/');
    if (joined !== this.listedNames) {
      this.listedNames = joined;
      this.listedDates = names.filter(isCycleFolder).sort().reverse().slice(0, this.config.cycles);
    }
    const dates = this.listedDates;
    this.files.beginPoll();
    // Hot cycles every poll; a cycle never read (a new one, or all of them on the first poll);
    // and one cold cycle, round robin, so a late edit of an old night still shows. With the same
    // listing as last poll (nearly always) the window stands, cycleFiles holds only its dates, and
    // nothing here walks a year of them.
    const same = dates === this.dates;
    const allRead = same && !this.restored && this.cycleFiles.size === dates.length;
    const toRead = new Set(allRead ? dates.slice(0, HOT_CYCLES) : dates.filter((d, i) => i < HOT_CYCLES || this.restored || !this.cycleFiles.has(d)));
    const cold = dates.length - HOT_CYCLES;
    if (cold > 0) toRead.add(dates[HOT_CYCLES + (this.coldCursor++ % cold)] ?? '');
    // Cycles are read concurrently; over SSH the connection's session cap bounds the fan-out.
    await Promise.all([...toRead].filter((d) => d !== '').map((date) => this.readCycle(date)));
    // Restored cycles carry no signal (whether a transcript grew was not known): the host answered, derive them again.
    if (this.restored) for (const d of dates) this.dirty.add(d);
    this.restored = false;
    const removed = same ? [] : this.moveWindow(dates);
    if (this.listingChanged) {
      this.listingChanged = false;
      this.folder.pruneProblems(dates, (date) => this.cycleFiles.get(date) ?? []);
    }
    this.dates = dates;
    return this.derive(now, dates, removed);
  }

  /**
   * Before the first read, while the host cannot be reached: the cycles as the store holds them
   * from the last run (its files and records; no request to the host), so a restart with the host
   * down shows what was known. The first poll that reaches the host reads every cycle, as a first
   * poll does. Null once anything was read or restored.
   */
  restore(now: Date): LoopPoll | null {
    if (this.restored || this.cycleFiles.size > 0) return null;
    this.restored = true;
    const prefix = posix.join(this.config.runs, '/');
    const byDate = new Map<string, string[]>();
    for (const path of this.store.pathsUnder(this.source.host, prefix)) {
      const [date = '', name = '', ...deeper] = path.slice(prefix.length).split('/');
      if (name === '' || deeper.length > 0 || !isCycleFolder(date)) continue;
      const names = byDate.get(date);
      if (names) names.push(name);
      else byDate.set(date, [name]);
    }
    const dates = [...byDate.keys()].sort().reverse().slice(0, this.config.cycles);
    for (const date of dates) {
      const files = classifyCycleFiles(byDate.get(date) ?? [], this.config.phases, this.config.layout);
      for (const f of files) this.files.loadStored(posix.join(this.config.runs, date, f.name));
      this.cycleFiles.set(date, files);
      this.dirty.add(date);
    }
    this.dates = dates;
    return this.derive(now, dates, []);
  }

  /** The listing gave a new window: forget what left it; the dates that did, for the poll's `removed`. */
  private moveWindow(dates: readonly string[]): string[] {
    const window = this.windowSet(dates);
    const removed: string[] = [];
    for (const date of this.dates) {
      if (window.has(date)) continue;
      removed.push(date);
      this.derived.delete(date);
    }
    if (removed.length > 0 || dates.length !== this.dates.length) this.cycleList = null;
    for (const date of [...this.cycleFiles.keys()]) {
      if (window.has(date)) continue;
      this.cycleFiles.delete(date);
      this.dirty.delete(date);
      this.timesDirty.delete(date);
      this.derivedAtWall.delete(date);
      this.folder.forget(date);
      this.files.forgetUnder(posix.join(this.config.runs, date));
      this.listingChanged = true;
    }
    return removed;
  }

  /** Derive the cycles whose files changed or whose state the clock can still change. */
  private derive(now: Date, dates: readonly string[], removed: readonly string[]): LoopPoll {
    const upserted: Cycle[] = [];
    // Only the dates that need it: never a walk over a year of finished nights.
    const nowMs = now.getTime();
    const timed = [...this.clockDue].filter(([, at]) => at <= nowMs).map(([d]) => d);
    const underived = dates === this.derivedAll ? [] : dates.filter((d) => !this.derived.has(d));
    const wall = performance.now();
    const timesDue = this.timesDirty.size === 0 ? [] : [...this.timesDirty].filter((d) => wall - (this.derivedAtWall.get(d) ?? Number.NEGATIVE_INFINITY) >= TIMES_ONLY_MS);
    const due = new Set([...this.dirty, ...timed, ...underived, ...timesDue, ...this.sampled]);
    this.sampled.clear();
    const window = this.windowSet(dates);
    for (const date of [...due].sort().reverse()) {
      if (!window.has(date)) {
        this.clockDue.delete(date);
        continue;
      }
      const before = this.derived.get(date);
      this.dirty.delete(date);
      this.timesDirty.delete(date);
      this.derivedAtWall.set(date, wall);
      const { cycle, signalDue } = this.deriveCycleAt(date, now);
      // The cap turns a running phase incomplete; silence turns one hung or spinning.
      const next = Math.min(clockBound(cycle) ? nextClockChange(cycle, this.config.cap, nowMs, (phase) => phaseCap(this.config, phase)) : Infinity, signalDue);
      if (next < Infinity) this.clockDue.set(date, next);
      else this.clockDue.delete(date);
      // One cycle's JSON, only for cycles whose files or clock moved: never the whole loop.
      if (before && JSON.stringify(before) === JSON.stringify(cycle)) continue;
      this.derived.set(date, cycle);
      upserted.push(cycle);
      this.cycleList = null;
    }
    this.derivedAll = dates;
    return { name: this.name, host: this.config.host, cycles: this.cycles(), deadman: null, upserted, removed };
  }

  /** The window's dates as a set: built once per listing, not on every poll. */
  private windowSet(dates: readonly string[]): ReadonlySet<string> {
    if (this.window.of !== dates) this.window = { of: dates, set: new Set(dates) };
    return this.window.set;
  }

  /**
   * Read only what a watcher saw change in the window's cycles: a file whose content grew is
   * followed alone (one stat, one read); a folder whose listing changed is listed again.
   */
  private async readChanged(only: ReadChanges): Promise<void> {
    const inWindow = this.windowSet(this.dates);
    const dateOf = (dir: string): string | null => {
      if (posix.dirname(dir) !== this.config.runs) return null;
      const date = posix.basename(dir);
      return inWindow.has(date) ? date : null;
    };
    const relist = new Set<string>();
    for (const dir of only.dirs) {
      const date = dateOf(dir);
      if (date) relist.add(date);
    }
    const files: [string, string, PhaseFile][] = [];
    for (const path of only.files) {
      const date = dateOf(posix.dirname(path));
      if (!date || relist.has(date)) continue;
      const file = this.cycleFiles.get(date)?.find((f) => f.name === posix.basename(path));
      // A file the listing did not have: the listing changed after all.
      if (file) files.push([date, path, file]);
      else if (this.cycleFiles.has(date)) relist.add(date);
    }
    const gone = new Set<string>();
    await Promise.all([
      ...[...relist].map((date) => this.readCycle(date)),
      ...files.map(async ([date, path, file]) => {
        const stat = await this.source.stat(path).catch((err: unknown) => {
          if (err instanceof FileReadError) return null;
          throw err;
        });
        if (stat === null || stat.kind !== 'file') return void gone.add(date);
        this.noteFollowed(date, await this.follow(path, file, stat, date));
      }),
    ]);
    // A named file that is gone, or no longer a file: its folder's listing says what happened.
    await Promise.all([...gone].filter((d) => !relist.has(d)).map((date) => this.readCycle(date)));
  }

  /** List a cycle folder and follow each of its phase files; a folder that cannot be listed keeps what was read. */
  private async readCycle(date: string): Promise<void> {
    const dir = posix.join(this.config.runs, date);
    const entries = await this.folder.cycleFiles(date, this.restored || !this.cycleFiles.has(date));
    if (entries === null) return;
    const stats = new Map(entries.map((e) => [e.name, e.stat]));
    const files = classifyCycleFiles(entries.map((e) => e.name), this.config.phases, this.config.layout);
    // Each file is followed on its own: one that cannot be read is a problem of its phase only.
    const changed = await Promise.all(files.map((file) => this.follow(posix.join(dir, file.name), file, stats.get(file.name) ?? null, date)));
    const before = this.cycleFiles.get(date);
    const relisted = !before || before.length !== files.length || before.some((f, i) => f.name !== files[i]?.name);
    if (relisted) this.listingChanged = true;
    if (relisted || changed.includes('derive')) this.dirty.add(date);
    else if (changed.includes('times')) this.timesDirty.add(date);
    this.cycleFiles.set(date, files);
  }

  /** A cycle as of `now`, and when the clock alone next changes a signal of its phases. */
  private deriveCycleAt(date: string, now: Date): { cycle: Cycle; signalDue: number } {
    const dir = posix.join(this.config.runs, date);
    const files = this.cycleFiles.get(date) ?? [];
    let signalDue = Infinity;
    const phases: Phase[] = this.config.phases.map((phase) => {
      const own = files.filter((f) => f.phase === phase);
      const derived = this.loaded(date, derivePhase(phaseEvidence(this.name, dir, phase, own, this.files.cache), now, phaseCap(this.config, phase)));
      // Restored from the store with the host down: whether the transcript grew is not known.
      if (this.restored) return this.attributed(derived, now);
      const out = phaseSignal(signalEvidence({ dir, files: own, phase: derived, now, cache: this.files.cache, watched: this.files.watched, silenceMs: this.config.silence }));
      signalDue = Math.min(signalDue, out.dueMs);
      return this.attributed(out.signal ? { ...derived, signal: out.signal } : derived, now);
    });
    return { cycle: deriveCycle(date, phases, now, this.config.cap), signalDue };
  }

  /** A phase with the runner's load while it ran, when it was sampled (before its cause: the load is one). */
  private loaded(date: string, phase: Phase): Phase {
    const contention = this.contentionOf?.(date, phase.name);
    return contention ? { ...phase, contention } : phase;
  }

  /** Follow one of a cycle's files, with its phase as last derived (see PhaseFiles.follow). */
  private follow(path: string, file: PhaseFile, stat: FileStat | null, date: string): Promise<FollowOutcome> {
    return this.files.follow(path, file, stat, this.derived.get(date)?.phases.find((p) => p.name === file.phase));
  }

  /** What following a cycle's file said: derive the cycle now, at most every TIMES_ONLY_MS, or not at all. */
  private noteFollowed(date: string, outcome: FollowOutcome): void {
    if (outcome === 'derive') this.dirty.add(date);
    else if (outcome === 'times') this.timesDirty.add(date);
  }
}
