import { log } from '../logging/log';

/**
 * Positions moved by lines that made no record are written to SQLite within this long (ms): with
 * a poll that comes this long after the last write, else by a timer. Five seconds: a restart reads
 * at most that much again, and those lines make no record the second time either; a transaction
 * a second was a seventh of what a line cost in a process woken for each one.
 */
export const POSITION_WRITE_MS = 5000;

/** What the position writer writes with, and where it notes a failure. */
export interface PositionWrites {
  /** The database file, named in the one warning a failing write logs. */
  readonly dbPath: string;
  /** Write the positions held only in memory now (one transaction). */
  flush(): void;
  /** Whether the database is still open. */
  open(): boolean;
  /** Note a failed write as the store's (a full disk, a damaged file); null when it is neither. */
  noteFailure(err: unknown, what: string): 'disk-full' | 'damaged' | null;
}

/**
 * Writes the positions held in memory within POSITION_WRITE_MS. While lines keep coming they go
 * with the first of them at least POSITION_WRITE_MS after the last write, in the poll that read
 * it; once they stop, a timer set at the first one left unwritten writes them (and is cleared by
 * such a write, so while lines flow it never wakes the process). From a timer nothing may escape:
 * a write that fails (a full disk, another process holding the database past its busy timeout)
 * is noted, and tried again every POSITION_WRITE_MS while there is something to write.
 */
export class PositionWriter {
  private timer: NodeJS.Timeout | null = null;
  /** When a write transaction last committed (performance clock, ms). */
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** The last write failed (said once, not once a second). */
  private failing = false;

  constructor(private readonly writes: PositionWrites) {}

  /** A write transaction committed (a commit's or this writer's). */
  wrote(): void {
    this.lastWriteAt = performance.now();
  }

  /** A position was left in memory: write it now if the last write is old enough, else within POSITION_WRITE_MS. */
  soon(): void {
    if (!this.failing && performance.now() - this.lastWriteAt >= POSITION_WRITE_MS && this.tryWrite()) {
      this.stop();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      if (!this.tryWrite() && this.writes.open()) this.soon();
    }, POSITION_WRITE_MS).unref();
  }

  /** No timer from now on (the store closes, writing what is held itself). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Write the positions held in memory; false (the failure noted, said once) when that failed. */
  private tryWrite(): boolean {
    try {
      this.writes.flush();
      this.failing = false;
      return true;
    } catch (err) {
      if (this.writes.noteFailure(err, 'writing the positions of followed files') === null && !this.failing) {
        log.warn(`${this.writes.dbPath}: writing the positions of followed files failed; trying again every ${POSITION_WRITE_MS} ms.`, err);
      }
      this.failing = true;
      return false;
    }
  }
}
