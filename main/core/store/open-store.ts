import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { databasePath } from '../config/paths';
import { DataFolderError, prepareDataFolder } from '../config/data-folder';
import { log } from '../logging/log';
import { damagedMarker, isDamaged } from './store-errors';
import { Store, type StoreOptions } from './store';
import { messageOf } from '../../../shared/errors';

/** The store of a data folder, and what was done to open it. */
export interface OpenedStore {
  readonly store: Store;
  /** One sentence when a damaged database was moved aside for a fresh one (logged already), else null. */
  readonly recovered: string | null;
}

const SIDE_FILES = ['-wal', '-shm'] as const;

/** Move a damaged database and its -wal and -shm aside (kept, for a look later); one sentence saying where. */
function moveAside(file: string, why: string): string {
  const kept = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, kept);
  for (const side of SIDE_FILES) if (existsSync(`${file}${side}`)) renameSync(`${file}${side}`, `${kept}${side}`);
  rmSync(damagedMarker(file), { force: true });
  return `${file} was damaged (${why}): it was moved to ${kept} (with its -wal and -shm, if any), and Loopdeck started a fresh database, reading the sources again.`;
}

/**
 * Open the database of a data folder for every shell. The folder must be writable (else a
 * DataFolderError naming it). The database is a cache of what the sources hold: one SQLite calls
 * damaged (SQLITE_CORRUPT, SQLITE_NOTADB: a truncated or overwritten file), on opening or on a
 * query of an earlier run (which left a marker, see Store.noteFailure), is moved aside and a fresh
 * one started, said in one logged sentence. No integrity check runs on every open: `PRAGMA
 * quick_check` took 23–30 ms on a year's 60 MB database, growing with it, and SQLite finds a
 * truncated file on the first read of it, which the open makes.
 */
export function openStore(dataDir: string, options: StoreOptions = {}): OpenedStore {
  prepareDataFolder(dataDir);
  const file = databasePath(dataDir);
  let recovered: string | null = null;
  const marker = damagedMarker(file);
  if (existsSync(marker)) {
    const why = readFileSync(marker, 'utf8').trim() || 'found damaged by an earlier run';
    recovered = existsSync(file) ? moveAside(file, why) : null;
    rmSync(marker, { force: true });
  }
  let store: Store;
  try {
    store = Store.open(file, options);
  } catch (err) {
    if (!isDamaged(err)) throw readOnlyOr(dataDir, err);
    recovered = moveAside(file, messageOf(err));
    store = Store.open(file, options);
  }
  if (recovered) log.warn(recovered);
  return { store, recovered };
}

/**
 * Open the folder's store (openStore) and make on it what runs the first queries (an engine: its
 * notices, drills and hosts read the store as they are made). A database those queries find
 * damaged is moved aside and both made again, once; any other failure closes the store.
 */
export function openWith<T>(dataDir: string, options: StoreOptions, make: (store: Store) => T): OpenedStore & { readonly made: T } {
  for (let attempt = 0; ; attempt++) {
    const opened = openStore(dataDir, options);
    try {
      return { ...opened, made: make(opened.store) };
    } catch (err) {
      const damaged = attempt === 0 && opened.store.noteFailure(err) === 'damaged';
      opened.store.close();
      if (!damaged) throw err;
    }
  }
}

/** A database the folder's check let through but SQLite cannot write (a read-only file in it): said as the folder's problem. */
function readOnlyOr(dataDir: string, err: unknown): unknown {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_READONLY_')) {
    return new DataFolderError(dataDir, `The database in the data folder ${dataDir} cannot be written (${messageOf(err)}): choose a writable folder with --data DIR (or make this one writable).`);
  }
  return err;
}
