import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Summary } from '../../../shared/ledger-slice';
import { log } from '../logging/log';
import type { DiskSpace } from '../store/disk-space';
import { savedSummaryFault } from './summary-shape';

/** The file in the data folder that keeps the summary between runs. */
export const SUMMARY_CACHE_FILE = 'summary.json';

/** A saved summary larger than this is not read (it is bounded by the loops' windows: ~1 MB a year). */
export const MAX_SUMMARY_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The shape of summary this build saves and reads: a hash of SummarySchema's JSON Schema
 * (summary-cache.test.ts computes it and fails, naming the new value, when the schema changes).
 * A file saved by a build with another shape is ignored; one of this format is then checked by
 * hand (savedSummaryFault: 4-5 ms on a year's summary on the first call, where SummarySchema took
 * 20-26 ms), against damage or edits since it was saved.
 */
export const SUMMARY_FORMAT = '8a60f0cb905835c4';

/** The saved file: the summary with the format it was saved in. */
interface SavedFile {
  readonly format: string;
  readonly summary: Summary;
}

function isSavedSummary(value: unknown): value is { readonly format: string; readonly summary: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const { format, summary } = value as Partial<SavedFile>;
  return typeof format === 'string' && typeof summary === 'object' && summary !== null;
}

/**
 * The state as it was when the app last ran, so the console paints at once after a start while
 * the first read of a year of history catches up (about 2 s for 365 cycles and 60,000 findings).
 * It holds no ledger rows, only their counts. Anything wrong with the file (missing, too big, not
 * a summary, a field of the wrong shape) is logged naming the file and ignored: the console then
 * waits for the first read, as before.
 */
export function readSummaryCache(dataDir: string): Summary | null {
  const path = join(dataDir, SUMMARY_CACHE_FILE);
  try {
    if (statSync(path).size > MAX_SUMMARY_CACHE_BYTES) {
      log.warn(`${path}: larger than ${MAX_SUMMARY_CACHE_BYTES} bytes; not read (the console waits for the first read).`);
      return null;
    }
    const saved: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!isSavedSummary(saved)) {
      log.warn(`${path}: not a saved summary; ignored.`);
      return null;
    }
    if (saved.format !== SUMMARY_FORMAT) {
      log.info(`${path}: saved by a build with another summary format (${saved.format}); ignored.`);
      return null;
    }
    const fault = savedSummaryFault(saved.summary);
    if (fault === null) return saved.summary as Summary;
    log.warn(`${path}: not a summary as this build saves it (${fault}); ignored, the console waits for the first read.`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`${path}: could not be read; ignored.`, err);
  }
  return null;
}

/**
 * Save the summary for the next start: written beside, then renamed, so a crash or a full disk
 * leaves the old one whole (and the half-written one is removed, not left taking the room). A
 * full disk is the data folder's problem (`space`); the next save tries again.
 */
export function writeSummaryCache(dataDir: string, summary: Summary, space?: DiskSpace): void {
  const path = join(dataDir, SUMMARY_CACHE_FILE);
  try {
    const { restored: _restored, reading: _reading, ...fresh } = summary;
    const saved: SavedFile = { format: SUMMARY_FORMAT, summary: fresh };
    writeFileSync(`${path}.tmp`, JSON.stringify(saved));
    renameSync(`${path}.tmp`, path);
    space?.wrote();
  } catch (err) {
    rmSync(`${path}.tmp`, { force: true });
    if (!space?.failed(err, `saving ${path}`)) log.warn(`${path}: could not be saved.`, err);
  }
}

/** How often a fresh summary is saved while the app runs (besides at close). */
export const SUMMARY_SAVE_MS = 15 * 60 * 1000;

/** What the keeper needs of the engine. */
export interface SummarySource {
  summary(): Summary;
  behind(): boolean;
}

/**
 * The summary across restarts: the one saved last time is answered (marked `restored`) until the
 * first poll after the start has caught up; without one, the live state is answered marked
 * `reading` until then, since a console that took a half-read state for the whole would show and
 * copy it. Once caught up, the console is told to load afresh (`state.reset`), and a fresh summary
 * is saved then, every SUMMARY_SAVE_MS, and at close.
 */
export class SavedSummary {
  private restored: Summary | null;
  private caughtUp = false;
  private savedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly dataDir: string,
    /** Where a save that failed for want of room is said (the store's). */
    private readonly space?: DiskSpace,
  ) {
    this.restored = readSummaryCache(dataDir);
  }

  /** The saved summary while the first read has not caught up yet, else null. */
  get pending(): Summary | null {
    return this.restored;
  }

  /** Why there are no ledger rows to page yet (the first read has not caught up), or null once there are. */
  get rowsPending(): string | null {
    if (this.caughtUp) return null;
    return this.restored
      ? 'the state shown is the one saved at the last run, and the first read since the start has not caught up yet'
      : 'the first read since the start has not caught up yet';
  }

  /** What `state.summary` answers: the saved summary, or the live one, marked while the first read runs. */
  answer(source: SummarySource): Summary {
    if (this.restored) return { ...this.restored, restored: true };
    const live = source.summary();
    return this.caughtUp ? live : { ...live, reading: true };
  }

  /** After each poll; true when this one ended the first read (publish `state.reset`). */
  afterPoll(source: SummarySource, nowMs: number): boolean {
    if (source.behind()) return false;
    const ended = !this.caughtUp;
    this.caughtUp = true;
    this.restored = null;
    if (ended || nowMs - this.savedAt >= SUMMARY_SAVE_MS) {
      this.savedAt = nowMs;
      writeSummaryCache(this.dataDir, source.summary(), this.space);
    }
    return ended;
  }

  /** Save for the next start, unless the first read never caught up (a saved one stays; a half-read state is not saved). */
  close(source: SummarySource): void {
    if (this.caughtUp) writeSummaryCache(this.dataDir, source.summary(), this.space);
  }
}
