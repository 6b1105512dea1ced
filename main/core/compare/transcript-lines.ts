import type { FileSource } from '../sources/file-source';

// A transcript's lines from its start, read a chunk at a time as they are asked for, for the
// comparison of two nights: never the whole file in memory (a remediate's transcript can be a
// gigabyte), and no further than the comparison needs (it stops asking at the first divergence).

/** Bytes read per request to the host. */
export const LINES_CHUNK_BYTES = 256 * 1024;
/** Bytes of one line kept; the rest of a longer line is skipped (it still counts as one line). */
export const LINES_MAX_LINE_BYTES = 64 * 1024;

/** A transcript's lines, and after (or while) they are read, whether a bound cut them. */
export interface TranscriptLines extends AsyncIterable<string> {
  /** `bytes`: the file is longer than `maxBytes` and only that much was read (the lines ended there, not the file). */
  readonly cut: 'bytes' | null;
  /** Bytes read so far. */
  readonly bytesRead: number;
}

/** How much of a transcript is read. */
export interface LinesBounds {
  /** Read at most this many bytes from the start. */
  readonly maxBytes: number;
  readonly chunkBytes?: number;
  readonly maxLineBytes?: number;
}

const NL = 0x0a;

/**
 * The lines of `path` (of `size` bytes, as listed) from its start, without their newline (and a
 * `\r` before it), decoded as UTF-8 a whole line at a time (a character split across two chunks
 * is never torn). A last line without a newline is a line when the file ends there; a line longer
 * than `maxLineBytes` keeps its first `maxLineBytes`. Reads stop at `maxBytes` (`cut` says so) or
 * when the caller stops asking.
 */
export function transcriptLines(source: FileSource, path: string, size: number, bounds: LinesBounds): TranscriptLines {
  const chunk = bounds.chunkBytes ?? LINES_CHUNK_BYTES;
  const maxLine = bounds.maxLineBytes ?? LINES_MAX_LINE_BYTES;
  const end = Math.min(size, bounds.maxBytes);
  const state = { cut: size > bounds.maxBytes ? ('bytes' as const) : null, bytesRead: 0 };
  const decode = (parts: Buffer[]): string => {
    const text = Buffer.concat(parts).toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  async function* lines(): AsyncGenerator<string> {
    // The line being gathered: its kept bytes, and how many (a long line's rest is not kept).
    let parts: Buffer[] = [];
    let kept = 0;
    const keep = (buf: Buffer): void => {
      if (kept >= maxLine || buf.length === 0) return;
      const piece = buf.length > maxLine - kept ? buf.subarray(0, maxLine - kept) : buf;
      parts.push(piece);
      kept += piece.length;
    };
    let offset = 0;
    while (offset < end) {
      const buf = await source.read(path, offset, Math.min(chunk, end - offset));
      // A file that shrank under us ends here.
      if (buf.length === 0) break;
      offset += buf.length;
      state.bytesRead = offset;
      let from = 0;
      for (let nl = buf.indexOf(NL, from); nl !== -1; nl = buf.indexOf(NL, from)) {
        keep(buf.subarray(from, nl));
        yield decode(parts);
        parts = [];
        kept = 0;
        from = nl + 1;
      }
      keep(buf.subarray(from));
    }
    // The file's last line without a newline; not a line cut by the byte bound.
    if (state.cut === null && kept > 0) yield decode(parts);
  }
  const iterable = lines();
  return {
    [Symbol.asyncIterator]: () => iterable,
    get cut() {
      return state.cut;
    },
    get bytesRead() {
      return state.bytesRead;
    },
  };
}

/** No lines: a transcript the night does not have. */
export const NO_LINES: TranscriptLines = {
  cut: null,
  bytesRead: 0,
  async *[Symbol.asyncIterator]() {
    // nothing
  },
};
