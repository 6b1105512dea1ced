import type Database from 'better-sqlite3';
import type { Problem } from '../../../shared/domain';
import type { FileRowCache } from './file-rows';
import type { FileCommit } from './store-types';

/** The most problems kept per file; the rest are counted, and shown as one line saying how many. */
export const MAX_PROBLEMS_PER_FILE = 20;

/**
 * The problems of the followed files (`problems`, `files.error`, `files.problems_dropped`): what a
 * commit found, why a file was not read, and the files no longer listed whose problems go. Read
 * back from SQLite only after one was added or removed (`revision` says when), since the engine
 * asks on every poll. Its writes run inside the store's transactions.
 */
export class FileProblems {
  /** Bumped whenever a problem is added or removed. */
  private version = 0;
  private readonly cache = new Map<string, { version: number; problems: readonly Problem[] }>();

  constructor(
    private readonly db: Database.Database,
    private readonly statement: (sql: string) => Database.Statement,
    private readonly rows: FileRowCache,
  ) {}

  /** Changes whenever a stored problem is added or removed (cheap to compare on every poll). */
  get revision(): number {
    return this.version;
  }

  /** A commit's part: clear what a reset file had, its error (it was read), and keep what it found, bounded. */
  commit(fileId: number, c: Pick<FileCommit, 'reset' | 'resetProblems' | 'problems'>): void {
    if (c.reset || c.resetProblems) {
      const gone = this.statement('DELETE FROM problems WHERE file_id = ?').run(fileId).changes;
      const counted = this.statement('UPDATE files SET problems_dropped = 0 WHERE id = ? AND problems_dropped > 0').run(fileId).changes;
      if (gone + counted > 0) this.version++;
    }
    // A row this process holds with no error needs no statement to say so (the cache is fresh).
    if (this.rows.raw(fileId)?.error !== null) {
      if (this.statement('UPDATE files SET error = NULL WHERE id = ? AND error IS NOT NULL').run(fileId).changes > 0) this.version++;
    }
    if (c.problems.length === 0) return;
    // A junk file of a million lines is twenty problems and a count, not a million rows.
    const kept = (this.statement('SELECT COUNT(*) AS n FROM problems WHERE file_id = ?').get(fileId) as { n: number }).n;
    const room = Math.max(0, MAX_PROBLEMS_PER_FILE - kept);
    const insert = this.statement('INSERT INTO problems (file_id, line, message) VALUES (?, ?, ?)');
    for (const p of c.problems.slice(0, room)) insert.run(fileId, p.line, p.message);
    const over = c.problems.length - Math.min(room, c.problems.length);
    if (over > 0) this.statement('UPDATE files SET problems_dropped = problems_dropped + ? WHERE id = ?').run(over, fileId);
    this.version++;
  }

  /** Why a file that is there was not read; null clears it. */
  setError(fileId: number, message: string | null): void {
    if (this.rows.raw(fileId)?.error === message) return;
    if (this.statement('UPDATE files SET error = ? WHERE id = ? AND error IS NOT ?').run(message, fileId, message).changes > 0) this.version++;
    this.rows.update(fileId, (r) => ({ ...r, error: message }));
  }

  /** Forget the problems of a file that is gone (deleted, or no longer followed); its records stay. */
  clear(host: string, path: string): void {
    const row = this.statement('SELECT id FROM files WHERE host = ? AND path = ?').get(host, path) as { id: number } | undefined;
    if (row) this.clearOf(row.id);
  }

  /** Forget the problems of every file under `prefix` on `host` that `keep` refuses (files no longer listed). */
  prune(host: string, prefix: string, keep: (path: string) => boolean): void {
    const rows = this
      .statement(
        `SELECT id, path FROM files WHERE host = ? AND substr(path, 1, length(?)) = ?
           AND (error IS NOT NULL OR problems_dropped > 0 OR EXISTS (SELECT 1 FROM problems p WHERE p.file_id = files.id))`,
      )
      .all(host, prefix, prefix) as { id: number; path: string }[];
    for (const r of rows) if (!keep(r.path)) this.clearOf(r.id);
  }

  /**
   * Every problem found in the files of a host (or of all hosts), naming file and line: per file,
   * why it was not read, its first MAX_PROBLEMS_PER_FILE problems and how many more there were.
   */
  list(host?: string): Problem[] {
    const key = host ?? '\0all';
    const cached = this.cache.get(key);
    if (cached && cached.version === this.version) return [...cached.problems];
    const where = host === undefined ? '' : 'AND f.host = ?';
    const rows = this
      .statement(
        `SELECT source, line, message FROM (
           SELECT f.path AS source, NULL AS line, f.error AS message, 0 AS k, 0 AS r FROM files f WHERE f.error IS NOT NULL ${where}
           UNION ALL
           SELECT f.path, p.line, p.message, 1, p.rowid FROM problems p JOIN files f ON f.id = p.file_id WHERE 1 ${where}
           UNION ALL
           SELECT f.path, NULL, '… and ' || f.problems_dropped || ' more problems in this file', 2, 0 FROM files f WHERE f.problems_dropped > 0 ${where}
         ) ORDER BY source, k, line, r`,
      )
      .all(...(host === undefined ? [] : [host, host, host])) as Problem[];
    this.cache.set(key, { version: this.version, problems: rows });
    return [...rows];
  }

  private clearOf(fileId: number): void {
    this.db.transaction(() => {
      const gone = this.statement('DELETE FROM problems WHERE file_id = ?').run(fileId).changes;
      const flags = this.statement('UPDATE files SET problems_dropped = 0, error = NULL WHERE id = ? AND (problems_dropped > 0 OR error IS NOT NULL)').run(fileId).changes;
      if (gone + flags > 0) this.version++;
    })();
    this.rows.update(fileId, (r) => ({ ...r, error: null }));
  }
}
