import { posix } from 'node:path';
import type { ExecResult, SshConnection } from '../ssh/connection';
import { hostName } from './file-names';
import { FileReadError, type DirEntry, type DirListing, type FileSource, type FileStat, type WatchHint } from './file-source';
import { LOAD_SCRIPT, takeLoad, type LoadSample } from './host-load';
import { dirsScript, listScript, MISSING, parseListingLine, parseStatLine, shellQuote, STAT_FN } from './remote-shell';
import { SeenStats } from './seen-stats';
import { StreamedBytes } from './streamed-bytes';
import { parseWatchLine } from './watch-frames';
import { watcherCommand } from './watcher-perl';

/** Past this many differences a new watcher's first listing asks for the whole host to be read. */
const MAX_FIRST_HINTS = 256;

/** Exit code of a read whose path is not a regular file (a named pipe would block `tail`). */
const NOT_REGULAR = 4;
/** Exit code of a read whose file this account may not read (`tail` would print nothing and exit 0). */
const UNREADABLE = 5;

/** Options of an SshSource. */
export interface SshSourceOptions {
  /**
   * How often the watcher lists the watched folders (ms), for new files and folders; a file that
   * grows wakes it at once anyway. Default 250 (FALLBACK_STAT_MS where `tail -F` does not run).
   */
  readonly watchStatMs?: number;
  /**
   * Which watcher runs on the host: `perl` (the default) takes the Perl one where perl starts and
   * the shell one elsewhere; `sh` always the shell one (tests of hosts without perl).
   */
  readonly watcher?: 'perl' | 'sh';
}

/**
 * Files on a host reached over SSH, through the host's one connection: `stat` and `tail | head`
 * over exec channels, so only appended bytes cross the link. While folders are watched, what is
 * appended to their files comes through the watcher's stream instead (with offsets and stat), and
 * the poll it wakes reads it from there: no request for a line appended to a hot file. Works on
 * Linux and macOS runners.
 */
export class SshSource implements FileSource {
  private watcher: { key: string; stop: (() => void) | null } | null = null;
  /** Bytes the watcher streamed, until a poll reads them. */
  private readonly streamed = new StreamedBytes();
  /** What the reads saw, for a new watcher's first listing to be compared with. */
  private readonly seen = new SeenStats();
  /** Who asked for the host's load (loadWith), until a request carries the question. */
  private loadAsked: ((sample: LoadSample | null) => void) | null = null;

  constructor(
    readonly host: string,
    private readonly connection: SshConnection,
    private readonly options: SshSourceOptions = {},
  ) {}

  /**
   * One watcher channel on the host (see watcherScript), so a poll starts as soon as a watched
   * file grows or a folder changes instead of on the next tick; a file that grew is named in the
   * hint, and its new bytes are kept for the poll's read.
   */
  watch(dirs: readonly string[], onChange: (hint?: WatchHint) => void): void {
    const key = [...dirs].sort().join('\0');
    if (this.watcher?.key === key) return;
    this.unwatch();
    if (dirs.length === 0) return;
    const state: { key: string; stop: (() => void) | null } = { key, stop: null };
    this.watcher = state;
    const command = watcherCommand(dirs, this.options.watchStatMs ?? 250, this.options.watcher ?? 'perl');
    const hintFor = (path: string): WatchHint => ({ dir: posix.dirname(path), name: posix.basename(path), kind: 'change' });
    // The Perl watcher's first report is its listing: only what differs from what the reads saw is a change.
    let first: Map<string, FileStat> | null = new Map();
    const onLine = (line: string): void => {
      if (this.watcher !== state) return;
      const got = parseWatchLine(line);
      if (got.kind === 'beat') return;
      if (got.kind === 'entry') return void first?.set(got.path, got.stat);
      if (got.kind === 'listed') {
        const hints = first === null ? [] : this.seen.differences(dirs, first);
        first = null;
        if (hints.length > MAX_FIRST_HINTS) return onChange();
        for (const hint of hints) onChange(hint);
        return;
      }
      if (got.kind === 'grew') {
        this.streamed.add(got.path, got.stat, got.from, got.bytes);
        return onChange(hintFor(got.path));
      }
      if (got.kind === 'touched') {
        this.streamed.forget(got.path);
        return onChange(hintFor(got.path));
      }
      this.streamed.forget();
      onChange();
    };
    this.connection
      .stream(command, onLine, () => {
        // The link dropped or the watcher was replaced: the next watch() call starts a new one,
        // and nothing it streamed is trusted any more.
        if (this.watcher === state) {
          this.watcher = null;
          this.streamed.forget();
        }
      })
      .then(
        (stop) => {
          if (this.watcher === state) state.stop = stop;
          else stop();
        },
        () => {
          if (this.watcher === state) this.watcher = null;
        },
      );
  }

  unwatch(): void {
    this.watcher?.stop?.();
    this.watcher = null;
    this.streamed.forget();
  }

  watching(dirs: readonly string[]): boolean {
    // A watcher runs, or is starting, for exactly these folders: one starting covers the time
    // before it, as its first report is what changed since the reads (its listing compared with
    // them, or `changed`). One that could not start or ended is no longer there.
    // Asked on every poll with the same list: its key is made once per list.
    if (this.askedKey?.dirs !== dirs) this.askedKey = { dirs, key: [...dirs].sort().join('\0') };
    return this.watcher !== null && this.watcher.key === this.askedKey.key;
  }

