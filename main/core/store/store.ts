import type Database from 'better-sqlite3';
import { dirname } from 'node:path';
import type { Problem } from '../../../shared/domain';
import type { PhaseRecord } from '../text/line-parser';
import { afterCommit, FileRowCache, type RawFileRow } from './file-rows';
import { log } from '../logging/log';
import { DiskSpace } from './disk-space';
import { FileProblems } from './file-problems';
import { StoreHealth } from './store-health';
import { LineIndexTable } from './line-index';
import type { FileCommit, FileRow } from './store-types';
import { queryMaker, type Query, type QueryMaker } from './query';
import { PositionWriter } from './position-writer';
import { openDatabase, type StoreOptions } from './open-database';

export type { FileCommit, FileRow, IndexPoint, LineMark, LineRecord } from './store-types';
export type { Query, QueryMaker } from './query';
export type { StoreOptions } from './open-database';

export { POSITION_WRITE_MS } from './position-writer';

/**
 * The most records stored in one `records` row. A commit's records share rows (a JSON array), so
 * appending a ledger section costs one insert; the bound keeps a first read of a year's ledger
 * from making one row of tens of megabytes.
 */
export const RECORDS_PER_ROW = 256;

export { MAX_PROBLEMS_PER_FILE } from './file-problems';

/**
 * Loopdeck's SQLite database (WAL). Records and the offsets they were read up to are written in
 * one transaction, so a crash or restart resumes exactly where the last commit left off.
 */
export class Store implements QueryMaker {
  /** Prepared statements by SQL text: preparing costs more than running a small one. */
  private readonly statements = new Map<string, Database.Statement>();
  /** The followed files' problems (file-problems.ts). */
  private readonly fileProblems: FileProblems;

  /** Changes whenever a stored problem is added or removed (cheap to compare on every poll). */
  get problemsRevision(): number {
    return this.fileProblems.revision;
  }

  /** The files rows in use, kept in memory (re-read only after another connection wrote). */
  private readonly rows: FileRowCache;
  /** One transaction function for every commit (building one per commit costs more than a small commit). */
  private readonly commitTx: (fileId: number, c: FileCommit, state: string) => void;
  /** Writes the positions held only in memory (see `commit`) when no poll does, within POSITION_WRITE_MS of the first. */
  private readonly positions: PositionWriter;

  /** A full data folder, a damaged database (store-health.ts). */
  private readonly health: StoreHealth;
  /** Whether the data folder is full (see DiskSpace): every failed write here is noted in it. */
  readonly space: DiskSpace;
  /** Transcripts' sparse line index and marks, written with the positions that cover them. */
  readonly lineIndex: LineIndexTable;

  private constructor(
    private readonly db: Database.Database,
    /** The database file (or ':memory:'). */
    readonly dbPath: string,
  ) {
    this.rows = new FileRowCache(db);
    this.fileProblems = new FileProblems(db, this, this.rows);
    this.space = new DiskSpace(dirname(dbPath));
    this.health = new StoreHealth(dbPath, this.space);
    this.lineIndex = new LineIndexTable(this);
    this.positions = new PositionWriter({ dbPath, flush: () => this.flushPositions(), open: () => db.open, noteFailure: (err, what) => this.noteFailure(err, what) });
    this.commitTx = db.transaction((fileId: number, c: FileCommit, state: string) => {
      // Positions held in memory go first, so this commit's UPDATE starts from them.
      this.writeUnwritten();
      this.applyCommit(fileId, c, state);
    });
  }

