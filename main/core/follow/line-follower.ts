import type { Problem } from '../../../shared/domain';
import type { LineParser, PhaseRecord } from '../text/line-parser';
import { FileReadError, notRegularMessage, type FileSource, type FileStat } from '../sources/file-source';
import type { IndexPoint, LineMark, Store } from '../store/store';

/** The most bytes one poll reads from one file: a huge backlog is taken in several polls. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/**
 * The longest line kept (1 MiB): the first MAX_LINE_BYTES of a longer line are parsed as the line,
 * the rest is skipped up to its newline and reported, so one runaway line cannot fill the store.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

/** What one poll of a followed file did. */
export interface FollowOutcome {
  /**
   * `absent`: the file does not exist (yet); it is waited for. `refused`: it is there but was not
   * read (not a regular file, permission denied); `problem` says why, and the store shows it.
   */
  readonly presence: 'absent' | 'present' | 'refused';
  /** Records or the file's identity changed, so derived state must be recomputed. */
  readonly changed: boolean;
  /** Why the position was reset, if it was. */
  readonly reset: 'truncated' | 'replaced' | 'rewritten' | null;
  readonly bytesRead: number;
  readonly lines: number;
  /** More complete lines are waiting than one poll reads (a backlog): poll again. */
  readonly more: boolean;
  /** Why a `refused` file was not read. */
  readonly problem?: string;
}

/** What one poll of a followed file did, with the records it committed (all of them after a reset). */
export interface FollowResult<R> extends FollowOutcome {
  readonly records: readonly R[];
}

/** How to follow one file. */
export interface FollowOptions {
  /** The most bytes one poll reads (more arrives on the next poll). */
  readonly maxBytes?: number;
  /** A stat from a folder listing, saving a round trip on a remote host; null = the file is absent. */
  readonly stat?: FileStat | null;
  /**
   * Check that the bytes before the offset are still the ones read (a ledger edited in place keeps
   * its inode and may grow): costs TAIL_BYTES more per read, so only documents ask for it.
   */
  readonly verifyTail?: boolean;
  /**
   * Keep a sparse line index (transcripts): where every `indexEvery`-th line starts (lines 1,
   * 1 + N, …) and the line after one longer than MAX_LINE_BYTES, written with the position.
   */
  readonly indexEvery?: number;
  /** Mark a line that matters (transcripts), given the records its parser made of it. */
  readonly marker?: (text: string, lineNo: number, records: readonly unknown[]) => LineMark | null;
}

const NEWLINE = 0x0a;

/** How many bytes before the offset `verifyTail` compares. */
export const TAIL_BYTES = 32;

const ABSENT: FollowOutcome = { presence: 'absent', changed: false, reset: null, bytesRead: 0, lines: 0, more: false };

/** Record why a file that is there was not read (shown as its problem); what was read before stays. */
export function refuseFile(store: Store, host: string, path: string, message: string): FollowOutcome {
  store.setFileError(store.file(host, path).id, message);
  return { presence: 'refused', changed: false, reset: null, bytesRead: 0, lines: 0, more: false, problem: message };
}

/**
 * Read what was appended to one file since its durable offset, parse the complete lines, and
 * commit the records with the new (inode, offset) in one transaction. A torn last line waits for
 * its newline (and is not read again until the file changes); a smaller file with the same inode
 * was truncated and a new inode was replaced (an atomic rename): both are read again from 0, and
 * what was read before is forgotten. With `verifyTail`, a file whose bytes before the offset
 * changed was rewritten, and is read again too. A path that is not a regular file, or cannot be
 * read, is refused as a problem of that file; a file that is gone takes its problems with it.
 */
export async function followOnce<S, R extends { readonly line: number } = PhaseRecord>(
  source: FileSource,
  store: Store,
  path: string,
  parser: LineParser<S, R>,
  options: FollowOptions = {},
): Promise<FollowResult<R>> {
  try {
    const st = options.stat === undefined ? await source.stat(path) : options.stat;
    if (st === null) {
      store.clearProblems(source.host, path);
      return { ...ABSENT, records: [] };
    }
    if (st.kind !== 'file') return { ...refuseFile(store, source.host, path, notRegularMessage(path, st.kind)), records: [] };
    return await readAppended(source, store, path, parser, st, options);
  } catch (err) {
    if (err instanceof FileReadError) return { ...refuseFile(store, source.host, path, err.message), records: [] };
    throw err;
  }
}

