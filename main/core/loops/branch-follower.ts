import { posix } from 'node:path';
import type { Problem } from '../../../shared/domain';
import type { LoopConfig } from '../config/schema';
import { followOnce } from '../follow/line-follower';
import type { FileSource } from '../sources/file-source';
import type { Store } from '../store/store';
import { branchNameProblem, branchOf, reflogParser, reflogPath, type ReflogEntry } from './branch-reflog';

const NO_ENTRIES: readonly ReflogEntry[] = Object.freeze([]);
const CYCLE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Follows one loop's nightly-branch reflogs (`<dir>/.git/logs/refs/heads/<branch>`, FORMATS.md
 * §2.7) for the cycles it is given, as the other followers follow their files: through the loop's
 * FileSource and `followOnce`, offsets and records in the Store, so a poll reads only what was
 * appended and a restart resumes where it stopped. A reflog is append-only, but a branch deleted
 * and made again is a new file that may reuse the inode and outgrow the old offset: the bytes
 * before the offset are checked (`verifyTail`), so a file replaced, truncated or re-created is read
 * again from its start and what was read of the old one is forgotten. A reflog that is not there
 * (no branch that night, or no `dir`) is normal: no entries and no problem. A file that goes away
 * keeps what was read of it (the commits were made). Lines that are not reflog lines, and lines
 * longer than the line follower keeps, are the Store's problems of that file and line, as for
 * every followed file; a branch name git would refuse is a problem of the config key.
 */
export class BranchFollower {
  /** Entries read so far, by reflog path (several dates share one when `branch` has no `{date}`). */
  private readonly byPath = new Map<string, ReflogEntry[]>();
  /** The followed dates' reflog paths, as of the last poll. */
  private readonly pathOfDate = new Map<string, string>();
  private configProblems: Problem[] = [];
  private leftUnread = false;
  /** The dates of the last poll, in order: a poll given the same reconciles nothing (see poll); null after a restore. */
  private lastDates: readonly string[] | null = null;
  /** Each date's reflog path, worked out once (the config does not change under a follower). */
  private readonly pathMemo = new Map<string, string | null>();

  constructor(
    readonly loop: string,
    private readonly config: LoopConfig,
    private readonly source: FileSource,
    private readonly store: Store,
  ) {}

  /** The last poll left a backlog unread (a huge reflog is read over several polls): poll again. */
  get behind(): boolean {
    return this.leftUnread;
  }

  /** Where a cycle's reflog is (see reflogPath); null when it is not followed. */
  pathOf(date: string): string | null {
    let path = this.pathMemo.get(date);
    if (path === undefined) {
      path = reflogPath(this.config, date);
      this.pathMemo.set(date, path);
    }
    return path;
  }

  /**
   * Follow the reflogs of these cycles (YYYY-MM-DD, the loop's followed cycles) and forget the
   * dates no longer given. True when any date's entries changed: lines appended, a file read
   * again from its start, or a date's entries forgotten. Problems alone do not count (they are the
   * Store's, and problems()). An unreadable file (permission denied, not a regular file) is its
   * problem and keeps what was read; an error reaching the host rejects, as the other followers do.
   * `readNow`: the dates whose reflogs are read this time (the others keep what was read); all when absent.
   */
  async poll(dates: readonly string[], readNow: ReadonlySet<string> | null = null): Promise<boolean> {
    this.leftUnread = false;
    // The usual poll (a line appended tonight): the same nights as the last one, so nothing to
    // reconcile, and only the nights read now are looked at, whatever the history's length.
    const changed = this.sameDates(dates) ? false : this.reconcile(dates);
    const paths = new Set<string>();
    for (const [date, path] of this.pathOfDate) if (!readNow || readNow.has(date)) paths.add(path);
    // Each file on its own (one that cannot be read is its problem only); over SSH the
    // connection's session cap bounds the fan-out.
    const moved = await Promise.all([...paths].map((path) => this.follow(path)));
    return changed || moved.includes(true);
  }

  /** The dates are the last poll's, in the same order. */
  private sameDates(dates: readonly string[]): boolean {
    const last = this.lastDates;
    if (last === null || dates.length !== last.length) return false;
    for (let i = 0; i < dates.length; i++) if (dates[i] !== last[i]) return false;
    return true;
  }

