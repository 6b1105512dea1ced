import { posix } from 'node:path';
import type { FileStat } from './file-source';

/** The most streamed bytes kept for one file (the newest; older ones are read by requests). */
export const MAX_STREAMED_FILE_BYTES = 1024 * 1024;

/** The most streamed bytes kept for all files of a host; past it the least recently fed go. */
export const MAX_STREAMED_BYTES = 8 * 1024 * 1024;

/** Bytes kept before what a read took, for the next read's check of the bytes before its offset. */
const KEEP_BEFORE = 64;

interface Entry {
  ino: string;
  /** The offset of `bytes[0]` in the file. */
  start: number;
  bytes: Buffer;
  /** The stat the newest frame carried, until one stat call takes it. */
  stat: FileStat | null;
}

/**
 * The bytes a host's watcher streamed, by file, until a poll reads them: a woken poll's stat and
 * read of a file that only grew are answered here instead of by requests to the host. It never
 * answers with anything older than what a request saw: a stat is given out once (a later stat
 * asks the host), a request's stat at or past a frame's drops that frame's stat, and bytes are
 * given only for a range they hold whole, of the inode they were read from. Frames that overlap
 * with different bytes (a file rewritten in place) replace what was kept.
 */
export class StreamedBytes {
  private readonly files = new Map<string, Entry>();
  private total = 0;

  /** Take a frame: `bytes` are the file's content from `from` to `stat.size`. */
  add(path: string, stat: FileStat, from: number, bytes: Buffer): void {
    const key = posix.normalize(path);
    const old = this.files.get(key);
    let entry: Entry = { ino: stat.ino, start: from, bytes, stat };
    if (old && old.ino === stat.ino && from >= old.start && from <= old.start + old.bytes.length) {
      const overlap = old.start + old.bytes.length - from;
      // The bytes both frames hold must agree, or the file was rewritten: keep the new frame alone.
      if (old.bytes.subarray(from - old.start).equals(bytes.subarray(0, overlap))) {
        entry = { ino: stat.ino, start: old.start, bytes: Buffer.concat([old.bytes.subarray(0, from - old.start), bytes]), stat };
      }
    }
    if (entry.bytes.length > MAX_STREAMED_FILE_BYTES) {
      const cut = entry.bytes.length - MAX_STREAMED_FILE_BYTES;
      entry = { ...entry, start: entry.start + cut, bytes: Buffer.from(entry.bytes.subarray(cut)) };
    }
    this.drop(key);
    this.files.set(key, entry);
    this.total += entry.bytes.length;
    // The least recently fed files go first (a Map keeps insertion order).
    for (const [k] of this.files) {
      if (this.total <= MAX_STREAMED_BYTES || k === key) break;
      this.drop(k);
    }
  }

  /** The stat of the newest frame for this path, once; null when there is none to give. */
  takeStat(path: string): FileStat | null {
    const entry = this.files.get(posix.normalize(path));
    if (!entry?.stat) return null;
    const stat = entry.stat;
    entry.stat = null;
    return stat;
  }

  /** What a request to the host saw of a path (null: it is gone): frames it supersedes stop answering. */
  saw(path: string, stat: FileStat | null): void {
    const key = posix.normalize(path);
    const entry = this.files.get(key);
    if (!entry) return;
    if (stat === null || stat.ino !== entry.ino || stat.size < entry.start + entry.bytes.length) this.drop(key);
    else if (entry.stat && stat.size >= entry.stat.size) entry.stat = null;
  }

  /**
   * Bytes `[offset, offset + length)` of the file if a frame holds all of them, else null. What
   * lies before the range (but the last few bytes, for the next check) is let go.
   */
  read(path: string, offset: number, length: number): Buffer | null {
    const key = posix.normalize(path);
    const entry = this.files.get(key);
    if (!entry || offset < entry.start || offset + length > entry.start + entry.bytes.length) return null;
    const got = Buffer.from(entry.bytes.subarray(offset - entry.start, offset - entry.start + length));
    const keepFrom = Math.max(entry.start, offset + length - KEEP_BEFORE);
    if (keepFrom > entry.start) {
      this.total -= keepFrom - entry.start;
      entry.bytes = Buffer.from(entry.bytes.subarray(keepFrom - entry.start));
      entry.start = keepFrom;
    }
    return got;
  }

  /** Forget one file (it changed in a way frames do not say) or, without a path, every file. */
  forget(path?: string): void {
    if (path === undefined) {
      this.files.clear();
      this.total = 0;
    } else this.drop(posix.normalize(path));
  }

  /** Bytes held, for tests and bounds. */
  get size(): number {
    return this.total;
  }

  private drop(key: string): void {
    const entry = this.files.get(key);
    if (!entry) return;
    this.total -= entry.bytes.length;
    this.files.delete(key);
  }
}
