import type { DirEntry, DirListing, FileSource, FileStat, WatchHint } from '../main/core/sources/file-source';

/** Calls and bytes through a CountingSource so far. */
export interface SourceCounts {
  readonly stat: number;
  readonly read: number;
  readonly list: number;
  /** stat + read + list: over SSH, one exec round trip each. */
  readonly total: number;
  /** Sum of the byte lengths `read` returned. */
  readonly bytesRead: number;
  /** Time spent inside each kind of call (ms, summed; concurrent calls overlap). */
  readonly statMs: number;
  readonly readMs: number;
  readonly listMs: number;
}

/**
 * A FileSource proxy that counts what passes through it: calls of each kind, the bytes `read`
 * returned, and the time spent in each kind of call.
 */
export class CountingSource implements FileSource {
  private stats = 0;
  private reads = 0;
  private lists = 0;
  private bytes = 0;
  private statNs = 0n;
  private readNs = 0n;
  private listNs = 0n;

  constructor(private readonly inner: FileSource) {}

  get host(): string {
    return this.inner.host;
  }

  watch(dirs: readonly string[], onChange: (hint?: WatchHint) => void): void {
    this.inner.watch?.(dirs, onChange);
  }

  watching(dirs: readonly string[]): boolean {
    return this.inner.watching?.(dirs) ?? false;
  }

  unwatch(): void {
    this.inner.unwatch?.();
  }

  async stat(path: string): Promise<FileStat | null> {
    this.stats += 1;
    const t0 = process.hrtime.bigint();
    try {
      return await this.inner.stat(path);
    } finally {
      this.statNs += process.hrtime.bigint() - t0;
    }
  }

  async read(path: string, offset: number, length: number): Promise<Buffer> {
    this.reads += 1;
    const t0 = process.hrtime.bigint();
    try {
      const buf = await this.inner.read(path, offset, length);
      this.bytes += buf.length;
      return buf;
    } finally {
      this.readNs += process.hrtime.bigint() - t0;
    }
  }

  /** A folder's subfolders (counted as a list: one exec round trip over SSH). */
  async dirs(path: string): Promise<DirListing<string> | null> {
    this.lists += 1;
    const t0 = process.hrtime.bigint();
    try {
      if (this.inner.dirs) return await this.inner.dirs(path);
      const listing = await this.inner.list(path);
      return listing && { entries: listing.entries.filter((e) => e.isDirectory).map((e) => e.name), refused: listing.refused };
    } finally {
      this.listNs += process.hrtime.bigint() - t0;
    }
  }

  async list(path: string): Promise<DirListing<DirEntry> | null> {
    this.lists += 1;
    const t0 = process.hrtime.bigint();
    try {
      return await this.inner.list(path);
    } finally {
      this.listNs += process.hrtime.bigint() - t0;
    }
  }

  /** The counts so far. */
  calls(): SourceCounts {
    return {
      stat: this.stats,
      read: this.reads,
      list: this.lists,
      total: this.stats + this.reads + this.lists,
      bytesRead: this.bytes,
      statMs: Number(this.statNs) / 1e6,
      readMs: Number(this.readNs) / 1e6,
      listMs: Number(this.listNs) / 1e6,
    };
  }
}
