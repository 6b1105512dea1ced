import { posix } from 'node:path';
import {
  HOST_NOT_REACHABLE_NOW,
  TRANSCRIPT_INTEREST_MS,
  TranscriptMarkKindSchema,
  type TranscriptAt,
  type TranscriptChanged,
  type TranscriptInfo,
  type TranscriptLines,
  type TranscriptRef,
  type TranscriptSearch,
} from '../../../shared/transcript-domain';
import { ownEntry, type Config } from '../config/schema';
import { isReachable, type HostTable } from '../hosts/host-table';
import { isCycleFolder } from '../text/cycle-layout';
import type { Store } from '../store/store';
import { TranscriptReader, type TranscriptFile } from './transcript-reader';
import { SearchSlots } from './search-slots';
import { searchOnHost, type SearchQuery } from './transcript-search';

/** A transcript that was asked for and is not there (or cannot be reached); the message names loop, cycle, phase, host and file. */
export class TranscriptNotFoundError extends Error {
  override readonly name = 'TranscriptNotFoundError';
}

/** What the service needs of the engine. */
export interface TranscriptServiceOptions {
  readonly config: Config;
  readonly store: Store;
  readonly hosts: HostTable;
  /** Whether the phase is running now (from the derived loop state). */
  readonly running: (ref: TranscriptRef) => boolean;
  readonly now?: () => number;
}

interface Interest {
  until: number;
  readonly host: string;
  readonly path: string;
  published: string;
}

const KINDS = new Set<string>(TranscriptMarkKindSchema.options);

/**
 * Phase transcripts for the console and the CLI: resolves a (loop, date, phase) to its host and
 * path from the config (a client never names a path), reads ranges and searches through the
 * TranscriptReader, and keeps which transcripts someone has open (each for TRANSCRIPT_INTEREST_MS
 * after its last open or read), so a poll says which of those changed, once per poll.
 */
export class TranscriptService {
  private readonly reader: TranscriptReader;
  private readonly interest = new Map<string, Interest>();
  private readonly searches: SearchSlots;
  private readonly now: () => number;

  constructor(private readonly options: TranscriptServiceOptions) {
    this.reader = new TranscriptReader(options.store);
    this.now = options.now ?? Date.now;
    this.searches = new SearchSlots();
  }

  /** The host, path and source of a transcript, or an error naming what is missing. */
  resolve(ref: TranscriptRef): TranscriptFile & { shell: NonNullable<ReturnType<HostTable['get']>>['shell'] } {
    const { config, hosts } = this.options;
    const loop = ownEntry(config.loops, ref.loop);
    if (!loop) throw new TranscriptNotFoundError(`No loop named ${ref.loop} in the config (loops: ${Object.keys(config.loops).join(', ') || 'none'}).`);
    if (!loop.phases.includes(ref.phase)) throw new TranscriptNotFoundError(`Loop ${ref.loop} has no phase ${ref.phase} (phases: ${loop.phases.join(', ')}; config key loops.${ref.loop}.phases).`);
    if (!isCycleFolder(ref.date)) throw new TranscriptNotFoundError(`Loop ${ref.loop}: ${ref.date} is not a cycle date (YYYY-MM-DD).`);
    const path = posix.join(loop.runs, ref.date, loop.layout.log.split('{phase}').join(ref.phase));
    const host = hosts.get(loop.host);
    if (!host || !isReachable(host) || !host.source) {
      throw new TranscriptNotFoundError(`Loop ${ref.loop}, cycle ${ref.date}, phase ${ref.phase}: host ${loop.host} ${HOST_NOT_REACHABLE_NOW}, so ${path} cannot be read.`);
    }
    return { host: loop.host, path, source: host.source, shell: host.shell };
  }

  /** The newest cycle of a loop holding this phase's transcript (else the newest cycle), for `loopdeck log` without a date. */
  async newestDate(loopName: string, phase: string): Promise<string> {
    const loop = ownEntry(this.options.config.loops, loopName);
    const probe = this.resolve({ loop: loopName, date: '2000-01-01', phase });
    const runs = loop?.runs ?? '';
    const listing = probe.source.dirs ? await probe.source.dirs(runs) : await probe.source.list(runs).then((l) => l && { entries: l.entries.filter((e) => e.isDirectory).map((e) => e.name) });
    if (listing === null) throw new TranscriptNotFoundError(`Loop ${loopName}: runs folder ${runs} does not exist on host ${probe.host} (config key loops.${loopName}.runs).`);
    const dates = listing.entries.filter(isCycleFolder).sort().reverse();
    if (dates.length === 0) throw new TranscriptNotFoundError(`Loop ${loopName}: no cycle folder in ${probe.host}:${runs} yet.`);
    for (const date of dates.slice(0, 14)) {
      const file = this.resolve({ loop: loopName, date, phase });
      if ((await file.source.stat(file.path)) !== null) return date;
    }
    return dates[0] ?? '';
  }

