import type { EventName, EventPayload } from '../../shared/contract';
import {
  emptySnapshot,
  type AuditMark,
  type BacklogItem,
  type Capacity,
  type Finding,
  type HostState,
  type Lesson,
  type LoopState,
  type Problem,
  type PullRequest,
  type Snapshot,
  type Task,
} from '../../shared/domain';
import { CapacityService } from './capacity/capacity-service';
import type { Config } from './config/schema';
import { DrillService } from './drills/drill-service';
import { hostEntry, hostFetch, hostState, isReachable, type HostEntry } from './hosts';
import { LedgerFollower } from './loops/ledger-follower';
import { LoopFollower } from './loops/loop-follower';
import { deriveDeadman } from './model/deadman';
import { derivePullRequests } from './model/pull-requests';
import { Notifier } from './notices/notifier';
import { NotConnectedError } from './ssh/connection';
import type { SshHost, SshHostEnv } from './ssh/ssh-host';
import type { Store } from './store/store';

/** Receives every event the engine publishes. */
export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** What the engine is built from. */
export interface EngineOptions {
  readonly store: Store;
  readonly now?: () => Date;
  /** Where SSH hosts find ~/.ssh and how their connections are tuned (tests shorten keepalive). */
  readonly ssh?: Omit<SshHostEnv, 'store'>;
  /** Emergency repeats and receipt polls run this often (ms). */
  readonly noticeTickMs?: number;
}

/** Everything read from all loops' ledgers. */
interface Ledgers {
  findings: readonly Finding[];
  backlog: readonly BacklogItem[];
  tasks: readonly Task[];
  lessons: readonly Lesson[];
  audits: readonly AuditMark[];
}

/**
 * Follows every configured source, derives the state, and publishes what changed. One engine per
 * loaded config; the UI, `snapshot` and `watch` all drive this same object.
 */
export class Engine {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly followers: LoopFollower[] = [];
  private readonly ledgerFollowers = new Map<string, LedgerFollower>();
  private ledgers: Ledgers = { findings: [], backlog: [], tasks: [], lessons: [], audits: [] };
  private prs: readonly PullRequest[] = [];
  private capacityNow: readonly Capacity[] = [];
  private tickTimer: NodeJS.Timeout | null = null;
  private wake: () => void = () => undefined;
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
  /** The inference fleet's capacity, polled through the hosts. */
  readonly capacity: CapacityService;
  /** Notices raised once per stable key, delivered to the console and Pushover. */
  readonly notifier: Notifier;

