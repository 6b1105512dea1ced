import type { Problem } from '../../../shared/domain';

// The store's row and commit shapes, apart from the Store so file-rows.ts can use them without
// importing store.ts (which imports it).

/** A followed file's durable position: what has been read and parsed, and what it looked like. */
export interface FileRow {
  readonly id: number;
  readonly host: string;
  readonly path: string;
  /** Inode (as text: it can exceed 2^53 over SSH) of the file the offset belongs to; null before the first read. */
  readonly ino: string | null;
  readonly offset: number;
  readonly lineNo: number;
  readonly parserState: unknown;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly firstTimeMs: number | null;
  /** Base64 of the last bytes before `offset`, for documents checked for in-place rewrites. */
  readonly tail: string | null;
  /** How far the last read reached (offset plus a torn last line): an unchanged file is not read again. */
  readonly readTo: number;
  /** The offset is inside a line longer than MAX_LINE_BYTES, whose rest is skipped up to its newline. */
  readonly longLine: boolean;
  /** Why the file was not read on the last try (see setFileError), else null. */
  readonly error: string | null;
}

/** Any parsed record: it knows its line; the rest is the parser's business. */
export interface LineRecord {
  readonly line: number;
  readonly [field: string]: unknown;
}

/** What one read of a file produced, committed atomically with the new position. */
export interface FileCommit {
  /** Forget everything read from this file before (truncated or replaced), then apply the rest. */
  readonly reset: boolean;
  readonly ino: string;
  readonly offset: number;
  readonly lineNo: number;
  readonly parserState: unknown;
  readonly size: number;
  readonly mtimeMs: number;
  readonly firstTimeMs: number;
  readonly tail?: string | null;
  /** See FileRow.readTo; defaults to `offset`. */
  readonly readTo?: number;
  /** See FileRow.longLine. */
  readonly longLine?: boolean;
  /** Forget the file's problems (not its records): a new version of a document replaces the old one's. */
  readonly resetProblems?: boolean;
  readonly records: readonly LineRecord[];
  readonly problems: readonly Problem[];
  /**
   * Index points of the lines this read consumed (a transcript's, see store/line-index): kept in
   * memory with a position-only commit and written with the position, never on their own.
   */
  readonly index?: readonly IndexPoint[];
  /** Marks found in the lines this read consumed, written as the index points are. */
  readonly marks?: readonly LineMark[];
}

/** A point of a transcript's sparse line index: where line `line` (1-based) starts. */
export interface IndexPoint {
  readonly line: number;
  readonly offset: number;
}

/** A line that matters in a transcript, found while following it (see transcripts/transcript-marks). */
export interface LineMark {
  readonly line: number;
  readonly kind: string;
  /** A short quote of the line, escape sequences stripped. */
  readonly text: string;
}