async function readAppended<S, R extends { readonly line: number }>(
  source: FileSource,
  store: Store,
  path: string,
  parser: LineParser<S, R>,
  st: FileStat,
  options: FollowOptions,
): Promise<FollowResult<R>> {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  const row = store.file(source.host, path);
  if (row.error !== null) store.setFileError(row.id, null);
  let reset: FollowOutcome['reset'] = null;
  if (row.ino !== null && row.ino !== st.ino) reset = 'replaced';
  else if (st.size < row.offset) reset = 'truncated';
  const identityChanged = reset !== null || row.ino === null || row.size !== st.size || row.mtimeMs !== st.mtimeMs;
  const readBefore = Math.max(row.readTo, row.offset);
  // Unchanged since a read that reached its end (a torn last line still waiting for its newline).
  if (!identityChanged && readBefore >= st.size) return { presence: 'present', changed: false, reset: null, bytesRead: 0, lines: 0, more: false, records: [] };

  let bytesRead = 0;
  let tail = Buffer.from(row.tail ?? '', 'base64');
  // What follows the offset, read in the same request as the check of the bytes before it.
  let ahead: Buffer | null = null;
  // A read that came back short met the file's end: the stat it was sized from is older than the
  // file (or was not the file's at all), so nothing more is waiting past what was read. Without
  // this, a stat larger than the file kept a follower "behind" on every poll, and `snapshot`,
  // which polls until nothing is behind, polled a thousand times.
  let ended = false;
  if (options.verifyTail && reset === null && identityChanged && row.offset > 0 && tail.length > 0) {
    const want = tail.length + Math.min(Math.max(0, st.size - row.offset), maxBytes);
    const got = await source.read(path, row.offset - tail.length, want);
    ended = got.length < want;
    bytesRead += got.length;
    if (got.subarray(0, tail.length).equals(tail)) ahead = got.subarray(tail.length);
    else reset = 'rewritten';
  }
  if (reset) tail = Buffer.alloc(0);

  const offset = reset ? 0 : row.offset;
  const stored = reset ? null : row.parserState;
  let state = (stored === null ? parser.initial() : stored) as S;
  let lineNo = reset ? 0 : row.lineNo;
  let longLine = reset ? false : row.longLine;
  const firstTimeMs = Math.min(st.mtimeMs, st.birthtimeMs ?? st.mtimeMs);

  let consumed = 0;
  let seen = 0;
  const records: R[] = [];
  const problems: Problem[] = [];
  const every = options.indexEvery ?? 0;
  const index: IndexPoint[] = [];
  const marks: LineMark[] = [];
  const marker = options.marker;
  // The next line starts after one cut at MAX_LINE_BYTES: index it, so a reader jumps over the rest.
  let afterCut = false;
  if (st.size > offset) {
    const remaining = st.size - offset;
    let buf = ahead;
    if (buf === null) {
      const want = Math.min(remaining, maxBytes);
      buf = await source.read(path, offset, want);
      ended = buf.length < want;
      bytesRead += buf.length;
    }
    // A line longer than the window would never complete: widen the window, but only until it
    // holds one line of the longest kept; what is longer is cut there.
    const widest = Math.min(remaining, Math.max(maxBytes, MAX_LINE_BYTES + 1));
    while (!ended && !longLine && buf.length < widest && buf.indexOf(NEWLINE) < 0) {
      const want = Math.min(widest, Math.max(buf.length * 2, 64 * 1024)) - buf.length;
      const more = await source.read(path, offset + buf.length, want);
      ended = more.length < want;
      if (more.length === 0) break;
      bytesRead += more.length;
      buf = Buffer.concat([buf, more]);
    }
    seen = buf.length;
    let pos = 0;
    while (pos < buf.length) {
      const nl = buf.indexOf(NEWLINE, pos);
      if (longLine) {
        // The rest of a line too long to keep: skipped up to its newline.
        if (nl < 0) {
          pos = buf.length;
          break;
        }
        longLine = false;
        afterCut = every > 0;
        pos = nl + 1;
        continue;
      }
      const end = nl < 0 ? buf.length : nl;
      // A torn last line waits for its newline, unless it is already too long to keep.
      if (nl < 0 && end - pos <= MAX_LINE_BYTES) break;
      lineNo += 1;
      // One compare a line: the index costs nothing on the lines it does not record.
      if (every > 0 && (afterCut || lineNo % every === 1 || every === 1)) {
        index.push({ line: lineNo, offset: offset + pos });
        afterCut = false;
      }
      const text = buf.toString('utf8', pos, Math.min(end, pos + MAX_LINE_BYTES));
      const out = parser.line(state, text, lineNo, path);
      state = out.state;
      records.push(...out.result.records);
      problems.push(...out.result.problems);
      if (marker) {
        const mark = marker(text, lineNo, out.result.records);
        if (mark) marks.push(mark);
      }
      if (end - pos > MAX_LINE_BYTES) {
        afterCut = every > 0;
        const size = nl < 0 ? `more than ${end - pos}` : `${end - pos}`;
        problems.push({ source: path, line: lineNo, message: `Line ${lineNo} is ${size} bytes, longer than the ${MAX_LINE_BYTES} (1 MiB) a line may be: its first 1 MiB was read, the rest skipped.` });
      }
      if (nl < 0) {
        longLine = true;
        pos = buf.length;
        break;
      }
      pos = nl + 1;
    }
    consumed = pos;
    if (consumed > 0) {
      // The last TAIL_BYTES consumed (copied: the window may be megabytes).
      tail = consumed >= TAIL_BYTES ? Buffer.from(buf.subarray(consumed - TAIL_BYTES, consumed)) : Buffer.concat([tail, buf.subarray(0, consumed)]).subarray(-TAIL_BYTES);
    }
  }
  const readTo = offset + seen;
  const more = !ended && st.size > readTo;
  if (!identityChanged && consumed === 0 && readTo <= readBefore) {
    return { presence: 'present', changed: false, reset: null, bytesRead, lines: 0, more, records: [] };
  }
  store.commit(row.id, {
    reset: reset !== null,
    ino: st.ino,
    offset: offset + consumed,
    lineNo,
    parserState: state,
    size: st.size,
    mtimeMs: st.mtimeMs,
    firstTimeMs,
    tail: options.verifyTail ? tail.toString('base64') : null,
    readTo,
    longLine,
    records,
    problems,
    ...(index.length > 0 ? { index } : {}),
    ...(marks.length > 0 ? { marks } : {}),
  });
  return { presence: 'present', changed: true, reset, bytesRead, lines: lineNo - (reset ? 0 : row.lineNo), more, records };
}
