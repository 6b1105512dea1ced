import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { FileCommit, FileRow } from './store-types';

/** A `files` row as SQLite returns it. */
export interface RawFileRow {
  id: number;
  host: string;
  path: string;
  ino: string | null;
  offset: number;
  line_no: number;
  parser_state: string | null;
  size: number;
  mtime_ms: number | null;
  first_time_ms: number | null;
  tail: string | null;
  read_to: number;
  long_line: number;
  error: string | null;
}

/**
 * The public shape of a row. The parser state is parsed when asked for (most polls only compare
 * size and time), afresh each time: the row is cached across polls, so a caller that changed the
 * state it was given must not change what the next caller starts from.
 */
export function toFileRow(r: RawFileRow): FileRow {
  return {
    id: r.id,
    host: r.host,
    path: r.path,
    ino: r.ino,
    offset: r.offset,
    lineNo: r.line_no,
    get parserState(): unknown {
      return r.parser_state === null ? null : (JSON.parse(r.parser_state) as unknown);
    },
    size: r.size,
    mtimeMs: r.mtime_ms,
    firstTimeMs: r.first_time_ms,
    tail: r.tail ?? null,
    readTo: r.read_to,
    longLine: r.long_line === 1,
    error: r.error ?? null,
  };
}

/** The row a commit leaves behind, computed as the UPDATE in Store.commit computes it (`state` is the parser state as stored). */
export function afterCommit(r: RawFileRow, c: FileCommit, state: string): RawFileRow {
  return {
    ...r,
    ino: c.ino,
    offset: c.offset,
    line_no: c.lineNo,
    parser_state: state,
    size: c.size,
    mtime_ms: c.mtimeMs,
    tail: c.tail ?? null,
    read_to: c.readTo ?? c.offset,
    long_line: c.longLine ? 1 : 0,
    first_time_ms: r.first_time_ms === null || c.reset ? c.firstTimeMs : Math.min(r.first_time_ms, c.firstTimeMs),
    error: null,
  };
}

/**
 * How long a look at whether another connection committed holds (ms): a poll's lookups (about
 * ten) take less than this, so one look serves them all, where a task-long hold took an immediate
 * per poll to end it.
 */
const FRESH_FOR_MS = 2;

/** The caches of this process's open stores (see FileRowCache.fresh). */
const openCaches = new Set<FileRowCache>();

/**
 * The `files` rows this process has used, kept in memory: a followed file's row is looked up on
 * every poll that touches it (20 times a second for a busy transcript), and SQLite is asked again
 * only after another connection wrote to the database (`PRAGMA data_version` moves then), so a
 * second process on the same data folder is never answered from a stale row.
 */
export class FileRowCache {
  /** When the log or `data_version` was last looked at (performance clock, ms; see `fresh`). */
  private checkedAt = Number.NEGATIVE_INFINITY;
  private readonly byKey = new Map<string, { raw: RawFileRow; row: FileRow | null }>();
  /** Rows whose position moved in memory only (lines that made no record), not yet written. */
  private readonly unwritten = new Set<number>();
  private readonly keyOf = new Map<number, string>();
  private dataVersion: number;
  /** Prepared once: `db.pragma()` prepares its statement on every call. */
  private readonly versionStmt: Database.Statement;

  /** The write-ahead log, whose stat says cheaply whether anyone committed (null: not in WAL mode). */
  private readonly walPath: string | null;
  /**
   * The log's stat taken just before `data_version` was last read (null: none). Any commit after
   * that read, this process's own too, moves it, and the next look reads `data_version` again.
   */
  private walKey: string | null = null;
  /** How many times a commit by another connection was seen (see `writesElsewhere`). */
  private elsewhere = 0;

  constructor(db: Database.Database) {
    this.versionStmt = db.prepare('PRAGMA data_version').pluck();
    this.dataVersion = this.version();
    const wal = !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    this.walPath = wal ? `${db.name}-wal` : null;
    openCaches.add(this);
  }

  /** The store is closing. */
  close(): void {
    openCaches.delete(this);
  }

  private version(): number {
    return this.versionStmt.get() as number;
  }

