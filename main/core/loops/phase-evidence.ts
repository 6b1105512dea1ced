import { posix } from 'node:path';
import type { Phase } from '../../../shared/domain';
import type { PhaseFile } from '../text/cycle-layout';
import type { RepeatTracker, SignalEvidence, WatchdogKill } from './phase-signal';
import type { PhaseEvidence } from './phase-status';
import type { PhaseFileKind, PhaseRecord } from '../text/line-parser';

// What a loop follower keeps of the files it follows, and the evidence a phase's status and its
// signals are derived from: only what following kept, nothing is read here.

/**
 * What the phase signals keep of one transcript while following it, in memory: its line count,
 * the window of its newest lines' hashes (see RepeatTracker) and its last watchdog kill line.
 */
export interface TranscriptWatch {
  lines: number;
  readonly repeat: RepeatTracker;
  watchdog: WatchdogKill | null;
}

/** One followed file, in memory: its records and its times. */
export interface CachedFile {
  /** Appended to in place as the file grows; replaced when it is read again from 0. */
  records: PhaseRecord[];
  firstTimeMs: number | null;
  mtimeMs: number | null;
}

/** What a phase's signal is computed from: only what following its files kept (nothing is read). */
export function signalEvidence(o: {
  readonly dir: string;
  readonly files: readonly PhaseFile[];
  readonly phase: Phase;
  readonly now: Date;
  readonly cache: ReadonlyMap<string, CachedFile>;
  readonly watched: ReadonlyMap<string, TranscriptWatch>;
  readonly silenceMs: number;
}): SignalEvidence {
  const { dir, files, phase, now } = o;
  const log = files.find((f) => f.kind === 'log');
  const logPath = log ? posix.join(dir, log.name) : null;
  const cached = logPath === null ? undefined : o.cache.get(logPath);
  const watch = logPath === null ? undefined : o.watched.get(logPath);
  const rcTimes = files
    .filter((f) => f.kind === 'rc')
    .map((f) => o.cache.get(posix.join(dir, f.name))?.mtimeMs)
    .filter((t): t is number => typeof t === 'number');
  const started = Date.parse(phase.startedAt ?? '');
  const seen = files.flatMap((f) => {
    const c = o.cache.get(posix.join(dir, f.name));
    return c ? [{ name: f.name, mtimeMs: c.mtimeMs }] : [];
  });
  return {
    status: phase.status,
    files: seen,
    transcript: cached ? { lines: watch?.lines ?? 0, mtimeMs: cached.mtimeMs } : null,
    rcChangedMs: rcTimes.length > 0 ? Math.max(...rcTimes) : null,
    startedMs: Number.isNaN(started) ? null : started,
    repetition: watch?.repeat.repeating() ?? null,
    watchdog: watch?.watchdog ?? null,
    silenceMs: o.silenceMs,
    nowMs: now.getTime(),
  };
}

/** Everything read about one phase of a cycle: the records its files made and their times. */
export function phaseEvidence(loop: string, dir: string, phase: string, files: readonly PhaseFile[], cache: ReadonlyMap<string, CachedFile>): PhaseEvidence {
  const get = (f: PhaseFile): CachedFile | undefined => cache.get(posix.join(dir, f.name));
  const ofKind = (kind: PhaseFileKind): PhaseFile | undefined => files.find((f) => f.kind === kind);
  const statusFile = ofKind('status');
  const logFile = ofKind('log');
  const seen = files.map(get).filter((c): c is CachedFile => c !== undefined);
  const firsts = seen.map((c) => c.firstTimeMs).filter((t): t is number => t !== null);
  const lasts = seen.map((c) => c.mtimeMs).filter((t): t is number => t !== null);
  return {
    loop,
    phase,
    statusRecords: statusFile ? (get(statusFile)?.records ?? []) : [],
    logRecords: logFile ? (get(logFile)?.records ?? []) : [],
    stages: files
      .filter((f) => f.kind === 'rc' && f.stage !== null)
      .map((f) => ({ stage: f.stage ?? '', records: get(f)?.records ?? [], mtimeMs: get(f)?.mtimeMs ?? null }))
      .sort((a, b) => a.stage.localeCompare(b.stage)),
    hasLog: logFile !== undefined && get(logFile) !== undefined,
    hasStatus: statusFile !== undefined && get(statusFile) !== undefined,
    firstFileTime: firsts.length ? new Date(Math.min(...firsts)).toISOString() : null,
    lastFileTime: lasts.length ? new Date(Math.max(...lasts)).toISOString() : null,
  };
}
