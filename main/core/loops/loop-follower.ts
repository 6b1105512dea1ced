import { posix } from 'node:path';
import type { Cycle, LoopState, Phase } from '../../../shared/domain';
import type { LoopConfig } from '../config/schema';
import { followOnce, refuseFile } from '../follow/line-follower';
import { derivePhase, deriveCycle, type PhaseEvidence } from '../model/phase-status';
import { rcFileParser } from '../parsers/rc-file';
import { statusFileParser } from '../parsers/status-file';
import { transcriptParser } from '../parsers/transcript';
import type { LineParser, PhaseFileKind, PhaseRecord } from '../records';
import { FileReadError, type FileSource, type FileStat } from '../sources/file-source';
import type { Store } from '../store/store';
import { classifyCycleFiles, isCycleFolder, type PhaseFile } from './cycle-layout';

const PARSERS: Readonly<Record<PhaseFileKind, LineParser<unknown>>> = {
  status: statusFileParser as LineParser<unknown>,
  log: transcriptParser as LineParser<unknown>,
  rc: rcFileParser as LineParser<unknown>,
};

/** How many of the newest cycles are read on every poll. */
const HOT_CYCLES = 2;
/** Older cycles are read again every this many polls (a late edit still shows, within seconds). */
const COLD_EVERY = 20;

/** A loop's runs folder could not be read; the message names the host and the path. */
export class RunsFolderError extends Error {
  override readonly name = 'RunsFolderError';
}

interface CachedFile {
  readonly records: readonly PhaseRecord[];
  readonly firstTimeMs: number | null;
  readonly mtimeMs: number | null;
}

/**
 * Follows one loop's runs folder: every phase file of its most recent cycles, through the store,
 * and derives the loop's state from what was read. Paths are joined POSIX-style because runner
 * hosts are Linux or macOS, whichever machine Loopdeck runs on.
 */
export class LoopFollower {
  private readonly cache = new Map<string, CachedFile>();
  /** The phase files last seen in each cycle folder, by date. */
  private readonly cycleFiles = new Map<string, PhaseFile[]>();
  private polls = 0;
  /** A cycle's listing changed since problems were last pruned. */
  private listingChanged = true;
  /** The last poll left a backlog unread in some file (a huge transcript takes several polls). */
  behind = false;

  constructor(
    readonly name: string,
    private readonly config: LoopConfig,
    private readonly source: FileSource,
    private readonly store: Store,
  ) {}

  /** The folders where news appears: the runs folder and the hot cycles (watched between polls). */
  hotDirs(): string[] {
    const hot = [...this.cycleFiles.keys()].sort().reverse().slice(0, HOT_CYCLES);
    return [this.config.runs, ...hot.map((d) => posix.join(this.config.runs, d))];
  }

  /** The host the loop runs on. */
  get host(): string {
    return this.config.host;
  }

  /** Read what changed, then derive the loop's state as of `now`. */
  async poll(now: Date): Promise<LoopState> {
    const entries = await this.source.list(this.config.runs);
    if (entries === null) {
      throw new RunsFolderError(
        `Loop ${this.name}: runs folder ${this.config.runs} does not exist on host ${this.source.host} (config key loops.${this.name}.runs).`,
      );
    }
    const dates = entries
      .filter((e) => e.isDirectory && isCycleFolder(e.name))
      .map((e) => e.name)
      .sort()
      .reverse()
      .slice(0, this.config.cycles);
    // The two newest cycles are read on every poll; older ones, long finished, every
    // COLD_EVERY polls — their status is still derived afresh each time (the clock moves).
    // Cycles are read concurrently; over SSH the connection's session cap bounds the fan-out.
    const cold = this.polls++ % COLD_EVERY === 0;
    this.behind = false;
    await Promise.all(dates.map((date, i) => (i < HOT_CYCLES || cold || !this.cycleFiles.has(date) ? this.readCycle(date) : undefined)));
    for (const date of [...this.cycleFiles.keys()]) {
      if (dates.includes(date)) continue;
      this.cycleFiles.delete(date);
      this.listingChanged = true;
    }
    if (cold || this.listingChanged) this.pruneProblems(dates);
    const cycles = dates.map((date) => this.deriveCycleAt(date, now));
    return { name: this.name, host: this.config.host, cycles, deadman: null };
  }

