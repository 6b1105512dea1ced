/** What a source reports about a file: identity, length and times. */
export interface FileStat {
  /** Inode number as text (it may exceed 2^53 on some file systems). */
  readonly ino: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Creation time where the file system reports one, else null. */
  readonly birthtimeMs: number | null;
  readonly isDirectory: boolean;
}

/** One entry of a folder listing, with its stat: one round trip lists and stats a folder. */
export interface DirEntry {
  readonly name: string;
  readonly isDirectory: boolean;
  readonly stat: FileStat;
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
  list(path: string): Promise<DirEntry[] | null>;
  /**
   * Call `onChange` soon after anything in these folders changes (a hint to poll now; the poll
   * itself reads what changed). Replaces the previous set; returns nothing — `unwatch` stops it.
   */
  watch?(dirs: readonly string[], onChange: () => void): void;
  /** Stop watching. */
  unwatch?(): void;
}
