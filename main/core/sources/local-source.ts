import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, watch, type BigIntStats, type Dirent, type FSWatcher } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hostName } from './file-names';
import { FileReadError, notRegularMessage, type DirEntry, type DirListing, type FileKind, type FileSource, type FileStat, type WatchHint } from './file-source';
import { localLoad, type LoadSample } from './host-load';
import { messageOf } from '../../../shared/errors';

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A file-system error about this one path (EACCES, ELOOP, EISDIR…), as opposed to a bug. */
function isFileError(err: unknown): boolean {
  return typeof (err as NodeJS.ErrnoException).code === 'string';
}

function kindOf(st: BigIntStats): FileKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  return 'other';
}

function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function toStat(st: BigIntStats, kind: FileKind = kindOf(st)): FileStat {
  const birth = Number(st.birthtimeMs);
  return {
    ino: st.ino.toString(),
    size: Number(st.size),
    mtimeMs: Number(st.mtimeMs),
    birthtimeMs: birth > 0 ? birth : null,
    kind,
    isDirectory: kind === 'directory',
  };
}

/**
 * Reads up to this many bytes are done with synchronous calls on the main thread: an appended line
 * costs a few microseconds of system calls that way, where the promise API's thread-pool round
 * trips (open, fstat, read, close) cost ~0.5 ms of CPU. Larger reads (a first read of a long
 * history) stay asynchronous, so they never hold up the event loop.
 */
export const SYNC_READ_BYTES = 256 * 1024;

/** Files on this machine (a `local: true` host). */
export class LocalSource implements FileSource {
  private watchers = new Map<string, FSWatcher>();

  constructor(readonly host: string) {}