  /** The key of the folder list `watching` was last asked about. */
  private askedKey: { readonly dirs: readonly string[]; readonly key: string } | null = null;

  async stat(path: string): Promise<FileStat | null> {
    const streamed = this.streamed.takeStat(path);
    if (streamed) {
      this.seen.stat(path, streamed);
      return streamed;
    }
    const stat = await this.statOnHost(path);
    this.streamed.saw(path, stat);
    this.seen.stat(path, stat);
    return stat;
  }

  loadWith(onLoad: (sample: LoadSample | null) => void): void {
    this.loadAsked = onLoad;
  }

  /**
   * Run a request's script in the host's shell session. The first one after `loadWith` runs
   * LOAD_SCRIPT ahead of it, in the same round trip: its block is taken off the head of stderr, so
   * the caller sees only its own script's output. One that fails leaves the question to the next.
   */
  private async run(script: string): Promise<ExecResult> {
    const asked = this.loadAsked;
    if (!asked) return this.connection.run(script);
    this.loadAsked = null;
    let out: ExecResult;
    try {
      out = await this.connection.run(`${LOAD_SCRIPT}\n${script}`);
    } catch (err) {
      this.loadAsked ??= asked;
      throw err;
    }
    const { sample, rest } = takeLoad(out.stderr);
    asked(sample);
    return { ...out, stderr: rest };
  }

  private async statOnHost(path: string): Promise<FileStat | null> {
    const q = shellQuote(path);
    const out = await this.run(`${STAT_FN}; [ -e ${q} ] || exit ${MISSING}; st ${q}`);
    if (out.code === MISSING) return null;
    const parsed = parseStatLine(out.stdout.toString('utf8').split('\n')[0] ?? '');
    if (out.code !== 0 || !parsed) {
      throw new FileReadError(`Host ${this.host}: cannot stat ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    }
    return parsed.stat;
  }

  async read(path: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    const streamed = this.streamed.read(path, offset, length);
    if (streamed) return streamed;
    try {
      return await this.readOnHost(path, offset, length);
    } catch (err) {
      this.seen.unsure(path);
      throw err;
    }
  }

  private async readOnHost(path: string, offset: number, length: number): Promise<Buffer> {
    const q = shellQuote(path);
    const out = await this.run(`[ -f ${q} ] || exit ${NOT_REGULAR}; [ -r ${q} ] || exit ${UNREADABLE}; tail -c +${offset + 1} -- ${q} | head -c ${length}`);
    if (out.code === NOT_REGULAR) throw new FileReadError(`Host ${this.host}: ${path} is not a regular file; not read.`);
    if (out.code === UNREADABLE) throw new FileReadError(`Host ${this.host}: cannot read ${path}: permission denied.`);
    if (out.code !== 0 && out.stdout.length === 0) {
      throw new FileReadError(`Host ${this.host}: cannot read ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    }
    return out.stdout.subarray(0, length);
  }

  async dirs(path: string): Promise<DirListing<string> | null> {
    const script = dirsScript(path);
    const out = await this.run(script);
    if (out.code === MISSING) {
      this.seen.named(path, null);
      return null;
    }
    if (out.code !== 0) throw new FileReadError(`Host ${this.host}: cannot list ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    const entries: string[] = [];
    const refused: Buffer[] = [];
    for (const line of out.stdout.toString('latin1').split('\n')) {
      if (line.startsWith('p')) entries.push(line.slice(1));
      else if (line.startsWith('x') && /^x(?:[0-9a-f]{2})+$/.test(line)) {
        const got = hostName(Buffer.from(line.slice(1), 'hex'));
        if (got.kind === 'name') entries.push(got.name);
        else refused.push(got.bytes);
      }
    }
    this.seen.named(path, entries);
    return { entries, refused };
  }

  async list(path: string): Promise<DirListing<DirEntry> | null> {
    const script = listScript(path);
    const out = await this.run(script);
    if (out.code === MISSING) {
      this.seen.listed(path, null);
      return null;
    }
    if (out.code !== 0) throw new FileReadError(`Host ${this.host}: cannot list ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    const entries: DirEntry[] = [];
    const refused: Buffer[] = [];
    // Every byte of a line is ASCII (plain names, digits, hex), so latin1 decodes it as sent.
    for (const line of out.stdout.toString('latin1').split('\n')) {
      const parsed = parseListingLine(line);
      if (!parsed) continue;
      let name: string;
      if ('bytes' in parsed) {
        const got = hostName(parsed.bytes);
        if (got.kind === 'refused') {
          refused.push(got.bytes);
          continue;
        }
        if (!parsed.stat) continue;
        name = got.name;
      } else name = parsed.name;
      const stat = parsed.stat as FileStat;
      entries.push({ name, isDirectory: stat.isDirectory, stat });
      this.streamed.saw(posix.join(path, name), stat);
    }
    this.seen.listed(path, entries);
    return { entries, refused };
  }
}
