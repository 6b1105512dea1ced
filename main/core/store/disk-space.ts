import { statfsSync } from 'node:fs';
import type { Problem } from '../../../shared/domain';
import { log } from '../logging/log';
import { isDiskFull } from './store-errors';
import { messageOf } from '../../../shared/errors';

/** Bytes an unprivileged writer may still use in the folder's filesystem, or null when it cannot be told. */
export function bytesFree(folder: string): number | null {
  try {
    const s = statfsSync(folder);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** The problem a full data folder is, naming it and how much room is left. */
export function dataFolderFullProblem(folder: string, free: number | null): Problem {
  const room = free === null ? 'no room' : `${free} bytes free`;
  return {
    source: folder,
    line: null,
    message:
      `data folder full: ${room} in ${folder}. Free some space there (or start Loopdeck with another --data DIR): ` +
      'until then nothing new is stored, and once there is room Loopdeck writes again on its own, reading again what it could not store.',
  };
}

/**
 * Whether the data folder is full: the one place that rule lives. Every write that fails — a
 * commit of a followed file, a position, a notice, the saved summary — is shown here, and a
 * failure of a full disk (SQLITE_FULL, ENOSPC, EDQUOT) makes the folder's problem until a later
 * write succeeds. Said once in the log each time it fills up, and once when it has room again.
 */
export class DiskSpace {
  private full: Problem | null = null;
  private changes = 0;

  constructor(
    /** The data folder. */
    readonly folder: string,
  ) {}

  /** Moves whenever the folder became full or had room again: compare it, not the problem. */
  get revision(): number {
    return this.changes;
  }

  /** Whether the last write that tried failed for want of room. */
  get isFull(): boolean {
    return this.full !== null;
  }

  /** A write failed (`what` failed): true when for want of room, which is then the folder's problem. */
  failed(err: unknown, what: string): boolean {
    if (!isDiskFull(err)) return false;
    if (this.full === null) {
      this.full = dataFolderFullProblem(this.folder, bytesFree(this.folder));
      this.changes++;
      log.warn(`${this.full.message} (${what}: ${messageOf(err)})`);
    }
    return true;
  }

  /** A write succeeded: the folder has room (again). */
  wrote(): void {
    if (this.full === null) return;
    this.full = null;
    this.changes++;
    log.info(`the data folder ${this.folder} has room again: Loopdeck stores what it reads again.`);
  }

  /** The folder's problem while it is full, else null. */
  problem(): Problem | null {
    return this.full;
  }
}
