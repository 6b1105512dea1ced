import { watch, type FSWatcher } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DirEntry, FileSource, FileStat } from './file-source';

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Files on this machine (a `local: true` host). */
export class LocalSource implements FileSource {
  private watchers = new Map<string, FSWatcher>();

  constructor(readonly host: string) {}

  /** inotify (or the platform's equivalent) on each folder: a change is a hint to poll now. */
  watch(dirs: readonly string[], onChange: () => void): void {
    const wanted = new Set(dirs);
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => onChange());
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        // A folder that does not exist yet is simply polled until it does.
      }
    }
  }

  unwatch(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  async stat(path: string): Promise<FileStat | null> {
    try {
      const st = await stat(path, { bigint: true });
      const birth = Number(st.birthtimeMs);
      return {
        ino: st.ino.toString(),
        size: Number(st.size),
        mtimeMs: Number(st.mtimeMs),
        birthtimeMs: birth > 0 ? birth : null,
        isDirectory: st.isDirectory(),
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async read(path: string, offset: number, length: number): Promise<Buffer> {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    } finally {
      await fh.close();
    }
  }

  async list(path: string): Promise<DirEntry[] | null> {
    let names: string[];
    try {
      names = await readdir(path);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    const out: DirEntry[] = [];
    for (const name of names) {
      const st = await this.stat(join(path, name));
      if (st) out.push({ name, isDirectory: st.isDirectory, stat: st });
    }
    return out;
  }
}