  /**
   * Forget everything when another connection committed since the last look. With this store the
   * only one open in the process, it looks at most every FRESH_FOR_MS (a poll's lookups are one
   * look; ~10 reads a poll were 12 % of a streamed line's CPU): another process's commit is then
   * seen a moment later, which no one can tell from that commit landing a moment later. With another
   * store open here, a commit can land between two lookups of one task, so every lookup reads it.
   */
  private fresh(): void {
    const alone = openCaches.size === 1;
    const at = performance.now();
    if (alone && at - this.checkedAt < FRESH_FOR_MS) return;
    if (alone) this.checkedAt = at;
    // Any commit lands in the write-ahead log, so a log whose stat has not moved since `data_version`
    // was last read means no commit since: one stat instead of a read transaction (its locks and the
    // log index), which in a process woken once per appended line was a seventh of a line's cost.
    const wal = this.walStat();
    if (wal !== null && wal === this.walKey) return;
    const v = this.version();
    this.walKey = wal;
    if (v === this.dataVersion) return;
    this.dataVersion = v;
    this.elsewhere += 1;
    this.byKey.clear();
    this.keyOf.clear();
    // Positions not yet written are dropped: their lines made no record, so reading them again
    // from the stored position repeats nothing.
    this.unwritten.clear();
  }

  /**
   * A count that moves when another connection committed (looked at as `fresh` looks): what a
   * caller read from SQLite still holds while it stands, unless this process wrote it since.
   */
  writesElsewhere(): number {
    this.fresh();
    return this.elsewhere;
  }

  /** The cached row for host and path, or null (then the caller reads SQLite and calls `put`). */
  get(host: string, path: string): FileRow | null {
    this.fresh();
    const hit = this.byKey.get(`${host}\0${path}`);
    if (!hit) return null;
    hit.row ??= toFileRow(hit.raw);
    return hit.row;
  }

  /** The raw cached row of a file id, if this process holds it. */
  raw(id: number): RawFileRow | null {
    this.fresh();
    const key = this.keyOf.get(id);
    return key === undefined ? null : (this.byKey.get(key)?.raw ?? null);
  }

  /** Remember a row read from SQLite. */
  put(raw: RawFileRow): FileRow {
    const key = `${raw.host}\0${raw.path}`;
    const row = toFileRow(raw);
    this.byKey.set(key, { raw, row });
    this.keyOf.set(raw.id, key);
    return row;
  }

  /** Replace a cached row after this process wrote it (rows not held are simply read again later). */
  update(id: number, change: (r: RawFileRow) => RawFileRow): void {
    const key = this.keyOf.get(id);
    const hit = key === undefined ? undefined : this.byKey.get(key);
    if (!hit) return;
    hit.raw = change(hit.raw);
    hit.row = null;
  }

  /** Say that a cached row's position is ahead of the one stored (see `unwrittenRows`). */
  markUnwritten(id: number): void {
    if (this.keyOf.has(id)) this.unwritten.add(id);
  }

  /** Some row's position is ahead of the stored one. */
  anyUnwritten(): boolean {
    return this.unwritten.size > 0;
  }

  /** The rows whose position is ahead of the stored one (still so until `written`). */
  unwrittenRows(): RawFileRow[] {
    const out: RawFileRow[] = [];
    for (const id of this.unwritten) {
      const r = this.raw(id);
      if (r) out.push(r);
    }
    return out;
  }

  /** The transaction that wrote `unwrittenRows` committed: they are stored now. */
  written(): void {
    this.unwritten.clear();
  }

  /** The log's identity, size and time (ns), or null when there is none to go by. */
  private walStat(): string | null {
    if (this.walPath === null) return null;
    try {
      const st = statSync(this.walPath, { bigint: true, throwIfNoEntry: false });
      return st ? `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
    } catch {
      return null;
    }
  }

  /** Drop a row whose new values this process does not know (it is read again from SQLite). */
  forget(id: number): void {
    const key = this.keyOf.get(id);
    if (key === undefined) return;
    this.keyOf.delete(id);
    this.byKey.delete(key);
    this.unwritten.delete(id);
  }
}
