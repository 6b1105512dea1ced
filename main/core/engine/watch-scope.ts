import type { ReadScope } from '../loops/loop-poll';
import type { FileSource, WatchHint } from '../sources/file-source';

/** What the watchers of one host reported since the last poll. */
type HostChanges = { readonly files: Set<string>; readonly dirs: Set<string> } | 'all';

/**
 * Every host is read whole (whatever its watcher said) once in this many timer polls at least
 * (about 10 s; 50 s once the timer polls are quiet, QUIET_POLL_MS): belt and braces for
 * notifications that can be missed (the SSH watcher itself lists its folders on the host every
 * 250 ms, and a watch starting lists its folders once, so nothing between a read and the watch's
 * start is left to this).
 */
export const FULL_POLL_EVERY = 10;

/**
 * Past a few hosts, the safety net reads one host whole every this many timer polls (about 3 s, or
 * 15 s while they are quiet):
 * its cost stays a host's read every 3 s however large the fleet, each host's turn coming round
 * every 3 × hosts polls (5 minutes for a hundred). A host's read whole is some twenty SSH packets
 * to decrypt; one a second was a third of a hundred idle hosts' CPU (figure 6d).
 */
export const FULL_POLL_GAP = 3;

/**
 * The engine's watchers and what they saw: it keeps each host's sources watching the folders the
 * followers read, collects their hints between polls, and tells each poll how much of a host to
 * read — nothing, only what a watcher named, or everything.
 */
export class WatchScope {
  /** What the watchers reported since the last poll began, by host (`all`: they cannot say what). */
  private reported = new Map<string, HostChanges>();
  /** Timer polls so far: the safety net's clock (see FULL_POLL_EVERY). */
  private timerPolls = 0;
  /** Each host's place in the safety net's turn. */
  private turnOf: Map<string, number> | null = null;
  /** The folders watched on each host, as the list a source's `watching` is asked about. */
  private watched = new Map<string, readonly string[]>();
  /** Each host's source: fixed for the engine's life, so looked up once. */
  private sourceMap: Map<string, FileSource | null> | null = null;

  constructor(
    private readonly sources: () => Iterable<readonly [string, FileSource | null]>,
    /** A poll is due; `host` is whose watcher asked (the scheduler judges streams per host). */
    private readonly wake: (host: string) => void,
  ) {}

  /**
   * Watch these folders on each host. The same folders as last time (nearly every poll), all still
   * watched: nothing to tell the sources. A watcher that ended (a link that dropped, a folder that
   * did not exist yet) is started again.
   */
  update(byHost: Map<string, Set<string>>): void {
    const sources = this.sourcesByHost();
    // Each host's list as it was last time when its folders are the same (nearly every poll): a
    // source keys the list it is asked about once per list, not on every poll.
    let same = byHost.size === this.watched.size;
    const lists = new Map<string, readonly string[]>();
    for (const [host, dirs] of byHost) {
      const prev = this.watched.get(host);
      const kept = prev !== undefined && prev.length === dirs.size && prev.every((d) => dirs.has(d));
      if (!kept) same = false;
      lists.set(host, kept ? prev : [...dirs]);
    }
    const live = [...lists].every(([host, dirs]) => sources.get(host)?.watching?.(dirs) !== false);
    if (same && live) return;
    for (const [host, source] of sources) {
      source?.watch?.([...(lists.get(host) ?? [])], (hint) => {
        this.note(host, hint);
        this.wake(host);
      });
    }
    this.watched = lists;
  }

  private sourcesByHost(): Map<string, FileSource | null> {
    this.sourceMap ??= new Map(this.sources());
    return this.sourceMap;
  }

  /**
   * A follower on this host stopped at its read bound with more of a file left (a first read of a
   * large transcript, 8 MiB a poll): read the host again at once, as a watcher that cannot say
   * what changed would ask, rather than waiting for the next full poll (~10 s a chunk).
   */
  readAgain(host: string): void {
    this.reported.set(host, 'all');
    this.wake(host);
  }

  /** Whether each of these hosts watches every folder it reads (the folders of the last `update`, its watcher live). */
  watchesAll(hosts: Iterable<string>): boolean {
    const sources = this.sourcesByHost();
    for (const host of hosts) {
      const dirs = this.watched.get(host);
      if (dirs === undefined || sources.get(host)?.watching?.(dirs) !== true) return false;
    }
    return true;
  }

  /** Remember what a watcher said changed on a host, for the next poll. */
  private note(host: string, hint: WatchHint | undefined): void {
    const known = this.reported.get(host);
    if (known === 'all') return;
    if (!hint) return void this.reported.set(host, 'all');
    const changes = known ?? { files: new Set<string>(), dirs: new Set<string>() };
    // The folder as watched (already joined) and a bare name: no path.join on every appended line.
    if (hint.kind === 'change' && hint.name !== null) changes.files.add(`${hint.dir}/${hint.name}`);
    else changes.dirs.add(hint.dir);
    this.reported.set(host, changes);
  }

  /**
   * Start a poll: take what was reported, and answer for each host how much to read. A host that
   * watches every folder it would read is read only where its watcher saw a change (nothing at all
   * on a timer poll nobody woke), except on its turn of the safety net: once every
   * max(FULL_POLL_EVERY, FULL_POLL_GAP × hosts) timer polls, the hosts' turns spread over them.
   * A poll with no reason (a person, a test) reads everything.
   */
  begin(reason: 'wake' | 'timer' | null): (host: string) => ReadScope {
    const reported = this.reported;
    this.reported = new Map();
    const sources = this.sourcesByHost();
    this.turnOf ??= new Map([...sources.keys()].map((h, i) => [h, i]));
    const period = Math.max(FULL_POLL_EVERY, FULL_POLL_GAP * sources.size);
    const tick = reason === 'timer' ? ++this.timerPolls : null;
    const turns = this.turnOf;
    // A host's turn comes round every `period` timer polls, one host's turn every FULL_POLL_GAP polls past a few hosts.
    const onTurn = (host: string): boolean => tick !== null && (tick + (turns.get(host) ?? 0) * Math.max(1, Math.floor(period / Math.max(1, sources.size)))) % period === 0;
    const scopes = new Map<string, ReadScope>();
    const scopeOf = (host: string): ReadScope => {
      const dirs = this.watched.get(host);
      const seen = reported.get(host);
      if (reason === null || onTurn(host) || seen === 'all' || dirs === undefined || sources.get(host)?.watching?.(dirs) !== true) return {};
      return seen === undefined ? { quiet: true } : { only: seen };
    };
    // Worked out once a host in a poll: asked for each of its loops.
    return (host) => {
      let s = scopes.get(host);
      if (s === undefined) scopes.set(host, (s = scopeOf(host)));
      return s;
    };
  }
}
