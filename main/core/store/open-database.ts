import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { installedSchema, migrate, type Migrations } from './migrations';

// Opening Loopdeck's SQLite file: the connection's settings (WAL, busy timeout) and its schema. The
// store (store.ts) works on the connection this returns.

/** How long opening a new database tries to switch it to WAL while another process does the same (ms). */
const WAL_SWITCH_MS = 5000;

/**
 * Switch to WAL. Two processes switching a new file at once can each hold the shared lock the
 * other's switch must wait out: SQLite then answers SQLITE_BUSY at once to one of them, without
 * its busy handler (that wait could never end). That one tries again, a few ms later, for up to
 * WAL_SWITCH_MS; by then the other has switched, and the switch is a read.
 */
function switchToWal(db: Database.Database): void {
  const until = Date.now() + WAL_SWITCH_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Options for opening the store. */
export interface StoreOptions {
  /** A better-sqlite3 build for another ABI (Electron's); the Node build is used otherwise. */
  readonly nativeBinding?: string;
  /** Run only this many migrations: lets a test create a database as an older Loopdeck did. */
  readonly migrateTo?: number;
  /** The schema (engine/migrations.ts's MIGRATIONS); the installed one (useSchema) when absent. */
  readonly migrations?: Migrations;
}

/** Open (creating and migrating as needed) the database at `file`, set up as the store needs it. */
export function openDatabase(file: string, options: StoreOptions = {}): Database.Database {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
    try {
      // The first read of the file: SQLite finds a truncated or overwritten one here (SQLITE_CORRUPT).
      // busy_timeout first: another process may be creating or migrating the same file.
      db.pragma('busy_timeout = 5000');
      switchToWal(db);
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      const migrations = options.migrations ?? installedSchema();
      migrate(db, migrations, options.migrateTo ?? migrations.length);
    } catch (err) {
      // Closed, so that a damaged file can be moved aside (openStore) with nothing holding it.
      db.close();
      throw err;
    }
    return db;
}
