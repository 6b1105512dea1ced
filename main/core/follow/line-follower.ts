import type { Problem } from '../../../shared/domain';
import type { LineParser, PhaseRecord } from '../records';
import type { FileSource, FileStat } from '../sources/file-source';
import type { Store } from '../store/store';

/** The most bytes one poll reads from one file: a huge backlog is taken in several polls. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/** What one poll of a followed file did. */
export interface FollowOutcome {
  /** `absent`: the file does not exist (yet); it is waited for. */
  readonly presence: 'absent' | 'present';
  /** Records or the file's identity changed, so derived state must be recomputed. */
  readonly changed: boolean;
  /** Why the position was reset, if it was. */
  readonly reset: 'truncated' | 'replaced' | 'rewritten' | null;
  readonly bytesRead: number;
  readonly lines: number;
  /** More complete lines are waiting than one poll reads (a backlog): poll again. */
  readonly more: boolean;
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
}

const NEWLINE = 0x0a;

/** How many bytes before the offset `verifyTail` compares. */
export const TAIL_BYTES = 32;

/**
 * Read what was appended to one file since its durable offset, parse the complete lines, and
 * commit the records with the new (inode, offset) in one transaction. A torn last line waits for
 * its newline; a smaller file with the same inode was truncated and a new inode was replaced
 * (an atomic rename): both are read again from 0, and what was read before is forgotten. With
 * `verifyTail`, a file whose bytes before the offset changed was rewritten, and is read again too.
 */
export async function followOnce<S, R extends { readonly line: number } = PhaseRecord>(
  source: FileSource,
  store: Store,
  path: string,
  parser: LineParser<S, R>,
  options: FollowOptions = {},
): Promise<FollowOutcome> {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  const st = options.stat === undefined ? await source.stat(path) : options.stat;
  if (st === null || st.isDirectory) return { presence: 'absent', changed: false, reset: null, bytesRead: 0, lines: 0, more: false };
  const row = store.file(source.host, path);
  let reset: FollowOutcome['reset'] = null;
  if (row.ino !== null && row.ino !== st.ino) reset = 'replaced';
  else if (st.size < row.offset) reset = 'truncated';
  const identityChanged = reset !== null || row.ino === null || row.size !== st.size || row.mtimeMs !== st.mtimeMs;

  let bytesRead = 0;
  let tail = Buffer.from(row.tail ?? '', 'base64');
  // What follows the offset, read in the same request as the check of the bytes before it.
  let ahead: Buffer | null = null;
  if (options.verifyTail && reset === null && identityChanged && row.offset > 0 && tail.length > 0) {
    const got = await source.read(path, row.offset - tail.length, tail.length + Math.min(Math.max(0, st.size - row.offset), maxBytes));
    bytesRead += got.length;
    if (got.subarray(0, tail.length).equals(tail)) ahead = got.subarray(tail.length);
    else reset = 'rewritten';
  }
  if (reset) tail = Buffer.alloc(0);

  const offset = reset ? 0 : row.offset;
  let state = (reset || row.parserState === null ? parser.initial() : row.parserState) as S;
  let lineNo = reset ? 0 : row.lineNo;
  const firstTimeMs = Math.min(st.mtimeMs, st.birthtimeMs ?? st.mtimeMs);

  let consumed = 0;
  const records: R[] = [];
  const problems: Problem[] = [];
  if (st.size > offset) {
    // A line longer than the window would never complete: widen the window until it does.
    const remaining = st.size - offset;
    let window = Math.min(remaining, maxBytes);
    let buf = ahead;
    if (buf === null) {
      buf = await source.read(path, offset, window);
      bytesRead += buf.length;
    }
    while (buf.lastIndexOf(NEWLINE) < 0 && window < remaining) {
      window = Math.min(remaining, window * 2);
      buf = await source.read(path, offset, window);
      bytesRead += buf.length;
    }
    const end = buf.lastIndexOf(NEWLINE);
    if (end >= 0) {
      consumed = end + 1;
      let start = 0;
      while (start < consumed) {
        const nl = buf.indexOf(NEWLINE, start);
        const text = buf.toString('utf8', start, nl);
        lineNo += 1;
        const out = parser.line(state, text, lineNo, path);
        state = out.state;
        records.push(...out.result.records);
        problems.push(...out.result.problems);
        start = nl + 1;
      }
      // The last TAIL_BYTES consumed (copied: the window may be megabytes).
      tail = consumed >= TAIL_BYTES ? Buffer.from(buf.subarray(consumed - TAIL_BYTES, consumed)) : Buffer.concat([tail, buf.subarray(0, consumed)]).subarray(-TAIL_BYTES);
    }
  }
  const more = st.size - offset > maxBytes;
  if (!identityChanged && consumed === 0) {
    return { presence: 'present', changed: false, reset: null, bytesRead, lines: 0, more };
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
    records,
    problems,
  });
  return { presence: 'present', changed: true, reset, bytesRead, lines: lineNo - (reset ? 0 : row.lineNo), more };
}