  /**
   * A statement prepared once on this connection and kept (fixed SQL text only: the cache is keyed
   * by it). Preparing costs more than running a small query, and some run on every poll.
   */
  private statement(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /**
   * Declare a query: its parameters `P` and row type `R` are stated once here, by the feature's
   * repository that holds the SQL (fixed text only: the statement cache is keyed by it). Prepared
   * on first use, and kept.
   */
  query<P extends readonly unknown[], R = never>(sql: string): Query<P, R> {
    return this.queries.query<P, R>(sql);
  }

  /**
   * A count that moves whenever another connection committed to this database (another process on
   * the same data folder: `loopdeck drill run` beside the console). Rows a feature read and keeps
   * in memory hold while it stands, as long as the feature drops them on its own writes.
   */
  writesElsewhere(): number {
    return this.rows.writesElsewhere();
  }

  /** Declare a query whose rows are each their first column (`SELECT COUNT(*) ...`, `SELECT key ...`). */
  column<P extends readonly unknown[], V>(sql: string): Query<P, V> {
    return this.queries.column<P, V>(sql);
  }

  /** Queries over this connection's statement cache. */
  private readonly queries: QueryMaker = queryMaker((sql) => this.statement(sql));

  /** The store's own queries on `files`, `records` and `meta`. */
  private readonly q = {
    fileByPath: this.query<[host: string, path: string], RawFileRow>('SELECT * FROM files WHERE host = ? AND path = ?'),
    insertFile: this.query<[host: string, path: string]>('INSERT INTO files (host, path) VALUES (?, ?)'),
    pathsUnder: this.column<[host: string, prefix: string, prefix: string], string>('SELECT path FROM files WHERE host = ? AND substr(path, 1, length(?)) = ?'),
    recordsOf: this.column<[fileId: number], string>('SELECT data FROM records WHERE file_id = ? ORDER BY id'),
    meta: this.column<[key: string], string>('SELECT value FROM meta WHERE key = ?'),
  };

  /** Open (creating and migrating as needed) the database at `file`. */
  static open(file: string, options: StoreOptions = {}): Store {
    return new Store(openDatabase(file, options), file);
  }

  /** Take note of a failed query or write on this connection (StoreHealth.noteFailure). */
  noteFailure(err: unknown, what = 'a write'): 'disk-full' | 'damaged' | null {
    return this.health.noteFailure(err, what);
  }

  /** SQLite called the database damaged on a query of this run: it should be opened afresh. */
  get damaged(): boolean {
    return this.health.damaged;
  }

  /** The store's own trouble, as problems naming the folder or file: a full data folder, a damaged database. */
  healthProblems(): Problem[] {
    return this.health.problems();
  }

  /** Moves whenever `healthProblems` changed. */
  get healthRevision(): number {
    return this.health.revision;
  }

  /**
   * While the data folder is full, try a small write (a poll with nothing new to store makes none):
   * when it succeeds the folder has room again, and the problem goes.
   */
  probeRoom(): void {
    if (!this.space.isFull || !this.db.open) return;
    try {
      this.db.transaction(() => this.setMeta('room.checkedAt', new Date().toISOString()))();
      this.space.wrote();
    } catch (err) {
      this.noteFailure(err, 'checking for room');
    }
  }

  /** The schema version (number of migrations applied). */
  get version(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /** The row for a followed file, created on first use. */
  file(host: string, path: string): FileRow {
    const cached = this.rows.get(host, path);
    if (cached) return cached;
    const found = this.q.fileByPath.get(host, path);
    if (found) return this.rows.put(found);
    this.q.insertFile.run(host, path);
    return this.file(host, path);
  }

  /**
   * Commit the records read from a file together with its new position, atomically. Lines that
   * made no record and no problem (most of a transcript) only move the position: that is kept in
   * memory and written within POSITION_WRITE_MS (one small transaction every few seconds for a
   * busy transcript, not one per line), before any other commit, and on close. Exactly once still
   * holds: after a crash those lines are read again from the stored position, and they make no
   * record the second time either.
   */
  commit(fileId: number, c: FileCommit): void {
    const known = this.rows.raw(fileId);
    // The parser state as stored, made once for SQLite and the cached row.
    const state = JSON.stringify(c.parserState ?? null);
    const positionOnly = known !== null && known.error === null && !c.reset && !c.resetProblems && c.records.length === 0 && c.problems.length === 0;
    // Index points and marks wait with the position that covers them (after a reset, its delete).
    if (known !== null && !c.reset) this.lineIndex.hold(fileId, known.host, known.path, c.ino, c.index, c.marks);
    if (!positionOnly) {
      try {
        this.commitTx(fileId, c, state);
      } catch (err) {
        // Rolled back: the file is read again from its stored position by the next poll, and the
        // positions held in memory stay there, to be written with the next commit that succeeds.
        const path = this.rows.raw(fileId)?.path ?? `file ${fileId}`;
        this.rows.forget(fileId);
        this.noteFailure(err, `storing what was read from ${path}`);
        throw err;
      }
      this.wrote();
    }
    this.rows.update(fileId, (r) => afterCommit(r, c, state));
    if (positionOnly) {
      this.rows.markUnwritten(fileId);
      this.positions.soon();
    }
  }

  /** Write the positions held only in memory now (the position writer does it within POSITION_WRITE_MS). */
  flushPositions(): void {
    if (!this.db.open || (!this.rows.anyUnwritten() && !this.lineIndex.anyPending())) return;
    this.db.transaction(() => this.writeUnwritten())();
    this.wrote();
  }

  /** A write transaction committed: the positions it wrote are stored, and the folder has room. */
  private wrote(): void {
    this.rows.written();
    this.lineIndex.written();
    this.space.wrote();
    this.positions.wrote();
  }

  private writeUnwritten(): void {
    this.lineIndex.writePending();
    const rows = this.rows.unwrittenRows();
    if (rows.length === 0) return;
    const update = this.statement(
      'UPDATE files SET ino = ?, offset = ?, line_no = ?, parser_state = ?, size = ?, mtime_ms = ?, tail = ?, read_to = ?, long_line = ?, first_time_ms = ? WHERE id = ?',
    );
    for (const r of rows) {
      update.run(r.ino, r.offset, r.line_no, r.parser_state, r.size, r.mtime_ms, r.tail, r.read_to, r.long_line, r.first_time_ms, r.id);
    }
  }

  private applyCommit(fileId: number, c: FileCommit, state: string): void {
    if (c.reset) this.statement('DELETE FROM records WHERE file_id = ?').run(fileId);
    const known = this.rows.raw(fileId);
    if (c.reset && known) {
      this.lineIndex.reset(fileId, known.host, known.path);
      this.lineIndex.hold(fileId, known.host, known.path, c.ino, c.index, c.marks);
      this.lineIndex.writePending();
    }
    this.fileProblems.commit(fileId, c);
    if (c.records.length > 0) {
      // One row per RECORDS_PER_ROW records of a commit (a JSON array; a lone record as itself):
      // an appended ledger section is one insert, not one per finding.
      const insert = this.statement('INSERT INTO records (file_id, line, data) VALUES (?, ?, ?)');
      for (let i = 0; i < c.records.length; i += RECORDS_PER_ROW) {
        const chunk = c.records.slice(i, i + RECORDS_PER_ROW);
        insert.run(fileId, chunk[0]?.line ?? 0, JSON.stringify(chunk.length === 1 ? chunk[0] : chunk));
      }
    }
    this
      .statement(
        `UPDATE files SET ino = ?, offset = ?, line_no = ?, parser_state = ?, size = ?, mtime_ms = ?, tail = ?, read_to = ?, long_line = ?,
           first_time_ms = CASE WHEN first_time_ms IS NULL OR ? THEN ? ELSE MIN(first_time_ms, ?) END
         WHERE id = ?`,
      )
      .run(
        c.ino,
        c.offset,
        c.lineNo,
        state,
        c.size,
        c.mtimeMs,
        c.tail ?? null,
        c.readTo ?? c.offset,
        c.longLine ? 1 : 0,
        c.reset ? 1 : 0,
        c.firstTimeMs,
        c.firstTimeMs,
        fileId,
      );
  }

  /**
   * Say why a file that is there was not read (not a regular file, permission denied), shown as
   * its problem until it is read again; null clears it. What was read from it before is kept.
   */
  setFileError(fileId: number, message: string | null): void {
    this.fileProblems.setError(fileId, message);
  }

  /** Forget the problems of a file that is gone (deleted, or no longer followed); its records stay. */
  clearProblems(host: string, path: string): void {
    this.fileProblems.clear(host, path);
  }

  /** The followed files of a host whose paths start with `prefix` (a folder ending in '/'). */
  pathsUnder(host: string, prefix: string): string[] {
    return this.q.pathsUnder.all(host, prefix, prefix);
  }

  /** Forget the problems of every file under `prefix` on `host` that `keep` refuses (files no longer listed). */
  pruneProblems(host: string, prefix: string, keep: (path: string) => boolean): void {
    this.fileProblems.prune(host, prefix, keep);
  }

  /** Every record read from a file, in order (the caller knows which kind of file it follows). */
  records<R = PhaseRecord>(fileId: number): R[] {
    const rows = this.q.recordsOf.all(fileId);
    const out: R[] = [];
    for (const data of rows) {
      const parsed = JSON.parse(data) as R | R[];
      if (Array.isArray(parsed)) for (const r of parsed) out.push(r);
      else out.push(parsed);
    }
    return out;
  }

  /** Every problem found in the files of a host (or of all hosts), naming file and line (FileProblems.list). */
  problems(host?: string): Problem[] {
    return this.fileProblems.list(host);
  }

  /** A small persisted setting. */
  getMeta(key: string): string | null {
    return this.q.meta.get(key) ?? null;
  }

  /** Persist a small setting. */
  setMeta(key: string, value: string): void {
    this.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /**
   * The underlying connection, for modules that own their tables (capacity, notices, drills):
   * they keep to their own tables, and declare their fixed SQL with `query` (prepared once).
   */
  get sql(): Database.Database {
    return this.db;
  }

  /**
   * Close the database, writing the positions held in memory first. Should that fail (a full
   * disk, a damaged file) the database is closed all the same: those positions belong to lines
   * that made no record, read again from the stored ones at the next start.
   */
  close(): void {
    this.positions.stop();
    try {
      if (this.db.open) this.flushPositions();
    } catch (err) {
      if (this.noteFailure(err) === null) log.warn(`${this.dbPath}: the positions of lines that made no record were not written on closing; they are read again at the next start.`, err);
    } finally {
      this.rows.close();
      if (this.db.open) this.db.close();
    }
  }
}