  private missing(ref: TranscriptRef, file: TranscriptFile): TranscriptNotFoundError {
    return new TranscriptNotFoundError(`Loop ${ref.loop}, cycle ${ref.date}, phase ${ref.phase}: no transcript at ${file.host}:${file.path} (the file does not exist).`);
  }

  private touch(ref: TranscriptRef, file: TranscriptFile, size: number, lines: number, ino: string): void {
    const key = `${ref.loop}\0${ref.date}\0${ref.phase}`;
    const known = this.interest.get(key);
    const until = this.now() + TRANSCRIPT_INTEREST_MS;
    if (known) known.until = until;
    else {
      // What the follower holds now: a change is said against that, not against the reader's count.
      const row = this.options.store.file(file.host, file.path);
      this.interest.set(key, { until, host: file.host, path: file.path, published: row.ino === ino ? `${row.size}/${row.lineNo}/${row.ino}` : `${size}/${lines}/${ino}` });
    }
  }

  /** Open a transcript: the file now, whether its phase runs, and its marks. */
  async open(ref: TranscriptRef): Promise<TranscriptInfo> {
    const file = this.resolve(ref);
    this.options.store.flushPositions();
    const now = await this.reader.now(file);
    if (now === null) throw this.missing(ref, file);
    this.touch(ref, file, now.stat.size, now.lines, now.stat.ino);
    const marks = this.reader.marks(file, now).flatMap((m) => (KINDS.has(m.kind) ? [{ n: m.line, kind: m.kind as TranscriptInfo['marks'][number]['kind'], text: m.text }] : []));
    return { host: file.host, path: file.path, size: now.stat.size, ino: now.stat.ino, lines: now.lines, running: this.options.running(ref), marks };
  }

  /** Lines of a transcript from `at`. */
  async lines(ref: TranscriptRef & { at: TranscriptAt; count: number }): Promise<TranscriptLines> {
    const file = this.resolve(ref);
    const out = await this.reader.lines(file, ref.at, ref.count);
    if (out === null) throw this.missing(ref, file);
    this.touch(ref, file, out.size, out.lines, out.ino);
    return out;
  }

  /**
   * Search a transcript on its host for `user` (the caller's name): one search a user, a new one
   * cancelling the old, and at most SEARCHES_PER_HOST on a host (see SearchSlots).
   */
  async search(ref: TranscriptRef & SearchQuery, user: string): Promise<TranscriptSearch> {
    const file = this.resolve(ref);
    const shell = file.shell;
    if (!shell) throw new TranscriptNotFoundError(`Host ${file.host} has no shell to search ${file.path} with.`);
    return this.searches.run(user, file.host, file.path, async (signal) => {
      const stat = await file.source.stat(file.path);
      if (stat === null) throw this.missing(ref, file);
      return searchOnHost(shell, file.host, file.path, ref, signal);
    });
  }

  /**
   * After a poll: the transcripts someone has open whose size, lines or inode the follower saw
   * change since they were last said (one each, however many lines the poll read). Interest past
   * its time is dropped.
   */
  changed(): TranscriptChanged[] {
    if (this.interest.size === 0) return [];
    const out: TranscriptChanged[] = [];
    const at = this.now();
    for (const [key, i] of this.interest) {
      if (i.until < at) {
        this.interest.delete(key);
        continue;
      }
      const row = this.options.store.file(i.host, i.path);
      if (row.ino === null) continue;
      const now = `${row.size}/${row.lineNo}/${row.ino}`;
      if (now === i.published) continue;
      i.published = now;
      const [loop = '', date = '', phase = ''] = key.split('\0');
      out.push({ loop, date, phase, size: row.size, lines: row.lineNo, ino: row.ino });
    }
    return out;
  }
}
