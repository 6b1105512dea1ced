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
  readonly reset: 'truncated' | 'replaced' | null;
  readonly bytesRead: number;
  readonly lines: number;
}

const NEWLINE = 0x0a;

/**
 * Read what was appended to one file since its durable offset, parse the complete lines, and
 * commit the records with the new (inode, offset) in one transaction. A torn last line waits for
 * its newline; a smaller file with the same inode was truncated and a new inode was replaced
 * (an atomic rename): both are read again from 0, and what was read before is forgotten.
 */
export async function followOnce<S, R extends { readonly line: number } = PhaseRecord>(
  source: FileSource,
  store: Store,
  path: string,
  parser: LineParser<S, R>,
  maxBytes = MAX_READ_BYTES,
  known?: FileStat | null,
): Promise<FollowOutcome> {
  // A stat from a folder listing saves a round trip per file on a remote host.
  const st = known === undefined ? await source.stat(path) : known;
  if (st === null || st.isDirectory) return { presence: 'absent', changed: false, reset: null, bytesRead: 0, lines: 0 };
  const row = store.file(source.host, path);
  let reset: FollowOutcome['reset'] = null;
  if (row.ino !== null && row.ino !== st.ino) reset = 'replaced';
  else if (st.size < row.offset) reset = 'truncated';

  const offset = reset ? 0 : row.offset;
  let state = (reset || row.parserState === null ? parser.initial() : row.parserState) as S;
  let lineNo = reset ? 0 : row.lineNo;
  const firstTimeMs = Math.min(st.mtimeMs, st.birthtimeMs ?? st.mtimeMs);
  const identityChanged = reset !== null || row.ino === null || row.size !== st.size || row.mtimeMs !== st.mtimeMs;

  let consumed = 0;
  let bytesRead = 0;
  const records: R[] = [];
  const problems: Problem[] = [];
  if (st.size > offset) {
    // A line longer than the window would never complete: widen the window until it does.
    const remaining = st.size - offset;
    let window = Math.min(remaining, maxBytes);
    let buf = await source.read(path, offset, window);
    bytesRead = buf.length;
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
    }
  }
  if (!identityChanged && consumed === 0) {
    return { presence: 'present', changed: false, reset: null, bytesRead, lines: 0 };
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
    records,
    problems,
  });
  return { presence: 'present', changed: true, reset, bytesRead, lines: lineNo - (reset ? 0 : row.lineNo) };
}
