import type Database from 'better-sqlite3';
import type { Problem } from '../../../shared/domain';
import type { FileRowCache } from './file-rows';
import type { FileCommit } from './store-types';
import type { QueryMaker } from './query';

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

  /** The SQL, its parameters and rows declared once. */
  private readonly q;

  constructor(
    private readonly db: Database.Database,
    queries: QueryMaker,
    private readonly rows: FileRowCache,
  ) {
    this.q = {
      deleteOf: queries.query<[fileId: number]>('DELETE FROM problems WHERE file_id = ?'),
      zeroDropped: queries.query<[fileId: number]>('UPDATE files SET problems_dropped = 0 WHERE id = ? AND problems_dropped > 0'),
      clearError: queries.query<[fileId: number]>('UPDATE files SET error = NULL WHERE id = ? AND error IS NOT NULL'),
      countOf: queries.column<[fileId: number], number>('SELECT COUNT(*) AS n FROM problems WHERE file_id = ?'),
      insert: queries.query<[fileId: number, line: number | null, message: string]>('INSERT INTO problems (file_id, line, message) VALUES (?, ?, ?)'),
      addDropped: queries.query<[over: number, fileId: number]>('UPDATE files SET problems_dropped = problems_dropped + ? WHERE id = ?'),
      setError: queries.query<[message: string | null, fileId: number, message: string | null]>('UPDATE files SET error = ? WHERE id = ? AND error IS NOT ?'),
      fileId: queries.column<[host: string, path: string], number>('SELECT id FROM files WHERE host = ? AND path = ?'),
      withProblemsUnder: queries.query<[host: string, prefix: string, prefix: string], { id: number; path: string }>(
        `SELECT id, path FROM files WHERE host = ? AND substr(path, 1, length(?)) = ?
           AND (error IS NOT NULL OR problems_dropped > 0 OR EXISTS (SELECT 1 FROM problems p WHERE p.file_id = files.id))`,
      ),
      listAll: queries.query<[], Problem>(listSql('')),
      listOf: queries.query<[host: string, host: string, host: string], Problem>(listSql('AND f.host = ?')),
      clearFlags: queries.query<[fileId: number]>('UPDATE files SET problems_dropped = 0, error = NULL WHERE id = ? AND (problems_dropped > 0 OR error IS NOT NULL)'),
    };
  }

  /** Changes whenever a stored problem is added or removed (cheap to compare on every poll). */
  get revision(): number {
    return this.version;
  }

  /** A commit's part: clear what a reset file had, its error (it was read), and keep what it found, bounded. */
  commit(fileId: number, c: Pick<FileCommit, 'reset' | 'resetProblems' | 'problems'>): void {
    if (c.reset || c.resetProblems) {
      const gone = this.q.deleteOf.run(fileId).changes;
      const counted = this.q.zeroDropped.run(fileId).changes;
      if (gone + counted > 0) this.version++;
    }
    // A row this process holds with no error needs no statement to say so (the cache is fresh).
    if (this.rows.raw(fileId)?.error !== null) {
      if (this.q.clearError.run(fileId).changes > 0) this.version++;
    }
    if (c.problems.length === 0) return;
    // A junk file of a million lines is twenty problems and a count, not a million rows.
    const kept = this.q.countOf.get(fileId) ?? 0;
    const room = Math.max(0, MAX_PROBLEMS_PER_FILE - kept);
    for (const p of c.problems.slice(0, room)) this.q.insert.run(fileId, p.line, p.message);
    const over = c.problems.length - Math.min(room, c.problems.length);
    if (over > 0) this.q.addDropped.run(over, fileId);
    this.version++;
  }

  /** Why a file that is there was not read; null clears it. */
  setError(fileId: number, message: string | null): void {
    if (this.rows.raw(fileId)?.error === message) return;
    if (this.q.setError.run(message, fileId, message).changes > 0) this.version++;
    this.rows.update(fileId, (r) => ({ ...r, error: message }));
  }

  /** Forget the problems of a file that is gone (deleted, or no longer followed); its records stay. */
  clear(host: string, path: string): void {
    const id = this.q.fileId.get(host, path);
    if (id !== undefined) this.clearOf(id);
  }

  /** Forget the problems of every file under `prefix` on `host` that `keep` refuses (files no longer listed). */
  prune(host: string, prefix: string, keep: (path: string) => boolean): void {
    const rows = this.q.withProblemsUnder.all(host, prefix, prefix);
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
    const rows = host === undefined ? this.q.listAll.all() : this.q.listOf.all(host, host, host);
    this.cache.set(key, { version: this.version, problems: rows });
    return [...rows];
  }

  private clearOf(fileId: number): void {
    this.db.transaction(() => {
      const gone = this.q.deleteOf.run(fileId).changes;
      const flags = this.q.clearFlags.run(fileId).changes;
      if (gone + flags > 0) this.version++;
    })();
    this.rows.update(fileId, (r) => ({ ...r, error: null }));
  }
}

/** The problems of every file (`where` empty) or of one host's (`where` 'AND f.host = ?', bound three times). */
function listSql(where: string): string {
  return `SELECT source, line, message FROM (
           SELECT f.path AS source, NULL AS line, f.error AS message, 0 AS k, 0 AS r FROM files f WHERE f.error IS NOT NULL ${where}
           UNION ALL
           SELECT f.path, p.line, p.message, 1, p.rowid FROM problems p JOIN files f ON f.id = p.file_id WHERE 1 ${where}
           UNION ALL
           SELECT f.path, NULL, '… and ' || f.problems_dropped || ' more problems in this file', 2, 0 FROM files f WHERE f.problems_dropped > 0 ${where}
         ) ORDER BY source, k, line, r`;
}
