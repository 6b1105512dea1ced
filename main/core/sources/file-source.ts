import type { LoadSample } from './host-load';

/**
 * What kind of thing a path is (symbolic links followed). Only a `file` is ever opened: a named
 * pipe blocks whoever opens it, a device or socket is not a log, and `broken-link` is a symbolic
 * link that cannot be followed (a loop, or a target that cannot be reached).
 */
export type FileKind = 'file' | 'directory' | 'fifo' | 'socket' | 'device' | 'broken-link' | 'other';

/** What a source reports about a file: identity, length and times. */
export interface FileStat {
  /** Inode number as text (it may exceed 2^53 on some file systems). */
  readonly ino: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Creation time where the file system reports one, else null. */
  readonly birthtimeMs: number | null;
  readonly kind: FileKind;
  /** Same as `kind === 'directory'`. */
  readonly isDirectory: boolean;
}

/** How a message names a kind of path that is not a regular file ("a named pipe (FIFO)"). */
export function describeKind(kind: FileKind): string {
  switch (kind) {
    case 'file':
      return 'a regular file';
    case 'directory':
      return 'a directory';
    case 'fifo':
      return 'a named pipe (FIFO)';
    case 'socket':
      return 'a socket';
    case 'device':
      return 'a device';
    case 'broken-link':
      return 'a symbolic link that cannot be followed';
    default:
      return 'not a regular file';
  }
}

/** The message for a path that is there but is not a regular file, so it is not read. */
export function notRegularMessage(path: string, kind: FileKind): string {
  return kind === 'other' ? `${path} is not a regular file; not read.` : `${path} is ${describeKind(kind)}, not a regular file; not read.`;
}

/**
 * A file (or folder) that exists but cannot be read: permission denied, a symbolic-link loop, not
 * a regular file. Followers report it as a problem of that file and go on with the others; any
 * other error (a dropped link) stops the poll as before.
 */
export class FileReadError extends Error {
  override readonly name = 'FileReadError';
}

/**
 * What a watcher knows about a change: the folder, and the file whose content changed when it can
 * tell (`change`); a file created, removed or renamed (`rename`), or no name, means the folder's
 * listing must be read again. Without a hint (the SSH watcher) anything may have changed.
 */
export interface WatchHint {
  readonly dir: string;
  readonly name: string | null;
  readonly kind: 'change' | 'rename';
}

/** One entry of a folder listing, with its stat: one round trip lists and stats a folder. */
export interface DirEntry {
  readonly name: string;
  readonly isDirectory: boolean;
  readonly stat: FileStat;
}

/**
 * A folder's entries, and the names in it Loopdeck does not follow (see file-names.ts), as the
 * host gave their bytes: the folder's problem, never a file of its own.
 */
export interface DirListing<E> {
  readonly entries: readonly E[];
  readonly refused: readonly Buffer[];
}

/**
 * Where followed files live: this machine, or a host reached over SSH. Followers and the loop
 * model see only this interface, so local and remote hosts behave the same.
 */
export interface FileSource {
  /** The host's configured name, for messages and the store. */
  readonly host: string;
  /** Stat a path; null when it does not exist. */
  stat(path: string): Promise<FileStat | null>;
  /** Read up to `length` bytes from `offset`. */
  read(path: string, offset: number, length: number): Promise<Buffer>;
  /** List a folder with each entry's stat; null when it does not exist. */
  list(path: string): Promise<DirListing<DirEntry> | null>;
  /**
   * The names of a folder's subfolders, without a stat each (a runs folder holds a year of cycle
   * folders; only their names are needed every poll); null when it does not exist.
   */
  dirs?(path: string): Promise<DirListing<string> | null>;
  /**
   * Call `onChange` soon after anything in these folders changes (a hint to poll now; the poll
   * itself reads what changed). Replaces the previous set; returns nothing — `unwatch` stops it.
   */
  watch?(dirs: readonly string[], onChange: (hint?: WatchHint) => void): void;
  /** Stop watching. */
  unwatch?(): void;
  /**
   * Whether every one of these folders is being watched right now, so a change in them wakes a
   * poll: then a poll that was not woken may skip reading them. A watcher still starting counts
   * when its first report covers what changed before it started.
   */
  watching?(dirs: readonly string[]): boolean;
  /**
   * Ask for the host's load (host-load.ts) with the next request this source makes to the host, so
   * a reading costs no request of its own; `onLoad` hears it once (null when the host did not say).
   * A source that makes no requests (this machine) answers at once.
   */
  loadWith?(onLoad: (sample: LoadSample | null) => void): void;
}
