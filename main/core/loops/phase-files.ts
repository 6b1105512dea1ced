import { posix } from 'node:path';
import type { Phase } from '../../../shared/domain';
import { followOnce, type FollowOptions } from '../follow/line-follower';
import { FINAL_STATUSES } from './phase-status';
import type { CachedFile, TranscriptWatch } from './phase-evidence';
import { rcFileParser } from './rc-file';
import { statusFileParser } from './status-file';
import { transcriptParser } from '../transcripts/transcript-parser';
import { INDEX_EVERY } from '../store/line-index';
import { isWatchdogKill, transcriptMark } from '../transcripts/transcript-marks';
import { RepeatTracker } from './phase-signal';
import type { LineParser, PhaseFileKind, PhaseRecord } from '../text/line-parser';
import type { FileSource, FileStat } from '../sources/file-source';
import type { LineMark, Store } from '../store/store';
import type { PhaseFile } from '../text/cycle-layout';

const PARSERS: Readonly<Record<PhaseFileKind, LineParser<unknown>>> = {
  status: statusFileParser as LineParser<unknown>,
  log: transcriptParser as LineParser<unknown>,
  rc: rcFileParser as LineParser<unknown>,
};

/**
 * What following one file said: `derive` when what it feeds may have changed, `times` when only a
 * file time moved that the phase shows, false when nothing it shows can have.
 */
export type FollowOutcome = 'derive' | 'times' | false;

/**
 * One loop's phase files as followed, in memory: each file's records and times (appended as it
 * grows, never re-read from the store) and each transcript's signal evidence. A loop follower
 * decides what to read and derives cycles from what this keeps; this reads a file and says what
 * the read can have changed.
 */
export class PhaseFiles {
  /** Records and times by path. */
  readonly cache = new Map<string, CachedFile>();
  /** Transcripts' signal evidence by path (see TranscriptWatch). */
  readonly watched = new Map<string, TranscriptWatch>();
  private leftUnread = false;

  constructor(
    private readonly source: FileSource,
    private readonly store: Store,
  ) {}

  /** A read since the poll began (`beginPoll`) left a backlog unread (a huge transcript takes several polls). */
  get behind(): boolean {
    return this.leftUnread;
  }

  /** A poll begins: what it reads says anew whether a backlog is left. */
  beginPoll(): void {
    this.leftUnread = false;
  }

  /** What the store holds of a file (a restart resumes, it does not re-read). */
  loadStored(path: string): void {
    const row = this.store.file(this.source.host, path);
    this.cache.set(path, { records: this.store.records(row.id), firstTimeMs: row.firstTimeMs, mtimeMs: row.mtimeMs });
  }

  /** Forget every file under a folder (a cycle that left the window). */
  forgetUnder(dir: string): void {
    const prefix = posix.join(dir, '/');
    for (const path of [...this.cache.keys()]) if (path.startsWith(prefix)) this.cache.delete(path);
    for (const path of [...this.watched.keys()]) if (path.startsWith(prefix)) this.watched.delete(path);
  }

  /**
   * Follow one file; `shown` is its phase as last derived. Lines that made no record (most of a
   * transcript) move only the file's time, and a phase shows that only as the end of a finished
   * phase without an end stamp (e.g. one past its cap that is still written to): such a read says
   * `times`, and its cycle is derived again at most every TIMES_ONLY_MS, not on every line.
   */
  async follow(path: string, file: PhaseFile, stat: FileStat | null, shown: Phase | undefined): Promise<FollowOutcome> {
    // A transcript keeps its sparse line index and marks as it is read (the view jumps with them),
    // and each line it reads feeds its signals: the repetition window and the watchdog's kill.
    const watch = file.kind === 'log' ? this.watchOf(path) : null;
    const found: { kill: LineMark | null } = { kill: null };
    let options: FollowOptions = { stat };
    if (watch) {
      const marker = (text: string, lineNo: number, records: readonly unknown[]): LineMark | null => {
        watch.repeat.feed(text, lineNo);
        const mark = transcriptMark(text, lineNo, records);
        if (mark?.kind === 'watchdog') found.kill = mark;
        return mark;
      };
      options = { stat, indexEvery: INDEX_EVERY, marker };
    }
    const out = await followOnce(this.source, this.store, path, PARSERS[file.kind], options);
    this.leftUnread ||= out.more;
    let signalMoved = false;
    if (watch) {
      const atMs = stat?.mtimeMs ?? this.store.file(this.source.host, path).mtimeMs ?? 0;
      if (out.changed) {
        watch.lines = out.reset ? out.lines : watch.lines + out.lines;
        if (found.kill) watch.watchdog = { line: found.kill.line, text: found.kill.text, atMs };
        else if (out.reset) watch.watchdog = null;
      }
      watch.repeat.settle(atMs);
      signalMoved = watch.repeat.takeChanged() || found.kill !== null;
    }
    const cached = this.cache.get(path);
    if (!cached) {
      // First sight in this process: what the store holds, which now includes this read.
      this.loadStored(path);
      return 'derive';
    }
    if (!out.changed) return signalMoved ? 'derive' : false;
    const timesOnly = !out.reset && out.records.length === 0;
    if (out.reset) cached.records = [...(out.records as PhaseRecord[])];
    else for (const r of out.records as PhaseRecord[]) cached.records.push(r);
    if (stat !== null) {
      const first = Math.min(stat.mtimeMs, stat.birthtimeMs ?? stat.mtimeMs);
      cached.firstTimeMs = out.reset || cached.firstTimeMs === null ? first : Math.min(cached.firstTimeMs, first);
      cached.mtimeMs = stat.mtimeMs;
    } else {
      const row = this.store.file(this.source.host, path);
      cached.firstTimeMs = row.firstTimeMs;
      cached.mtimeMs = row.mtimeMs;
    }
    if (!timesOnly || signalMoved || shown === undefined) return 'derive';
    // Output after a hung phase's silence, or after a watchdog kill, may end what it shows.
    if (shown.signal && shown.signal.kind !== 'spinning') return 'derive';
    // An unfinished phase shows no end, and an append moves no start; a finished one shows the
    // file's time as its end only without an end stamp.
    if (!FINAL_STATUSES.has(shown.status) || shown.timesFrom === 'stamps') return false;
    return 'times';
  }

  /** A transcript's signal evidence, begun (on first sight in this process) from its store row and its stored marks. */
  private watchOf(path: string): TranscriptWatch {
    let w = this.watched.get(path);
    if (w) return w;
    const row = this.store.file(this.source.host, path);
    const kill = row.ino === null ? undefined : this.store.lineIndex.marks(this.source.host, path, row.ino).filter((m) => m.kind === 'watchdog' && isWatchdogKill(m.text)).at(-1);
    w = { lines: row.lineNo, repeat: new RepeatTracker(), watchdog: kill ? { line: kill.line, text: kill.text, atMs: row.mtimeMs ?? 0 } : null };
    this.watched.set(path, w);
    return w;
  }
}
