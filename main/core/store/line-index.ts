import type { IndexPoint, LineMark } from './store-types';
import type { QueryMaker } from './query';

/**
 * Index a transcript line every this many lines. 100, not 1000: a jump lands on an index point
 * and reads forward to its line, so the lines read past the ones shown are fewer than this, and
 * 200 rows shown cost at most 1.5 x their bytes (the view's budget is 4 x). A 1 GB transcript of
 * 100-byte lines is 100,000 points, about 5 MB of SQLite.
 */
export const INDEX_EVERY = 100;

/** The most marks kept per transcript: the first half and the newest half, the middle dropped. */
export const MAX_MARKS_PER_FILE = 500;

/** What the follower found in a file that is not written yet (held with a position-only commit). */
interface Pending {
  host: string;
  path: string;
  ino: string;
  index: IndexPoint[];
  marks: LineMark[];
}

/**
 * The sparse line index and the marks of followed transcripts (tables `line_index` and
 * `line_marks`, keyed by host and path, each row with the inode it belongs to). The follower sees
 * every byte of a transcript once; what it finds is held here beside the position that covers it
 * and written in the same transaction as that position, so the index never runs ahead of what was
 * read, and a reset (truncation, replacement) drops it with the records.
 */
export class LineIndexTable {
  private readonly pending = new Map<number, Pending>();

  /** The SQL, its parameters and rows declared once. */
  private readonly q;

  constructor(queries: QueryMaker) {
    this.q = {
      deletePoints: queries.query<[host: string, path: string]>('DELETE FROM line_index WHERE host = ? AND path = ?'),
      deleteMarks: queries.query<[host: string, path: string]>('DELETE FROM line_marks WHERE host = ? AND path = ?'),
      insertPoint: queries.query<[host: string, path: string, ino: string, line: number, offset: number]>('INSERT OR REPLACE INTO line_index (host, path, ino, line, offset) VALUES (?, ?, ?, ?, ?)'),
      insertMark: queries.query<[host: string, path: string, ino: string, line: number, kind: LineMark['kind'], text: string]>(
        'INSERT OR IGNORE INTO line_marks (host, path, ino, line, kind, text) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      countMarks: queries.column<[host: string, path: string], number>('SELECT COUNT(*) AS n FROM line_marks WHERE host = ? AND path = ?'),
      dropMiddleMarks: queries.query<[host: string, path: string, host: string, path: string, limit: number, offset: number]>(
        `DELETE FROM line_marks WHERE host = ? AND path = ? AND rowid IN (
           SELECT rowid FROM line_marks WHERE host = ? AND path = ? ORDER BY line, kind LIMIT ? OFFSET ?)`,
      ),
      pointAtOrBefore: queries.query<[host: string, path: string, ino: string, line: number], IndexPoint>(
        'SELECT line, offset FROM line_index WHERE host = ? AND path = ? AND ino = ? AND line <= ? ORDER BY line DESC LIMIT 1',
      ),
      pointAt: queries.query<[host: string, path: string, ino: string, line: number], IndexPoint>('SELECT line, offset FROM line_index WHERE host = ? AND path = ? AND ino = ? AND line = ?'),
      marks: queries.query<[host: string, path: string, ino: string], LineMark>('SELECT line, kind, text FROM line_marks WHERE host = ? AND path = ? AND ino = ? ORDER BY line, kind'),
    };
  }

  /** Hold what a read found until its position is written (`writePending`). */
  hold(fileId: number, host: string, path: string, ino: string, index: readonly IndexPoint[] | undefined, marks: readonly LineMark[] | undefined): void {
    if ((index?.length ?? 0) === 0 && (marks?.length ?? 0) === 0) return;
    let p = this.pending.get(fileId);
    if (!p || p.ino !== ino) {
      p = { host, path, ino, index: [], marks: [] };
      this.pending.set(fileId, p);
    }
    for (const x of index ?? []) p.index.push(x);
    for (const m of marks ?? []) p.marks.push(m);
  }

  /** Whether anything is held. */
  anyPending(): boolean {
    return this.pending.size > 0;
  }

  /** The file was read again from 0: forget its index and marks, stored and held (inside the commit's transaction). */
  reset(fileId: number, host: string, path: string): void {
    this.pending.delete(fileId);
    this.q.deletePoints.run(host, path);
    this.q.deleteMarks.run(host, path);
  }

  /** Write everything held (inside a transaction that writes the positions covering it); `written` forgets it once that committed. */
  writePending(): void {
    if (this.pending.size === 0) return;
    const { insertPoint: point, insertMark: mark } = this.q;
    for (const p of this.pending.values()) {
      for (const x of p.index) point.run(p.host, p.path, p.ino, x.line, x.offset);
      for (const m of p.marks) mark.run(p.host, p.path, p.ino, m.line, m.kind, m.text);
      if (p.marks.length > 0) this.bound(p.host, p.path);
    }
  }

  /** The transaction that wrote what was held committed. */
  written(): void {
    this.pending.clear();
  }

  /** Keep MAX_MARKS_PER_FILE marks: the first half, and the newest. */
  private bound(host: string, path: string): void {
    const n = this.q.countMarks.get(host, path) ?? 0;
    const over = n - MAX_MARKS_PER_FILE;
    if (over <= 0) return;
    this.q.dropMiddleMarks.run(host, path, host, path, over, MAX_MARKS_PER_FILE / 2);
  }

  /** The index point at or before `line` of the file with inode `ino`, or null. */
  pointAtOrBefore(host: string, path: string, ino: string, line: number): IndexPoint | null {
    return this.q.pointAtOrBefore.get(host, path, ino, line) ?? null;
  }

  /** The index point of exactly `line`, or null (a line after a cut one is indexed too). */
  pointAt(host: string, path: string, ino: string, line: number): IndexPoint | null {
    return this.q.pointAt.get(host, path, ino, line) ?? null;
  }

  /** The marks of the file with inode `ino`, in line order. */
  marks(host: string, path: string, ino: string): LineMark[] {
    return this.q.marks.all(host, path, ino);
  }
}