  /** Take these dates as the followed ones: their paths, the key's problem, and what left. True when entries were forgotten. */
  private reconcile(dates: readonly string[]): boolean {
    this.lastDates = [...dates];
    let changed = false;
    const wanted = new Map<string, string>();
    const problems: Problem[] = [];
    for (const date of new Set(dates)) {
      const path = this.pathOf(date);
      if (path !== null) {
        wanted.set(date, path);
        continue;
      }
      // One problem for the key, however many nights it spoils (a date not YYYY-MM-DD is no cycle's: skipped).
      const why = this.config.dir && problems.length === 0 && CYCLE_DATE.test(date) ? branchNameProblem(branchOf(this.config, date)) : null;
      if (why !== null) {
        problems.push({ source: `loops.${this.loop}.branch`, line: null, message: `${JSON.stringify(this.config.branch)} names a branch git would refuse (${why}), so no reflog of it is read` });
      }
    }
    this.configProblems = problems;
    // Dates that left: their entries go, and so do the problems of files no date follows now.
    for (const date of [...this.pathOfDate.keys()]) if (!wanted.has(date) && (this.byPath.get(this.pathOfDate.get(date) ?? '')?.length ?? 0) > 0) changed = true;
    this.pathOfDate.clear();
    for (const [date, path] of wanted) this.pathOfDate.set(date, path);
    for (const date of [...this.pathMemo.keys()]) if (!wanted.has(date)) this.pathMemo.delete(date);
    const paths = new Set(wanted.values());
    for (const path of [...this.byPath.keys()]) {
      if (paths.has(path)) continue;
      this.byPath.delete(path);
      this.store.clearProblems(this.source.host, path);
    }
    return changed;
  }

  /**
   * Before the first read, while the host cannot be reached: these cycles' entries as the Store
   * holds them from the last run (no request to the host). True when any were restored; the next
   * poll that reaches the host reads only what was appended since. Dates already read are kept.
   */
  restore(dates: readonly string[]): boolean {
    let any = false;
    // The next poll takes its dates afresh, whatever they are.
    this.lastDates = null;
    for (const date of new Set(dates)) {
      const path = this.pathOf(date);
      if (path === null) continue;
      this.pathOfDate.set(date, path);
      if (this.byPath.has(path)) continue;
      const stored = this.store.records<ReflogEntry>(this.store.file(this.source.host, path).id);
      this.byPath.set(path, stored);
      any ||= stored.length > 0;
    }
    return any;
  }

  /** Follow one reflog; true when its entries changed. */
  private async follow(path: string): Promise<boolean> {
    const out = await followOnce(this.source, this.store, path, reflogParser, { verifyTail: true });
    this.leftUnread ||= out.more;
    const known = this.byPath.get(path);
    if (!known) {
      // First sight in this process: what the store holds, which now includes this read.
      const stored = this.store.records<ReflogEntry>(this.store.file(this.source.host, path).id);
      this.byPath.set(path, stored);
      return stored.length > 0;
    }
    if (!out.changed) return false;
    if (out.reset) {
      const had = known.length > 0;
      this.byPath.set(path, [...out.records]);
      return had || out.records.length > 0;
    }
    for (const r of out.records) known.push(r);
    return out.records.length > 0;
  }

  /** A followed cycle's branch moves as of the last poll, in reflog order; none for a date not followed. */
  entries(date: string): readonly ReflogEntry[] {
    const path = this.pathOfDate.get(date);
    return (path === undefined ? undefined : this.byPath.get(path)) ?? NO_ENTRIES;
  }

  /**
   * What could not be read: a branch name git would refuse (source `loops.<loop>.branch`), and the
   * Store's problems of the followed reflogs (bad lines, giant lines, unreadable files), each
   * naming the file and line.
   */
  problems(): Problem[] {
    const own = this.store.problems(this.source.host).filter((p) => this.byPath.has(p.source));
    return [...this.configProblems, ...own];
  }

  /** The folders holding the followed reflogs (to watch, so a commit wakes a poll); a folder may not exist yet. */
  watchDirs(): string[] {
    return [...new Set([...this.pathOfDate.values()].map((p) => posix.dirname(p)))];
  }
}
