import { writeFileSync } from 'node:fs';
import type { Problem } from '../../../shared/domain';
import { log } from '../logging/log';
import type { DiskSpace } from './disk-space';
import { damagedMarker, isDamaged } from './store-errors';
import { messageOf } from '../../../shared/errors';

/** The store's own trouble: a full data folder (DiskSpace) or a database SQLite called damaged. */
export class StoreHealth {
  /** Why SQLite called the database damaged on a query of this run, or null. */
  private damage: string | null = null;
  private version = 0;

  constructor(
    private readonly dbPath: string,
    private readonly space: DiskSpace,
  ) {}

  /**
   * Take note of a failed query or write on this connection, wherever it was caught (a poll, a
   * timer, a notice sink; `what` says what failed). A full disk is the data folder's problem until
   * a write succeeds again (`space`). A database SQLite calls damaged is left a marker beside it,
   * so the next open moves it aside for a fresh one (openStore). `problems` says either
   * meanwhile. Returns what the failure was, or null for any other (the caller's to report).
   */
  noteFailure(err: unknown, what: string): 'disk-full' | 'damaged' | null {
    if (this.space.failed(err, what)) return 'disk-full';
    if (!isDamaged(err)) return null;
    if (this.damage === null) {
      this.damage = messageOf(err);
      this.version++;
      // Info only: opening it next (at once, in the console and the CLI) says what was done, in one line.
      log.info(`${this.dbPath} is damaged (${this.damage}): when Loopdeck opens it next, it is moved aside (and kept) for a fresh database, and the sources are read again.`);
      if (this.dbPath !== ':memory:') {
        try {
          writeFileSync(damagedMarker(this.dbPath), `${this.damage}\n`);
        } catch {
          // The folder cannot take even this: the next open finds the damage itself, or this is said again.
        }
      }
    }
    return 'damaged';
  }

  /** SQLite called the database damaged on a query of this run: it should be opened afresh. */
  get damaged(): boolean {
    return this.damage !== null;
  }

  /** A full data folder, a damaged database, as problems naming the folder or file. */
  problems(): Problem[] {
    const full = this.space.problem();
    return [
      ...(full ? [full] : []),
      ...(this.damage === null
        ? []
        : [{ source: this.dbPath, line: null, message: `The database is damaged (${this.damage}): Loopdeck opens a fresh one (keeping this one aside) and reads the sources again; if this stays, restart Loopdeck.` }]),
    ];
  }

  /** Moves whenever `problems` changed. */
  get revision(): number {
    return this.version + this.space.revision;
  }
}
