import type { Problem } from '../../../shared/domain';
import { FileReadError, notRegularMessage, type FileSource, type FileStat } from '../sources/file-source';
import type { LineRecord, Store } from '../store/store';

/** The most bytes of a whole document read at once; a larger one is reported, not read. */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** What one poll of a whole document did. */
export interface DocumentOutcome {
  /** `refused`: it is there but not read (not a regular file, permission denied); the store says why. */
  readonly presence: 'absent' | 'present' | 'refused';
  readonly changed: boolean;
  readonly bytesRead: number;
}

/**
 * Re-read a small document whole when its (inode, size, mtime) changed — a JSON record replaced
 * atomically (temp file + rename) is never appended to, so following lines makes no sense — and
 * store what `parse` made of it in place of what was read before, in one transaction. Only the
 * newest version's problems are kept; a path that is not a regular file or cannot be read is
 * refused as a problem, and a document that is gone takes its problems with it.
 */
export async function followDocument<R extends LineRecord>(
  source: FileSource,
  store: Store,
  path: string,
  parse: (text: string, source: string) => { records: readonly R[]; problems: readonly Problem[] },
): Promise<DocumentOutcome> {
  const refuse = (message: string): DocumentOutcome => {
    store.setFileError(store.file(source.host, path).id, message);
    return { presence: 'refused', changed: false, bytesRead: 0 };
  };
  try {
    const st = await source.stat(path);
    if (st === null) {
      store.clearProblems(source.host, path);
      return { presence: 'absent', changed: false, bytesRead: 0 };
    }
    if (st.kind !== 'file') return refuse(notRegularMessage(path, st.kind));
    return await readDocument(source, store, path, parse, st);
  } catch (err) {
    if (err instanceof FileReadError) return refuse(err.message);
    throw err;
  }
}

async function readDocument<R extends LineRecord>(
  source: FileSource,
  store: Store,
  path: string,
  parse: (text: string, source: string) => { records: readonly R[]; problems: readonly Problem[] },
  st: FileStat,
): Promise<DocumentOutcome> {
  const row = store.file(source.host, path);
  if (row.error !== null) store.setFileError(row.id, null);
  if (row.ino === st.ino && row.size === st.size && row.mtimeMs === st.mtimeMs) {
    return { presence: 'present', changed: false, bytesRead: 0 };
  }
  const tooBig = st.size > MAX_DOCUMENT_BYTES;
  const buf = tooBig ? Buffer.alloc(0) : await source.read(path, 0, st.size);
  const parsed = tooBig
    ? { records: [], problems: [{ source: path, line: null, message: `${st.size} bytes is larger than the ${MAX_DOCUMENT_BYTES} a record may be; not read.` }] }
    : parse(buf.toString('utf8'), path);
  // A document that no longer parses keeps what was last read from it (nothing stored is lost);
  // the problem says why the new version was not taken.
  const unreadable = parsed.records.length === 0 && parsed.problems.length > 0;
  store.commit(row.id, {
    reset: !unreadable,
    // The problems said what was wrong with the version read before; this one's replace them.
    resetProblems: true,
    ino: st.ino,
    offset: buf.length,
    lineNo: 0,
    parserState: null,
    size: st.size,
    mtimeMs: st.mtimeMs,
    firstTimeMs: Math.min(st.mtimeMs, st.birthtimeMs ?? st.mtimeMs),
    records: parsed.records,
    problems: parsed.problems,
  });
  return { presence: 'present', changed: true, bytesRead: buf.length };
}
