import type { EventName, EventPayload } from '../../shared/contract';
import { emptySnapshot, type HostState, type LoopState, type Problem, type Snapshot } from '../../shared/domain';
import type { Config } from './config/schema';
import { LoopFollower } from './loops/loop-follower';
import type { FileSource } from './sources/file-source';
import { DrillService } from './drills/drill-service';
import { LocalShell, type HostShell } from './drills/host-shell';
import { LocalSource } from './sources/local-source';
import { SshSource } from './sources/ssh-source';
import { NotConnectedError } from './ssh/connection';
import { SshHost, type SshHostEnv } from './ssh/ssh-host';
import type { Store } from './store/store';

/** Receives every event the engine publishes. */
export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

interface HostEntry {
  readonly name: string;
  readonly source: FileSource | null;
  readonly shell: HostShell | null;
  readonly ssh: SshHost | null;
  /** Why the host cannot be used at all (e.g. its ssh spec does not resolve). */
  readonly error: string | null;
}

function hostEntry(name: string, cfg: Config['hosts'][string], env: EngineOptions): HostEntry {
  if ('local' in cfg) return { name, source: new LocalSource(name), shell: new LocalShell(), ssh: null, error: null };
  try {
    const ssh = new SshHost(name, cfg, { store: env.store, ...env.ssh });
    return { name, source: new SshSource(name, ssh.connection), shell: ssh.connection, ssh, error: null };
  } catch (err) {
    return { name, source: null, shell: null, ssh: null, error: `Host ${name} (hosts.${name}.ssh): ${(err as Error).message}` };
  }
}

function hostState(h: HostEntry): HostState {
  const base = { name: h.name, since: null, attempt: 0, fingerprint: null, needsPassphrase: null } as const;
  if (h.error) return { ...base, kind: 'ssh', state: 'unreachable', error: h.error };
  if (!h.ssh) return { ...base, kind: 'local', state: 'connected', error: null };
  const s = h.ssh.connection.status;
  return {
    name: h.name,
    kind: 'ssh',
    state: s.state,
    error: s.error,
    since: s.since,
    attempt: s.attempt,
    fingerprint: s.presentedKey?.fingerprint ?? null,
    needsPassphrase: h.ssh.needsPassphrase,
  };
}

/** What the engine is built from. */
export interface EngineOptions {
  readonly store: Store;
  readonly now?: () => Date;
  /** Where SSH hosts find ~/.ssh and how their connections are tuned (tests shorten keepalive). */
  readonly ssh?: Omit<SshHostEnv, 'store'>;
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

  private readonly store: Store;
  private readonly now: () => Date;
  private started = false;
  /** Drills: the only way a command runs on a host, and only one declared in the config. */
  readonly drills: DrillService;

  constructor(config: Config, options: EngineOptions) {
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    for (const [name, host] of Object.entries(config.hosts)) this.hosts.set(name, hostEntry(name, host, options));
    for (const [name, loop] of Object.entries(config.loops)) {
      const source = this.hosts.get(loop.host)?.source;
      this.loops.set(name, { name, host: loop.host, cycles: [], deadman: null });
      if (source) this.followers.push(new LoopFollower(name, loop, source, this.store));
    }
    this.drills = new DrillService({
      store: this.store,
      drills: config.drills,
      now: this.now,
      hostFor: (host) => {
        const h = this.hosts.get(host);
        return h && h.source && h.shell && this.isReachable(host) ? { shell: h.shell, source: h.source } : null;
      },
      runningPhaseOn: (host) => this.runningPhaseOn(host),
      onRunsChanged: (runs) => this.emit('drills.changed', { runs }),
      onOutput: (runId, from, text) => this.emit('drill.output', { runId, from, text }),
    });
  }

  /** A running phase of a loop on `host`, described for a person, or null. */
  private runningPhaseOn(host: string): string | null {
    for (const loop of this.loops.values()) {
      if (loop.host !== host) continue;
      for (const cycle of loop.cycles) {
        const phase = cycle.phases.find((p) => p.status === 'running');
        if (phase) return `${loop.name} ${cycle.date} ${phase.name}`;
      }
    }
    return null;
  }

  /** Open the SSH connections; their state changes are published as they happen. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const h of this.hosts.values()) {
      if (!h.ssh) continue;
      h.ssh.connection.on('status', () => this.publishHosts());
      h.ssh.connection.start();
    }
  }

  /** Close every connection (after the poll in flight, if any). */
  async close(): Promise<void> {
    await this.idle();
    for (const h of this.hosts.values()) h.ssh?.connection.close();
  }

  /** Resolves when every SSH host is connected, or has reached a state only the operator can fix, or after `timeoutMs`. */
  async settle(timeoutMs: number): Promise<void> {
    await Promise.all(
      [...this.hosts.values()].map((h) => h.ssh?.connection.ready(timeoutMs).catch(() => undefined)),
    );
  }

  /** The SSH host named `name`, or an error naming what is wrong. */
  sshHost(name: string): SshHost {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`No host named ${name} in the config (hosts: ${[...this.hosts.keys()].join(', ') || 'none'}).`);
    if (!h.ssh) throw new Error(h.error ?? `Host ${name} is local: it has no host key to trust.`);
    return h.ssh;
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
      if (!this.isReachable(follower.host)) continue;
      try {
        const state = await follower.poll(now);
        this.loopErrors.delete(follower.name);
        const before = this.loops.get(follower.name);
        if (JSON.stringify(before) !== JSON.stringify(state)) {
          this.loops.set(follower.name, state);
          this.emit('loop.updated', { loop: state });
        }
      } catch (err) {
        // A link that dropped mid-poll is the host's state to report, not the loop's: the next
        // poll after the reconnect resumes from the committed offsets.
        if (err instanceof NotConnectedError || !this.isReachable(follower.host)) continue;
        this.loopErrors.set(follower.name, { source: `loops.${follower.name}`, line: null, message: (err as Error).message });
      }
    }
    this.publishHosts();
    await this.drills.poll().then(
      () => this.loopErrors.delete('drills'),
      (err: unknown) => {
        this.loopErrors.set('drills', { source: 'drills', line: null, message: `Following drills failed: ${(err as Error).message}` });
      },
    );
    const problems = this.problems();
    const problemsJson = JSON.stringify(problems);
    if (problemsJson !== this.lastProblemsJson) {
      this.lastProblemsJson = problemsJson;
      this.emit('problems.changed', { problems });
    }
  }

  /** Every host with its connection state. */
  hostStates(): HostState[] {
    return [...this.hosts.values()].map(hostState);
  }

  private isReachable(host: string): boolean {
    const h = this.hosts.get(host);
    return h !== undefined && h.source !== null && (h.ssh === null || h.ssh.connection.status.state === 'connected');
  }

  private publishHosts(): void {
    const hosts = this.hostStates();
    const hostsJson = JSON.stringify(hosts);
    if (hostsJson !== this.lastHostsJson) {
      this.lastHostsJson = hostsJson;
      this.emit('hosts.changed', { hosts });
    }
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
      ...emptySnapshot(this.now().toISOString()),
      hosts: this.hostStates(),
      drills: this.drills.list(),
      drillRuns: this.drills.runs(),
      loops: [...this.loops.values()],
      problems: this.problems(),
    };
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(event, payload);
  }
}
