import { posix } from 'node:path';
import type { FileStat, WatchHint } from './file-source';

/** The most paths remembered for a host; past it the oldest folders are forgotten (they are then read again, never missed). */
export const MAX_SEEN_PATHS = 50_000;

/** What the reads of one folder saw. */
interface SeenDir {
  /** Each name's stat as a request last gave it; null: asked, and not there. */
  readonly stats: Map<string, FileStat | null>;
  /** `full`: listed with stats (every entry is known); `names`: its sub-folders' names only. */
  listed: 'full' | 'names' | null;
  /** The sub-folders a names-only listing gave. */
  names: ReadonlySet<string>;
}

const sameStat = (a: FileStat, b: FileStat): boolean => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.kind === b.kind;

/**
 * What the reads of a host's files saw (stats, listings), so a watcher's first listing — which
 * covers the gap between the last read and the watcher's start — asks only for what differs
 * instead of a read of the whole host. A new watcher starts whenever the watched folders change,
 * and each such start read every file of the host again: a hundred hosts' worth of reads in the
 * first seconds of a fleet's load (figure 6d).
 *
 * It claims nothing it did not see: a folder never read, or an entry of a folder listed in full
 * that no read saw, is a change. A names-only listing (the cycle folders of a runs folder) is
 * compared by its sub-folders' names, as that is all its reader uses.
 */
export class SeenStats {
  private readonly dirs = new Map<string, SeenDir>();
  private paths = 0;

  /** A stat a request gave (null: the path is not there). */
  stat(path: string, stat: FileStat | null): void {
    const dir = this.dir(posix.dirname(path));
    const name = posix.basename(path);
    if (!dir.stats.has(name)) this.paths++;
    dir.stats.set(name, stat);
    this.bound();
  }

  /** A read of the path failed: what its stat said was not all taken, so it is not known any more. */
  unsure(path: string): void {
    const dir = this.dirs.get(posix.dirname(path));
    if (dir?.stats.delete(posix.basename(path))) this.paths--;
  }

  /** A folder listed with its entries' stats; null: the folder is not there. */
  listed(path: string, entries: readonly { readonly name: string; readonly stat: FileStat }[] | null): void {
    if (entries === null) return void this.forget(path);
    this.forget(path);
    const dir = this.dir(path);
    dir.listed = 'full';
    for (const e of entries) dir.stats.set(e.name, e.stat);
    this.paths += entries.length;
    this.bound();
  }

  /** A folder's sub-folders, by name only; null: the folder is not there. */
  named(path: string, names: readonly string[] | null): void {
    if (names === null) return void this.forget(path);
    const dir = this.dir(path);
    if (dir.listed !== 'full') dir.listed = 'names';
    dir.names = new Set(names);
  }

  /**
   * What differs between a watcher's first listing of `watched` (every entry, by path) and what the
   * reads saw, as the hints a watcher sends: a file whose stat moved is a change; a name that came
   * or went, a folder that moved, or a folder never read is a change of its folder.
   */
  differences(watched: readonly string[], listing: ReadonlyMap<string, FileStat>): WatchHint[] {
    const byDir = new Map<string, Map<string, FileStat>>();
    for (const [path, stat] of listing) {
      const d = posix.dirname(path);
      let m = byDir.get(d);
      if (!m) byDir.set(d, (m = new Map()));
      m.set(posix.basename(path), stat);
    }
    const hints: WatchHint[] = [];
    for (const d of watched) {
      const seen = this.dirs.get(d);
      const now = byDir.get(d) ?? new Map<string, FileStat>();
      if (!seen) {
        hints.push({ dir: d, name: null, kind: 'rename' });
        continue;
      }
      for (const [name, stat] of now) {
        const was = seen.stats.get(name);
        if (was === undefined) {
          const unknown = seen.listed === 'full' || (seen.listed === 'names' && stat.isDirectory && !seen.names.has(name));
          if (unknown) hints.push({ dir: d, name, kind: 'rename' });
        } else if (was === null || !sameStat(was, stat)) hints.push({ dir: d, name, kind: was === null || was.isDirectory || stat.isDirectory ? 'rename' : 'change' });
      }
      for (const [name, was] of seen.stats) if (was !== null && !now.has(name)) hints.push({ dir: d, name, kind: 'rename' });
      if (seen.listed === 'names') for (const name of seen.names) if (!now.get(name)?.isDirectory) hints.push({ dir: d, name, kind: 'rename' });
    }
    return hints;
  }

  private dir(path: string): SeenDir {
    let dir = this.dirs.get(path);
    if (!dir) this.dirs.set(path, (dir = { stats: new Map(), listed: null, names: new Set() }));
    return dir;
  }

  private forget(path: string): void {
    const dir = this.dirs.get(path);
    if (!dir) return;
    this.paths -= dir.stats.size;
    this.dirs.delete(path);
  }

  /** Past MAX_SEEN_PATHS the folders first seen go first (a Map keeps insertion order). */
  private bound(): void {
    for (const [path] of this.dirs) {
      if (this.paths <= MAX_SEEN_PATHS) return;
      this.forget(path);
    }
  }
}
