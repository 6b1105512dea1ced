import { posix } from 'node:path';
import type { LoopConfig } from '../config/schema';
import { refuseFile } from '../follow/line-follower';
import { refusedNamesMessage } from '../sources/file-names';
import { FileReadError, type DirEntry, type FileSource } from '../sources/file-source';
import type { Store } from '../store/store';
import { isCycleFolder } from '../text/cycle-layout';

/** A loop's runs folder could not be read; the message names the host and the path. */
export class RunsFolderError extends Error {
  override readonly name = 'RunsFolderError';
}

/**
 * A loop's runs folder and its cycle folders as listed on the host, with the problems a listing
 * makes: names Loopdeck does not follow (a folder's problem, naming them, until they are gone), a
 * cycle folder that cannot be listed, and the problems of files that left the followed cycles.
 */
export class RunsFolder {
  /** Cycle folders refused as problems (cleared when they list again). */
  private readonly refusedDirs = new Set<string>();
  /** The problem last recorded for each folder's refused names (null: none), so it is written only when it changes. */
  private readonly namesJudged = new Map<string, string | null>();

  constructor(
    private readonly loop: string,
    private readonly config: LoopConfig,
    private readonly source: FileSource,
    private readonly store: Store,
  ) {}

  /** The names in the runs folder (only its subfolders where the source can say so cheaply). */
  async names(): Promise<readonly string[]> {
    const runs = this.config.runs;
    const missing = (): RunsFolderError =>
      new RunsFolderError(`Loop ${this.loop}: runs folder ${runs} does not exist on host ${this.source.host} (config key loops.${this.loop}.runs).`);
    if (this.source.dirs) {
      const listing = await this.source.dirs(runs);
      if (listing === null) throw missing();
      this.judgeNames(runs, listing.refused);
      return listing.entries;
    }
    const listing = await this.source.list(runs);
    if (listing === null) throw missing();
    this.judgeNames(runs, listing.refused);
    return listing.entries.filter((e) => e.isDirectory).map((e) => e.name);
  }

  /**
   * A cycle folder's files with their stats (none when it is gone), or null when it cannot be
   * listed: that is the cycle's problem, and it keeps what was read. A folder listed `afresh` (not
   * followed before, or only restored from the store) drops the problems recorded for it first.
   */
  async cycleFiles(date: string, afresh: boolean): Promise<DirEntry[] | null> {
    const dir = posix.join(this.config.runs, date);
    let listing;
    try {
      listing = (await this.source.list(dir)) ?? { entries: [], refused: [] };
    } catch (err) {
      if (!(err instanceof FileReadError)) throw err;
      refuseFile(this.store, this.source.host, dir, err.message);
      this.refusedDirs.add(dir);
      return null;
    }
    if (this.refusedDirs.delete(dir) || afresh) {
      this.store.clearProblems(this.source.host, dir);
      this.namesJudged.delete(dir);
    }
    this.judgeNames(dir, listing.refused);
    return listing.entries.filter((e) => !e.isDirectory);
  }

  /** A cycle left the window: what was judged of its folder goes with it. */
  forget(date: string): void {
    this.namesJudged.delete(posix.join(this.config.runs, date));
  }

  /** Files deleted, or of cycles no longer followed, take their problems with them; `files` names each cycle's files. */
  pruneProblems(dates: readonly string[], files: (date: string) => readonly { readonly name: string }[]): void {
    const keep = new Set<string>();
    for (const date of dates) {
      const dir = posix.join(this.config.runs, date);
      keep.add(dir);
      for (const f of files(date)) keep.add(posix.join(dir, f.name));
    }
    const prefix = posix.join(this.config.runs, '/');
    // Only what lies in cycle folders is this follower's to judge (a deliver record may sit beside them).
    this.store.pruneProblems(this.source.host, prefix, (path) => keep.has(path) || !isCycleFolder(path.slice(prefix.length).split('/')[0] ?? ''));
  }

  private judgeNames(dir: string, refused: readonly Buffer[]): void {
    const message = refused.length > 0 ? refusedNamesMessage(this.source.host, dir, refused) : null;
    if (this.namesJudged.get(dir) === message) return;
    this.namesJudged.set(dir, message);
    if (message) this.store.setFileError(this.store.file(this.source.host, dir).id, message);
    else this.store.clearProblems(this.source.host, dir);
  }
}
