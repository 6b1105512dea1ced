import { TRANSCRIPT_BEING_READ } from '../../../shared/transcript-domain';
import type { TranscriptAt, TranscriptLines, TranscriptRow } from '../../../shared/transcript-domain';
import { MAX_LINE_BYTES } from '../follow/line-follower';
import type { FileSource, FileStat } from '../sources/file-source';
import type { LineMark, Store } from '../store/store';

/**
 * The most bytes read past the follower's position to count the lines it has not read yet (a
 * phase writing faster than a poll, or a file read again from 0 after a replacement). Past it the
 * reader says the transcript is still being read, rather than pull a large file over the link.
 */
export const MAX_GAP_BYTES = 16 * 1024 * 1024;
/** The most bytes scanned for the end of a line cut at 1 MiB that the index does not know. */
const MAX_SKIP_BYTES = 64 * 1024 * 1024;
/** A read is never smaller than this (one round trip either way). */
const MIN_READ = 16 * 1024;
/** The first read of a range is sized from the lines' average length, but never past this. */
const MAX_FIRST_READ = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

/** A transcript that exists but cannot be answered now; the message names the host and file. */
export class TranscriptUnavailableError extends Error {
  override readonly name = 'TranscriptUnavailableError';
}

/** A transcript on a host: where, and how its bytes are reached. */
export interface TranscriptFile {
  readonly host: string;
  readonly path: string;
  readonly source: FileSource;
}

/** The file as it is now, with what is known of its lines. */
export interface TranscriptNow {
  readonly stat: FileStat;
  readonly lines: number;
  /** The follower's index and position belong to this file (same inode, not truncated under them). */
  readonly indexed: boolean;
}

/** Where the first line past the follower's position starts (-1: none does yet), and its number. */
interface Gap {
  readonly window: Window;
  readonly gapStart: number;
  readonly gapLine: number;
}

/** Reads through a source, keeping the last window read and counting every byte brought. */
class Window {
  bytes = 0;
  private base = 0;
  private buf: Buffer = Buffer.alloc(0);

  constructor(
    private readonly file: TranscriptFile,
    private readonly size: number,
  ) {}

  /** Keep bytes already read (the gap past the follower's position). */
  keep(base: number, buf: Buffer): void {
    this.base = base;
    this.buf = buf;
  }

  /** Bytes [from, from + length) (fewer at the file's end), reading only what the window does not hold. */
  async get(from: number, length: number): Promise<Buffer> {
    const want = Math.min(length, this.size - from);
    if (want <= 0) return Buffer.alloc(0);
    const end = this.base + this.buf.length;
    if (from >= this.base && from + want <= end) return this.buf.subarray(from - this.base, from - this.base + want);
    if (from >= this.base && from <= end) {
      // Extend the window past its end: the bytes it holds are not brought again.
      const more = await this.file.source.read(this.file.path, end, Math.max(from + want - end, MIN_READ));
      this.bytes += more.length;
      this.buf = Buffer.concat([this.buf.subarray(from - this.base), more]);
      this.base = from;
      return this.buf.subarray(0, Math.min(want, this.buf.length));
    }
    const got = await this.file.source.read(this.file.path, from, Math.max(want, MIN_READ));
    this.bytes += got.length;
    this.base = from;
    this.buf = got;
    return got.subarray(0, want);
  }
}

/** Complete lines in `buf`, given whether it starts inside a line the follower already counted. */
function countLines(buf: Buffer, insideCounted: boolean): number {
  let n = 0;
  let last = -1;
  for (let i = buf.indexOf(NEWLINE); i >= 0; i = buf.indexOf(NEWLINE, i + 1)) {
    n++;
    last = i;
  }
  if (insideCounted) {
    // The first newline ends the line already counted; with none, it is still going on.
    if (n === 0) return 0;
    n--;
  }
  return n + (last < buf.length - 1 ? 1 : 0);
}

/**
 * Reads ranges of lines of a phase transcript with as few bytes as the rows take: the follower's
 * sparse line index (store/line-index) gives where a line at most INDEX_EVERY lines before the one
 * asked starts, so a jump is one seek and a bounded read; the lines past the follower's position
 * are counted from the bytes after it. Works on any FileSource (SSH: `tail -c +N | head -c M`).
 */
export class TranscriptReader {
  constructor(private readonly store: Store) {}

  /** Stat the file and count its lines; null when it does not exist. */
  async now(file: TranscriptFile, window?: Window): Promise<(TranscriptNow & Gap) | null> {
    const stat = await file.source.stat(file.path);
    if (stat === null) return null;
    if (stat.kind !== 'file') throw new TranscriptUnavailableError(`Host ${file.host}: ${file.path} is not a regular file; not read.`);
    const w = window ?? new Window(file, stat.size);
    const row = this.store.file(file.host, file.path);
    const indexed = row.ino === stat.ino && stat.size >= row.offset;
    const from = indexed ? row.offset : 0;
    const gap = stat.size - from;
    if (gap > MAX_GAP_BYTES) {
      const why = indexed ? `${gap} bytes were written since it was last read` : row.ino !== null && row.ino !== stat.ino ? 'it was replaced' : 'it was truncated or not read yet';
      throw new TranscriptUnavailableError(`Host ${file.host}: ${file.path} ${TRANSCRIPT_BEING_READ} (${why}); try again in a moment.`);
    }
    const buf = await w.get(from, gap);
    w.keep(from, buf);
    const longLine = indexed && row.longLine;
    const lines = (indexed ? row.lineNo : 0) + countLines(buf, longLine);
    // The first line that starts in the gap: after the newline of a long line the follower is inside.
    const nl = longLine ? buf.indexOf(NEWLINE) : -1;
    const gapStart = !longLine ? from : nl >= 0 ? from + nl + 1 : -1;
    return { stat, lines, indexed, window: w, gapStart, gapLine: (indexed ? row.lineNo : 0) + 1 };
  }

