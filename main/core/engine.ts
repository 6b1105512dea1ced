import type { EventName, EventPayload } from '../../shared/contract';
import type { HostState, LoopState, Problem, Snapshot } from '../../shared/domain';
import type { Config } from './config/schema';
import { LoopFollower } from './loops/loop-follower';
import type { FileSource } from './sources/file-source';
import { LocalSource } from './sources/local-source';
import type { Store } from './store/store';

/** Receives every event the engine publishes. */
export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

interface HostEntry {
  readonly state: HostState;
  readonly source: FileSource | null;
}

function hostEntry(name: string, cfg: Config['hosts'][string]): HostEntry {
  if ('local' in cfg) return { state: { name, kind: 'local', state: 'connected', error: null }, source: new LocalSource(name) };
  return {
    state: {
      name,
      kind: 'ssh',
      state: 'unreachable',
      error: `Host ${name}: SSH hosts are not followed by this version of Loopdeck yet; only local hosts are.`,
    },
    source: null,
  };
}

/**
 * Follows every configured source, derives the state, and publishes what changed. One engine per
 * loaded config; the UI, `snapshot` and `watch` all drive this same object.
 */
export class Engine {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly followers: LoopFollower[] = [];
  private readonly loops = new Map<string, LoopState>();
  private readonly loopErrors = new Map<string, Problem>();
  private readonly listeners = new Set<EventListener>();
  private lastHostsJson = '';
  private lastProblemsJson = '';
  private polling: Promise<void> | null = null;

  constructor(
    config: Config,
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {
    for (const [name, host] of Object.entries(config.hosts)) this.hosts.set(name, hostEntry(name, host));
    for (const [name, loop] of Object.entries(config.loops)) {
      const source = this.hosts.get(loop.host)?.source;
      this.loops.set(name, { name, host: loop.host, cycles: [] });
      if (source) this.followers.push(new LoopFollower(name, loop, source, store));
    }
  }

  /** Listen to every published event; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Read every source once and publish what changed. Concurrent calls share one poll. */
  poll(): Promise<void> {
    this.polling ??= this.pollAll().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  /** Resolves when no poll is in flight (before closing the store under it). */
  async idle(): Promise<void> {
    await this.polling?.catch(() => undefined);
  }

  private async pollAll(): Promise<void> {
    const now = this.now();
    for (const follower of this.followers) {
      try {
        const state = await follower.poll(now);
        this.loopErrors.delete(follower.name);
        const before = this.loops.get(follower.name);
        if (JSON.stringify(before) !== JSON.stringify(state)) {
          this.loops.set(follower.name, state);
          this.emit('loop.updated', { loop: state });
        }
      } catch (err) {
        this.loopErrors.set(follower.name, { source: `loops.${follower.name}`, line: null, message: (err as Error).message });
      }
    }
    const hosts = this.hostStates();
    const hostsJson = JSON.stringify(hosts);
    if (hostsJson !== this.lastHostsJson) {
      this.lastHostsJson = hostsJson;
      this.emit('hosts.changed', { hosts });
    }
    const problems = this.problems();
    const problemsJson = JSON.stringify(problems);
    if (problemsJson !== this.lastProblemsJson) {
      this.lastProblemsJson = problemsJson;
      this.emit('problems.changed', { problems });
    }
  }

  /** Every host with its connection state. */
  hostStates(): HostState[] {
    return [...this.hosts.values()].map((h) => h.state);
  }

  /** What could not be read: malformed lines (file, line) and sources that failed. */
  problems(): Problem[] {
    return [...this.loopErrors.values(), ...this.store.problems()];
  }

  /**
   * Sources that failed, one sentence each naming the host or loop: a host not connected, or a
   * loop whose runs folder could not be read. `snapshot` exits non-zero when there are any.
   */
  failures(): string[] {
    const hosts = this.hostStates()
      .filter((h) => h.state !== 'connected')
      .map((h) => `host ${h.name} is ${h.state}${h.error ? `: ${h.error}` : ''}`);
    return [...hosts, ...[...this.loopErrors.values()].map((p) => p.message)];
  }

  /** The whole state, as `snapshot --json` prints it. */
  snapshot(): Snapshot {
    return {
      schema: 1,
      takenAt: this.now().toISOString(),
      hosts: this.hostStates(),
      loops: [...this.loops.values()],
      problems: this.problems(),
    };
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(event, payload);
  }
}
