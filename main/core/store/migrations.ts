import type Database from 'better-sqlite3';

/**
 * The database schema as an ordered list of migrations: `PRAGMA user_version` records how many
 * have run. Each feature owns its tables' migrations; the list is assembled above the store
 * (main/core/engine/migrations.ts, which installs it with useSchema), since the store (plumbing)
 * may not import a feature.
 */
export type Migrations = readonly string[];

let installed: Migrations | null = null;

/** The schema Store.open uses when its options name none (engine/migrations.ts installs it when loaded). */
export function useSchema(migrations: Migrations): void {
  installed = migrations;
}

/** The installed schema; an error naming the module to load when there is none. */
export function installedSchema(): Migrations {
  if (!installed) throw new Error('No database schema installed: load main/core/engine/migrations.ts (it installs the schema) or pass StoreOptions.migrations.');
  return installed;
}

/** A migration that left more than 1 / FREE_SHARE_TO_VACUUM of the file free is followed by VACUUM. */
const FREE_SHARE_TO_VACUUM = 4;

/** Bring `db` to schema `target`, one transaction a migration; refuses a database a newer Loopdeck wrote. */
export function migrate(db: Database.Database, migrations: Migrations, target: number): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `The database was written by a newer Loopdeck (schema ${current}, this one knows ${migrations.length}). Upgrade Loopdeck or use another --data folder.`,
    );
  }
  // Each step reads the version again under the write lock (BEGIN IMMEDIATE): two processes
  // opening a new data folder at once (two CLI verbs, the app and a verb) would otherwise both run
  // a migration the other already ran ("duplicate column name"). The second waits (busy_timeout),
  // then finds the step done.
  const step = db.transaction((): boolean => {
    const v = db.pragma('user_version', { simple: true }) as number;
    if (v >= target) return false;
    db.exec(migrations[v] ?? '');
    db.pragma(`user_version = ${v + 1}`);
    return true;
  });
  while (step.immediate()) {
    // One migration a transaction, until the target.
  }
  // A migration that rebuilt a table (11: `records`, most of a database) left the old one's pages
  // free, a 68 MB database 117 MB after it: once, right after, the file is rewritten without them.
  if (target > current && current > 0) {
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    if (free * FREE_SHARE_TO_VACUUM > pages) {
      try {
        db.exec('VACUUM');
      } catch {
        // Held by another process past busy_timeout, or no room for its copy: the file stays as it was.
      }
    }
  }
}