  /** The marks of the file the follower read (none for a file it has not read as it is now). */
  marks(file: TranscriptFile, now: TranscriptNow): LineMark[] {
    return now.indexed ? this.store.lineIndex.marks(file.host, file.path, now.stat.ino) : [];
  }

  /** Up to `count` rows from `at`; null when the file does not exist. */
  async lines(file: TranscriptFile, at: TranscriptAt, count: number): Promise<TranscriptLines | null> {
    // Points the follower holds in memory are written first, so the index covers what it read.
    this.store.flushPositions();
    const now = await this.now(file);
    if (now === null) return null;
    const { stat, lines: total, window } = now;
    let first: number;
    if (at === 'end') first = Math.max(1, total - count + 1);
    else if ('fraction' in at) first = 1 + Math.round(at.fraction * Math.max(0, total - count));
    else first = at.line;
    const rows = first > total ? [] : await this.readRows(file, now, first, Math.min(count, total - first + 1), window);
    return { host: file.host, path: file.path, size: stat.size, ino: stat.ino, lines: total, rows, bytesRead: window.bytes };
  }

  private async readRows(file: TranscriptFile, now: TranscriptNow & Gap, first: number, count: number, w: Window): Promise<TranscriptRow[]> {
    const index = this.store.lineIndex;
    const ino = now.stat.ino;
    // The nearest known start at or before `first`: the gap's first line, an index point, or line 1.
    let start = { line: 1, offset: 0 };
    if (first >= now.gapLine && now.gapStart >= 0) start = { line: now.gapLine, offset: now.gapStart };
    else if (now.indexed) start = index.pointAtOrBefore(file.host, file.path, ino, first) ?? start;
    let pos = start.offset;
    const size = now.stat.size;
    // Bytes a line takes on average, from what the follower read (else a guess), to size the first read.
    const row = this.store.file(file.host, file.path);
    const avg = now.indexed && row.lineNo > 0 ? Math.max(1, row.offset / row.lineNo) : 120;
    let chunk = Math.min(MAX_FIRST_READ, Math.ceil((first - start.line + count) * avg * 1.2) + 1024);
    const rows: TranscriptRow[] = [];
    let n = start.line;
    while (rows.length < count && pos < size) {
      let buf = await w.get(pos, chunk);
      let nl = buf.indexOf(NEWLINE);
      // Widen until this line's newline is in, or it is known to be longer than a line may be.
      while (nl < 0 && pos + buf.length < size && buf.length <= MAX_LINE_BYTES) {
        chunk = Math.max(chunk * 2, buf.length * 2);
        buf = await w.get(pos, Math.min(chunk, MAX_LINE_BYTES + 1));
        nl = buf.indexOf(NEWLINE);
      }
      let offset = pos;
      let lineNo = n;
      // Take every complete line in the buffer, up to the rows wanted.
      let at = 0;
      for (; nl >= 0 && rows.length < count; nl = buf.indexOf(NEWLINE, at)) {
        if (nl - at > MAX_LINE_BYTES) break;
        if (lineNo >= first) rows.push(toRow(lineNo, buf.subarray(at, nl), false));
        lineNo++;
        at = nl + 1;
      }
      offset += at;
      n = lineNo;
      pos = offset;
      if (rows.length >= count || pos >= size) break;
      if (at > 0) continue;
      // No newline within MAX_LINE_BYTES: a cut line, or the last line without its newline.
      const rest = await w.get(pos, MAX_LINE_BYTES + 1);
      const cut = rest.length > MAX_LINE_BYTES;
      if (n >= first) rows.push(toRow(n, rest.subarray(0, MAX_LINE_BYTES), cut));
      n++;
      if (!cut) break;
      pos = (now.indexed ? index.pointAt(file.host, file.path, ino, n)?.offset : undefined) ?? (await this.skipLine(w, pos + MAX_LINE_BYTES, size));
    }
    return rows;
  }

  /** Where the line containing `from` ends (after its newline), for a cut line the index does not know. */
  private async skipLine(w: Window, from: number, size: number): Promise<number> {
    for (let pos = from; pos < size && pos - from < MAX_SKIP_BYTES; ) {
      const buf = await w.get(pos, 1024 * 1024);
      const nl = buf.indexOf(NEWLINE);
      if (nl >= 0) return pos + nl + 1;
      if (buf.length === 0) break;
      pos += buf.length;
    }
    return size;
  }
}

function toRow(n: number, bytes: Buffer, cut: boolean): TranscriptRow {
  const end = !cut && bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
  return { n, text: bytes.toString('utf8', 0, end), cut };
}