  constructor(
    private readonly config: Config,
    private readonly options: EngineOptions,
  ) {
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    for (const [name, host] of Object.entries(config.hosts)) this.hosts.set(name, hostEntry(name, host, this.store, options.ssh));
    for (const [name, loop] of Object.entries(config.loops)) {
      const source = this.hosts.get(loop.host)?.source;
      this.loops.set(name, { name, host: loop.host, cycles: [], deadman: null });
      if (!source) continue;
      this.followers.push(new LoopFollower(name, loop, source, this.store));
      this.ledgerFollowers.set(name, new LedgerFollower(name, loop, source, this.store));
    }
    this.capacity = new CapacityService({
      proxies: config.proxies,
      store: this.store,
      now: this.now,
      getFor: (host) => {
        const h = this.hosts.get(host);
        return isReachable(h) ? hostFetch(h) : null;
      },
      onChange: (capacity) => {
        this.capacityNow = capacity;
        this.emit('capacity.changed', { capacity });
      },
    });
    this.notifier = new Notifier({ store: this.store, notify: config.notify, now: this.now, emit: (e, p) => this.emit(e, p) });
    this.drills = new DrillService({
      store: this.store,
      drills: config.drills,
      now: this.now,
      hostFor: (host) => {
        const h = this.hosts.get(host);
        return isReachable(h) && h.source && h.shell ? { shell: h.shell, source: h.source } : null;
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
      h.ssh.connection.on('status', (status: { state: string }) => {
        this.publishHosts();
        // A host that just (re)connected has news waiting: read it now, not on the next tick.
        if (status.state === 'connected') this.wake();
      });
      h.ssh.connection.start();
    }
    if (Object.keys(this.config.proxies).length > 0) this.capacity.start();
    const tick = (): void => {
      void this.notifier.tick().finally(() => {
        if (this.started) this.tickTimer = setTimeout(tick, this.options.noticeTickMs ?? 5000);
      });
    };
    this.tickTimer = setTimeout(tick, this.options.noticeTickMs ?? 5000);
  }

  /**
   * Ask to be woken when a watched folder changes (a loop's runs folder and hot cycles), so the
   * next poll starts at once instead of on the next tick.
   */
  onWake(wake: () => void): void {
    this.wake = wake;
  }

  private updateWatches(): void {
    const byHost = new Map<string, Set<string>>();
    for (const f of this.followers) {
      if (!this.isReachable(f.host)) continue;
      const dirs = byHost.get(f.host) ?? new Set<string>();
      for (const d of f.hotDirs()) dirs.add(d);
      byHost.set(f.host, dirs);
    }
    for (const [name, h] of this.hosts) h.source?.watch?.([...(byHost.get(name) ?? [])], () => this.wake());
  }

  /** Close every connection (after the poll in flight, if any). */
  async close(): Promise<void> {
    this.started = false;
    for (const h of this.hosts.values()) h.source?.unwatch?.();
    if (this.tickTimer) clearTimeout(this.tickTimer);
    this.capacity.stop();
    await this.idle();
    await this.notifier.close();
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
    let ledgersChanged = false;
    for (const follower of this.followers) {
      const loopConfig = this.config.loops[follower.name];
      if (!loopConfig) continue;
      if (!this.isReachable(follower.host)) {
        this.refreshDeadman(follower.name, now);
        continue;
      }
      try {
        const read = await follower.poll(now);
        const state: LoopState = {
          ...read,
          deadman: deriveDeadman({
            schedule: loopConfig.schedule,
            timezone: loopConfig.timezone,
            graceMs: loopConfig.grace,
            capMs: loopConfig.cap,
            cycles: read.cycles,
            now,
          }),
        };
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
      // The ledgers are read even when the runs folder could not be, and apart from it.
      try {
        ledgersChanged = (await this.ledgerFollowers.get(follower.name)?.poll(now)) || ledgersChanged;
        this.loopErrors.delete(`${follower.name} ledgers`);
      } catch (err) {
        if (err instanceof NotConnectedError || !this.isReachable(follower.host)) continue;
        this.loopErrors.set(`${follower.name} ledgers`, { source: `loops.${follower.name}`, line: null, message: (err as Error).message });
      }
    }
    if (ledgersChanged) this.publishLedgers();
    this.updateWatches();
    this.publishPrs(now);
    this.publishHosts();
    await this.drills.poll().then(
      () => this.loopErrors.delete('drills'),
      (err: unknown) => {
        this.loopErrors.set('drills', { source: 'drills', line: null, message: `Following drills failed: ${(err as Error).message}` });
      },
    );
    // Until every follower has caught up with its backlog, what it read so far is history, not news.
    const caughtUp = this.followers.every((f) => !f.behind) && [...this.ledgerFollowers.values()].every((f) => !f.behind);
    this.notifier.update(caughtUp, {
      loops: [...this.loops.values()],
      findings: this.ledgers.findings,
      prs: this.prs,
      hosts: this.hostStates(),
      capacity: this.capacityNow,
      drillRuns: this.drills.runs(),
    });
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
    return isReachable(this.hosts.get(host));
  }

  /** The dead-man runs on the clock even while the host is unreachable: a silent loop is news. */
  private refreshDeadman(loop: string, now: Date): void {
    const cfg = this.config.loops[loop];
    const before = this.loops.get(loop);
    if (!cfg || !before) return;
    const deadman = deriveDeadman({ schedule: cfg.schedule, timezone: cfg.timezone, graceMs: cfg.grace, capMs: cfg.cap, cycles: before.cycles, now });
    if (JSON.stringify(deadman) === JSON.stringify(before.deadman)) return;
    const state = { ...before, deadman };
    this.loops.set(loop, state);
    this.emit('loop.updated', { loop: state });
  }

  private publishLedgers(): void {
    const all = [...this.ledgerFollowers.values()].map((f) => f.ledgers);
    this.ledgers = {
      findings: all.flatMap((l) => l.findings),
      backlog: all.flatMap((l) => l.backlog),
      tasks: all.flatMap((l) => l.tasks),
      lessons: all.flatMap((l) => l.lessons),
      audits: all.flatMap((l) => l.audits),
    };
    this.emit('ledgers.changed', this.ledgers);
  }

  private lastPrsJson = '[]';

  private publishPrs(now: Date): void {
    const prs = [...this.loops.values()].flatMap((loop) =>
      derivePullRequests({ loop: loop.name, cycles: loop.cycles, deliverRecord: this.ledgerFollowers.get(loop.name)?.ledgers.deliverRecord ?? null, now }),
    );
    const order = { ready: 0, incomplete: 1, pending: 2 } as const;
    prs.sort((a, b) => order[a.status] - order[b.status] || (b.since ?? '').localeCompare(a.since ?? ''));
    const json = JSON.stringify(prs);
    if (json === this.lastPrsJson) return;
    this.lastPrsJson = json;
    this.prs = prs;
    this.emit('prs.changed', { prs });
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
    return [...this.loopErrors.values(), ...this.notifier.problems(), ...this.store.problems()];
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
      loops: [...this.loops.values()],
      problems: this.problems(),
      ...this.ledgers,
      prs: this.prs,
      capacity: this.capacityNow,
      notices: this.notifier.list(),
      lastReviewedAt: this.notifier.lastReviewedAt(),
      drills: this.drills.list(),
      drillRuns: this.drills.runs(),
    };
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(event, payload);
  }
}