  /** Files deleted, or of cycles no longer followed, take their problems with them. */
  private pruneProblems(dates: readonly string[]): void {
    this.listingChanged = false;
    const keep = new Set<string>();
    for (const date of dates) {
      const dir = posix.join(this.config.runs, date);
      keep.add(dir);
      for (const f of this.cycleFiles.get(date) ?? []) keep.add(posix.join(dir, f.name));
    }
    const prefix = posix.join(this.config.runs, '/');
    // Only what lies in cycle folders is this follower's to judge (a deliver record may sit beside them).
    this.store.pruneProblems(this.source.host, prefix, (path) => keep.has(path) || !isCycleFolder(path.slice(prefix.length).split('/')[0] ?? ''));
  }

  private async readCycle(date: string): Promise<void> {
    const dir = posix.join(this.config.runs, date);
    let listed;
    try {
      listed = (await this.source.list(dir)) ?? [];
    } catch (err) {
      // A cycle folder that cannot be listed is that cycle's problem: it keeps what was read.
      if (!(err instanceof FileReadError)) throw err;
      refuseFile(this.store, this.source.host, dir, err.message);
      return;
    }
    this.store.clearProblems(this.source.host, dir);
    const entries = listed.filter((e) => !e.isDirectory);
    const stats = new Map(entries.map((e) => [e.name, e.stat]));
    const files = classifyCycleFiles(entries.map((e) => e.name), this.config.phases, this.config.layout);
    // Each file is followed on its own: one that cannot be read is a problem of its phase only.
    await Promise.all(files.map((file) => this.follow(posix.join(dir, file.name), file, stats.get(file.name) ?? null)));
    const before = this.cycleFiles.get(date);
    if (!before || before.length !== files.length || before.some((f, i) => f.name !== files[i]?.name)) this.listingChanged = true;
    this.cycleFiles.set(date, files);
  }

  private deriveCycleAt(date: string, now: Date): Cycle {
    const dir = posix.join(this.config.runs, date);
    const files = this.cycleFiles.get(date) ?? [];
    const phases: Phase[] = this.config.phases.map((phase) =>
      derivePhase(this.evidence(dir, phase, files.filter((f) => f.phase === phase)), now, this.config.cap),
    );
    return deriveCycle(date, phases, now, this.config.cap);
  }

  private async follow(path: string, file: PhaseFile, stat: FileStat | null): Promise<void> {
    const out = await followOnce(this.source, this.store, path, PARSERS[file.kind], { stat });
    this.behind ||= out.more;
    if (out.changed || !this.cache.has(path)) {
      const row = this.store.file(this.source.host, path);
      this.cache.set(path, { records: this.store.records(row.id), firstTimeMs: row.firstTimeMs, mtimeMs: row.mtimeMs });
    }
  }

  private evidence(dir: string, phase: string, files: readonly PhaseFile[]): PhaseEvidence {
    const get = (f: PhaseFile): CachedFile | undefined => this.cache.get(posix.join(dir, f.name));
    const ofKind = (kind: PhaseFileKind): PhaseFile | undefined => files.find((f) => f.kind === kind);
    const statusFile = ofKind('status');
    const logFile = ofKind('log');
    const seen = files.map(get).filter((c): c is CachedFile => c !== undefined);
    const firsts = seen.map((c) => c.firstTimeMs).filter((t): t is number => t !== null);
    const lasts = seen.map((c) => c.mtimeMs).filter((t): t is number => t !== null);
    return {
      loop: this.name,
      phase,
      statusRecords: statusFile ? (get(statusFile)?.records ?? []) : [],
      logRecords: logFile ? (get(logFile)?.records ?? []) : [],
      stages: files
        .filter((f) => f.kind === 'rc' && f.stage !== null)
        .map((f) => ({ stage: f.stage ?? '', records: get(f)?.records ?? [] }))
        .sort((a, b) => a.stage.localeCompare(b.stage)),
      hasLog: logFile !== undefined && get(logFile) !== undefined,
      hasStatus: statusFile !== undefined && get(statusFile) !== undefined,
      firstFileTime: firsts.length ? new Date(Math.min(...firsts)).toISOString() : null,
      lastFileTime: lasts.length ? new Date(Math.max(...lasts)).toISOString() : null,
    };
  }
}