  /**
   * inotify (or the platform's equivalent) on each folder: a change is a hint to poll now, and so is
   * a folder's watch starting (it lists the folder again: see below).
   */
  watch(dirs: readonly string[], onChange: (hint?: WatchHint) => void): void {
    const wanted = new Set(dirs);
    const started: string[] = [];
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        // Appends come as `change` with the file's name: the poll then reads that file alone.
        const w = watch(dir, { persistent: false }, (kind, name) =>
          onChange({ dir, name: typeof name === 'string' && name !== '' ? name : null, kind: kind === 'change' ? 'change' : 'rename' }),
        );
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
        started.push(dir);
      } catch {
        // A folder that does not exist yet is simply polled until it does.
      }
    }
    // What changed between the poll's read and the watch's start, no event tells: each folder
    // watched from now on is listed again once (as the SSH watcher's first listing does).
    for (const dir of started) onChange({ dir, name: null, kind: 'rename' });
  }

  unwatch(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  watching(dirs: readonly string[]): boolean {
    return dirs.every((d) => this.watchers.has(d));
  }

  /** This machine's load, from the OS at once (a few system calls, no file read). */
  loadWith(onLoad: (sample: LoadSample | null) => void): void {
    onLoad(localLoad());
  }

  /** Synchronous: a stat is one system call, far cheaper than a promise through the thread pool. */
  async stat(path: string): Promise<FileStat | null> {
    try {
      const st = statSync(path, { bigint: true, throwIfNoEntry: false });
      return st === undefined ? null : toStat(st);
    } catch (err) {
      if (isMissing(err)) return null;
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
        // A symbolic link that loops is there (a listing shows it) but leads nowhere.
        const link = lstatOrNull(path);
        if (link) return toStat(link, 'broken-link');
      }
      if (isFileError(err)) throw new FileReadError(`Cannot stat ${path}: ${messageOf(err)}`, { cause: err });
      throw err;
    }
  }

  /**
   * Opened non-blocking, and checked to be a regular file once open: a named pipe put where a
   * file was expected would otherwise block a libuv thread in open() for good.
   */
  async read(path: string, offset: number, length: number): Promise<Buffer> {
    if (length <= SYNC_READ_BYTES) return this.readSmall(path, offset, length);
    const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: unknown) => {
      throw isFileError(err) ? new FileReadError(`Cannot read ${path}: ${messageOf(err)}`, { cause: err }) : err;
    });
    try {
      const kind = kindOf(await fh.stat({ bigint: true }));
      if (kind !== 'file') throw new FileReadError(notRegularMessage(path, kind));
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await fh.read(buf, got, length - got, offset + got).catch((err: unknown) => {
          throw isFileError(err) ? new FileReadError(`Cannot read ${path}: ${messageOf(err)}`, { cause: err }) : err;
        });
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    } finally {
      await fh.close();
    }
  }

  /** A small read (an appended line or a few) with synchronous calls; same checks as `read`. */
  private async readSmall(path: string, offset: number, length: number): Promise<Buffer> {
    const fail = (err: unknown): never => {
      throw isFileError(err) ? new FileReadError(`Cannot read ${path}: ${messageOf(err)}`, { cause: err }) : err;
    };
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      return fail(err);
    }
    try {
      const kind = kindOf(fstatSync(fd, { bigint: true }));
      if (kind !== 'file') throw new FileReadError(notRegularMessage(path, kind));
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        let n = 0;
        try {
          n = readSync(fd, buf, got, length - got, offset + got);
        } catch (err) {
          fail(err);
        }
        if (n === 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }

  async list(path: string): Promise<DirListing<DirEntry> | null> {
    const raw = await this.readNames(path);
    if (raw === null) return null;
    const { names, refused } = splitNames(raw);
    // One entry that cannot be stat-ed is that entry's problem (its follower says so), not the folder's.
    const stats = await Promise.all(
      names.map((name) =>
        this.stat(join(path, name)).catch((err: unknown) => {
          if (err instanceof FileReadError) return null;
          throw err;
        }),
      ),
    );
    const entries: DirEntry[] = [];
    names.forEach((name, i) => {
      const st = stats[i];
      if (st) entries.push({ name, isDirectory: st.isDirectory, stat: st });
    });
    return { entries, refused };
  }

  /** A folder's names as bytes (a name that is not UTF-8 must not decode lossily); null when it does not exist. */
  private async readNames(path: string): Promise<Buffer[] | null> {
    try {
      return await readdir(path, { encoding: 'buffer' });
    } catch (err) {
      if (isMissing(err)) return null;
      if (isFileError(err)) throw new FileReadError(`Cannot list ${path}: ${messageOf(err)}`, { cause: err });
      throw err;
    }
  }

  async dirs(path: string): Promise<DirListing<string> | null> {
    let entries: Dirent<Buffer>[];
    try {
      entries = await readdir(path, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      if (isMissing(err)) return null;
      if (isFileError(err)) throw new FileReadError(`Cannot list ${path}: ${messageOf(err)}`, { cause: err });
      throw err;
    }
    const names: string[] = [];
    const refused: Buffer[] = [];
    for (const e of entries) {
      // A symlink may point at a folder (stat follows it, as list does); by bytes, whatever the name.
      if (!e.isDirectory() && !(e.isSymbolicLink() && isFolder(Buffer.concat([Buffer.from(`${path}/`), e.name])))) continue;
      const got = hostName(e.name);
      if (got.kind === 'name') names.push(got.name);
      else refused.push(e.name);
    }
    return { entries: names, refused };
  }
}

/** Whether a path (as bytes) leads to a folder; false when it cannot be stat-ed. */
function isFolder(path: Buffer): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** Split a folder's names into those followed (decoded) and those refused (their bytes). */
function splitNames(raw: readonly Buffer[]): { names: string[]; refused: Buffer[] } {
  const names: string[] = [];
  const refused: Buffer[] = [];
  for (const bytes of raw) {
    const got = hostName(bytes);
    if (got.kind === 'name') names.push(got.name);
    else refused.push(bytes);
  }
  return { names, refused };
}
