import { readFileSync, type Stats } from 'node:fs';

/** The largest file kept in memory; a larger one is streamed from disk. */
export const STATIC_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** The most the kept files hold together; past it the oldest are dropped. */
export const STATIC_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The renderer's files as serve last read them, kept in memory: a cold start asks for the page and
 * eight scripts at once, and answering each with one write of a buffer instead of a file stream
 * (an open, reads through the thread pool and a close per file, each a turn of the event loop while
 * the browser competes for the same two cores) brought them to the browser sooner. A file is read
 * again when its size or modification time changed (a rebuild of the renderer under a running
 * serve), and only files the path checks in server.ts admitted are asked for.
 */
export class StaticFiles {
  private readonly kept = new Map<string, { readonly mtimeMs: number; readonly size: number; readonly body: Buffer }>();
  private bytes = 0;

  /** The file's bytes, from memory when unchanged since they were read; null when it is too large to keep. */
  body(file: string, stat: Stats): Buffer | null {
    if (stat.size > STATIC_FILE_MAX_BYTES) return null;
    const hit = this.kept.get(file);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.body;
    const body = readFileSync(file);
    this.drop(file);
    // Read after the stat: a file rewritten in between is kept with the stat that no longer matches,
    // so the next request reads it again.
    this.kept.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, body });
    this.bytes += body.length;
    for (const [old] of this.kept) {
      if (this.bytes <= STATIC_CACHE_MAX_BYTES) break;
      this.drop(old);
    }
    return body;
  }

  /** How many bytes are kept (tests). */
  get keptBytes(): number {
    return this.bytes;
  }

  private drop(file: string): void {
    const old = this.kept.get(file);
    if (!old) return;
    this.kept.delete(file);
    this.bytes -= old.body.length;
  }
}
