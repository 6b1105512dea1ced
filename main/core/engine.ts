import type { EventName, EventPayload } from '../../shared/contract';
import { type Capacity, type Problem, type Snapshot } from '../../shared/domain';
import type { CapacityService } from './capacity/capacity-service';
import type { Config } from './config/schema';
import type { DrillService } from './drills/drill-service';
import { HostTable } from './hosts/host-table';
import { pollSideBySide, type PollChanges } from './engine/poll-changes';
import { PollTrace } from './engine/poll-trace';
import { LoopReads } from './engine/loop-reads';
import { UnreadLoops } from './engine/unread-loops';
import { LoopStates } from './engine/loop-states';
import type { Summary } from '../../shared/ledger-slice';
import { LedgerBook } from './ledgers/ledger-book';
import { LedgerFollower } from './ledgers/ledger-follower';
import { PhaseCauses } from './engine/phase-causes';
import { LoopFollower } from './loops/loop-follower';
import { ProblemBoard } from './engine/problem-board';
import { WatchScope } from './engine/watch-scope';
import { PrTracker } from './prs/pr-tracker';
import { derivePrs } from './engine/derive-prs';
import type { GithubPrs } from './prs/github/github-prs';
import { NoticeGate } from './notices/notice-gate';
import type { Notifier } from './notices/notifier';
import type { Store } from './store/store';
import type { LiveState } from './state/live-state';
import type { EngineOptions, EventListener, RunOptions } from './engine/engine-options';
import { EngineSchedule } from './engine/engine-schedule';
import { ReviewMark } from './notices/review-mark';
import type { TranscriptService } from './transcripts/transcript-service';
import type { PreflightService } from './preflight/preflight-service';
import { engineServices, type DeskFacade } from './engine/engine-services';
import type { NightCompareService } from './compare/night-compare-service';
import { TrendNights } from './nights/trend-nights';
import type { ProblemKey } from './state/problem-key';
import { Disposables } from './state/disposables';
import { listenOnBus } from './engine/bus-listeners';
import { watchedDirs } from './engine/watched-dirs';
import { ContractWatch } from './engine/contract-watch';
import { liveStateOf, snapshotOf, summaryOf, type StateParts } from './engine/state-views';
import { updateNotices } from './engine/notice-update';
import { EventBus } from './state/event-bus';
import { NoticeTick } from './engine/notice-tick';
import { PollQueue } from './engine/poll-queue';
import { RunnerLoad } from './engine/runner-load';
import { ContentionBook } from './loops/contention';
import { messageOf } from '../../shared/errors';
import { MaintenanceSchedule } from './maintenance/maintenance-schedule';
import type { MaintenanceWindows } from './maintenance/maintenance-windows';

export type { EngineOptions, EventListener, RunOptions } from './engine/engine-options';

/**
 * Follows every configured source, derives the state, and publishes what changed. One engine per
 * loaded config; the UI, `snapshot` and `watch` all drive this same object.
 *
 * Work is proportional to change: a poll reads only files whose stat moved, derives only the
 * cycles they feed (and those the clock can still change), the dead-man from the clock and the
 * newest cycles, the PRs only when a cycle's PR evidence or the deliver record changed, notices
 * only from what changed; and it publishes deltas — one loop's changed cycles, one ledger's
 * changed rows — never a whole history.
 */
export class Engine {
  private readonly followers: LoopFollower[] = [];
  private readonly ledgerFollowers = new Map<string, LedgerFollower>();
  private readonly ledgers = new LedgerBook(() => this.ledgerFollowers.keys());
  private readonly prTracker = new PrTracker();
  /** When the notices must be derived again (see NoticeGate). */
  private readonly noticeGate = new NoticeGate();
  private readonly unread: UnreadLoops;
  private readonly trace = PollTrace.fromEnv(); // `LOOPDECK_POLL_TRACE=FILE`: each poll's reads, and its reports' waits
  /** The hosts' watchers, and how much of each host a poll reads. */
  private readonly watches = new WatchScope(() => [...this.hosts.all()].map((h) => [h.name, h.source] as const), (host) => (this.trace?.reported(host), this.schedule.wake(host)));
  /** The latest capacity polled. */
  private readonly capacityNow: () => readonly Capacity[];
  /** The notices' periodic work, with the digest's and the maintenance list's (engine-services.ts). */
  private readonly noticeTicks: { tick(): Promise<void> };
  /** Its own schedule once `run` (a watcher's wake goes straight to it), and whether its polls are quiet. */
  private readonly schedule = new EngineSchedule({
    poll: (reason) => this.poll({ reason }),
    published: () => this.bus.published,
    settled: () => !this.drills.inFlight() && !this.nights.pending && this.watches.watchesAll(this.followers.filter((f) => this.hosts.reachable(f.host)).map((f) => f.host)),
  });
  /** The review watermark: what is new on the Review is what came after it. */
  private readonly reviewMark: ReviewMark;
  /** Each loop's cycles and dead-man as last published. */
  private readonly loops: LoopStates;
  /** One loop's read in a poll. */
  private readonly reads: LoopReads;
  /** Where the loops broke their manual's rules. */
  private readonly contract: ContractWatch;
  /** Sources that failed: a runs folder, a loop's ledgers, the drills. */
  private readonly board: ProblemBoard;
  /** Every published event, the engine's and its services', and the signals it listens for. */
  private readonly bus: EventBus;
  /** What `close` undoes, newest first: added as each part starts. */
  private readonly teardown = new Disposables();
  /** Phase transcripts: ranges, search, and which open ones changed. */
  readonly transcripts: TranscriptService;
  /** One poll at a time; a call during one gets one more after it (see PollQueue). */
  private readonly polls = new PollQueue((reason) => this.pollAll(reason).then(() => this.options.afterPoll?.()));
  private readonly store: Store;
  private readonly now: () => Date;
  private started = false;
  private connecting = false;
  /** The configured hosts: how each is reached, and its state. */
  readonly hosts: HostTable;
  /** Who bad phases are put down to, from what Loopdeck watched (a cause claims only that). */
  private readonly causes: PhaseCauses;
  /** The notices' periodic work, once started (each poll offers it its wake: NoticeTick.ride). */
  private ticks: NoticeTick | null = null;
  /** The runner hosts' load while their phases run, sampled with the polls' own requests. */
  private readonly load: RunnerLoad;
  /** Drills: the only way a command runs on a host, and only one declared in the config. */
  readonly drills: DrillService;
  /** The inference fleet's capacity, polled through the hosts. */
  readonly capacity: CapacityService;
  /** Notices raised once per stable key, delivered to the console and Pushover. */
  readonly notifier: Notifier;
  /** GitHub's view of the open PRs (state, checks, the body's Next section); null without a `github:` section. */
  readonly github: GithubPrs | null;
  /** The merge desk: every open PR of every loop as GitHub has it, its Next steps ticked, the console's merges. */
  readonly desk: DeskFacade;
  /** Pre-flight before each fire: what tonight's cycle needs, checked at the loop's lead. */
  readonly preflight: PreflightService;
  /** Each loop's nights kept for Trends, past the followed window and across restarts. */
  readonly nights: TrendNights;
  /** Night against night: two nights of a loop side by side. */
  readonly compare: NightCompareService;
  /** The maintenance windows of the config and the console (added and ended there). */
  readonly maintenance: MaintenanceWindows;

  constructor(
    private readonly config: Config,
    private readonly options: EngineOptions,
  ) {
    this.store = options.store;
    this.bus = options.bus ?? new EventBus();
    listenOnBus(this.bus, this.teardown, {
      noticeGate: this.noticeGate,
      wake: () => this.schedule.wake(),
      polling: () => this.polls.busy,
      setProblem: (key, problem) => this.setProblem(key, problem),
      reattribute: () => this.followers.forEach((f) => f.reattribute()),
      forgetDeadmen: () => this.loops.forgetDeadmen(),
    });
    this.board = new ProblemBoard(this.store, () => this.notifier.problems(), (problems) => this.emit('problems.changed', { problems }));
    this.now = options.now ?? (() => new Date());
    this.hosts = new HostTable(config.hosts, this.store, options.ssh, options.tapSource);
    this.causes = new PhaseCauses(this.store, config, (uses, from, to) => this.capacity.fleetIn(uses, from, to));
    const contention = new ContentionBook(this.store);
    for (const [name, loop] of Object.entries(config.loops)) {
      const source = this.hosts.get(loop.host)?.source;
      if (!source) continue;
      this.followers.push(new LoopFollower(name, loop, source, this.store, (phase, now) => this.causes.of(loop, phase, now), (date, phase) => contention.of(name, date, phase)));
      this.ledgerFollowers.set(name, new LedgerFollower(name, loop, source, this.store));
    }
    this.unread = new UnreadLoops(this.followers.map((f) => f.name));
    this.load = new RunnerLoad({ loops: this.followers, book: contention, sourceOf: (host) => this.hosts.get(host)?.source, reachable: (host) => this.hosts.reachable(host), now: this.now });
    this.nights = new TrendNights({
      store: this.store,
      config,
      now: this.now,
      backlogOf: (loop) => this.ledgers.get(loop)?.backlog ?? [],
      causeOf: (name, phase, now) => this.causes.ofLoop(name, phase, now),
      causesSettled: () => this.capacity.windowsSettled(),
    });
    const maintenance = new MaintenanceSchedule(config.maintenance ?? [], config);
    this.loops = new LoopStates({
      config,
      maintenance,
      unread: this.unread,
      onChanged: (payload, news) => this.loopChanged(payload, news),
      onCycles: (loop, upserted, removed) => this.prTracker.noteCycles(loop, upserted, removed),
      backlogOf: (loop) => this.ledgers.get(loop)?.backlog ?? [],
      commitsOf: (loop) => this.contract.entriesOf(loop),
    });
    this.reviewMark = new ReviewMark(this.store, this.now);
    this.contract = new ContractWatch({ config, store: this.store, sourceOf: (host) => this.hosts.get(host)?.source, shellOf: (host) => this.hosts.get(host)?.shell, loops: this.loops, ledgers: this.ledgers, ledgerFollowers: this.ledgerFollowers, prs: () => this.prTracker.prs, ...(options.githubEnv ? { githubEnv: options.githubEnv } : {}), bus: this.bus, wake: () => this.schedule.wake(), teardown: this.teardown, emit: (e, p) => this.emit(e, p) });
    const { hosts, unread, loops, ledgerFollowers, ledgers, prTracker, nights, board } = this;
    this.reads = new LoopReads({ config, hosts, unread, errors: board.errors, loops, ledgerFollowers, ledgers, prTracker, nights, contract: this.contract, emit: (e, p) => this.emit(e, p), failed: (k, e, p) => board.failed(k, e, p) });
    const { store, now, reviewMark, bus } = this;
    const githubEnv = options.githubEnv ? { githubEnv: options.githubEnv } : {};
    ({ capacity: this.capacity, capacityNow: this.capacityNow, github: this.github, transcripts: this.transcripts, notifier: this.notifier, drills: this.drills, preflight: this.preflight, desk: this.desk, compare: this.compare, maintenance: this.maintenance, noticeTicks: this.noticeTicks } = engineServices({
      ...{ config, store, now, hosts, prTracker, reviewMark, bus, maintenance, ...githubEnv },
      loops: () => this.loops.all(),
      snapshot: () => this.snapshot(),
      deliverRecord: (loop) => this.ledgerFollowers.get(loop)?.ledgers.deliverRecord ?? null,
      caughtUp: () => !this.behind(),
      nights: {
        ledgersOf: (loop) => this.ledgers.get(loop) ?? null,
        keptStatus: (loop, date) => this.nights.rows.get(loop, [date])[0]?.status ?? null,
        causeOf: (loop, phase, now) => this.causes.ofLoop(loop, phase, now),
      },
    }));
    // Undone last, in this order: the watchers a poll started, the poll in flight, the notices, the connections.
    this.teardown.add(() => [...this.hosts.all()].forEach((h) => h.ssh?.connection.close()));
    this.teardown.add(() => this.load.flush());
    this.teardown.add(() => this.notifier.close());
    this.teardown.add(() => this.desk.stop());
    this.teardown.add(() => this.idle());
    this.teardown.add(() => [...this.hosts.all()].forEach((h) => h.source?.unwatch?.()));
  }

  /** Open the SSH connections (once); their state changes are published as they happen. `start` does it too. */
  connect(): void {
    if (this.connecting) return;
    this.connecting = true;
    this.hosts.connect((state) => {
      this.publishHosts();
      // A host that just (re)connected has news waiting: read it now, not on the next tick.
      if (state === 'connected') this.schedule.wake();
    });
  }

  /** Connect, and start the services' own schedules: the fleet's polls, GitHub's rounds, the desk, the notice tick. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.connect();
    if (Object.keys(this.config.proxies).length > 0) this.capacity.start();
    this.teardown.add(() => this.capacity.stop());
    const github = this.github;
    github?.start();
    this.teardown.add(async () => github?.stop());
    this.desk.start();
    const ticks = new NoticeTick(this.noticeTicks, this.board, this.options.noticeTickMs ?? 5000);
    ticks.start();
    this.ticks = ticks;
    this.teardown.add(() => {
      this.started = false;
      this.ticks = null;
      return ticks.stop();
    });
  }

  /** Poll on its own from now on (EngineSchedule): on a timer, and when a watcher sees a change or a host (re)connects. */
  run(options: RunOptions = {}): void {
    if (!this.schedule.run(options)) return;
    this.preflight.start();
    this.teardown.add(() => this.preflight.stop());
    this.teardown.add(() => this.schedule.stop());
  }

  private updateWatches(): void {
    this.watches.update(watchedDirs(this.followers, (h) => this.hosts.reachable(h), (loop) => [...(this.ledgerFollowers.get(loop)?.watchDirs() ?? []), ...this.contract.watchDirs(loop)]));
  }

  /** Stop what was started, newest first, and close every connection (after the poll in flight, if any). */
  close(): Promise<void> {
    return this.teardown.dispose();
  }

  /** Listen to every published event; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    return this.bus.subscribe(listener);
  }

  /**
   * Read every source once and publish what changed. `reason` says who asked: a `wake` (a watcher)
   * or the `timer`; then hosts whose watchers cover every folder it would read are read only where
   * the watchers saw a change. Without one (a person, a test, `snapshot`) everything is read. A call
   * while a poll runs gets one more poll after it (PollQueue).
   */
  poll(options: { reason?: 'wake' | 'timer' } = {}): Promise<void> {
    return this.polls.poll(options.reason ?? null);
  }

  /** Resolves when no poll is in flight or asked for (before closing the store under it). */
  idle(): Promise<void> {
    return this.polls.idle();
  }

  private async pollAll(reason: 'wake' | 'timer' | null): Promise<void> {
    const now = this.now();
    this.schedule.began();
    this.causes.tick(now.getTime());
    const scope = this.watches.begin(reason);
    // Hosts with a running phase are asked for their load with this poll's first request to them.
    this.load.ask(now.getTime());
    // Hosts side by side, each host's loops one after another (one shell session each): a first
    // read of a hundred hosts takes the slowest host's time, not the sum of theirs.
    // A loop with nothing due is left out: its host watched and quiet, none of its clocks reached (LoopReads.idle).
    const due = this.followers.filter((f) => !this.reads.idle(f, scope(f.host), now.getTime()));
    const read = (f: LoopFollower, part: PollChanges): Promise<boolean> => this.reads.poll(f, scope(f.host), now, part);
    const { changed, any } = await (this.trace?.poll(reason, due, (f) => f.host, read) ?? pollSideBySide(due, (f) => f.host, read));
    // The folders to watch move with a cycle's listing, and a watcher that ended is seen by the
    // poll its end woke or by the timer's: a woken poll that only read files needs neither.
    if (reason !== 'wake' || any) this.updateWatches();
    // The PRs of the loops whose PR evidence changed, published when the list did.
    if (this.prTracker.pending) {
      const prs = derivePrs(this.prTracker, this.loops.all(), (loop) => this.ledgerFollowers.get(loop)?.ledgers.deliverRecord ?? null, now);
      this.github?.track(this.prTracker.fromEvidence);
      if (prs) this.emit('prs.changed', { prs });
    }
    this.contract.publish(now);
    // Kept nights: those this poll's cycles wrote, and those whose count of breaches moved.
    this.nights.noteContract(this.contract.list(), (loop) => this.loops.get(loop)?.cycles);
    const nights = this.nights.takeWritten();
    if (nights.length > 0) this.emit('nights.changed', { upserted: nights });
    if (this.nights.pending) this.schedule.wake();
    // A host's state moves with its connection, whose status events publish it at once: a poll a
    // watcher woke (up to 20 a second on a busy transcript) need not compare the hosts again.
    const hostsChanged = reason === 'wake' ? false : this.publishHosts();
    await this.drills.poll().then(
      () => this.board.errors.set('drills', null),
      (err: unknown) => this.board.failed('drills', err, () => ({ source: 'drills', line: null, message: `Following drills failed: ${messageOf(err)}` })),
    );
    // Until every follower has caught up with its backlog, what it read so far is history, not news.
    for (const f of this.followers) if (f.behind) this.watches.readAgain(f.host);
    for (const [name, f] of this.ledgerFollowers) if (f.behind) this.watches.readAgain(this.config.loops[name]?.host ?? '');
    const caughtUp = !this.behind();
    updateNotices({ ...this.parts(), notifier: this.notifier, noticeGate: this.noticeGate, budget: () => this.nights.budget.current() }, now, changed, hostsChanged, caughtUp);
    // A full data folder has room again once a write succeeds, and a poll with nothing new makes none.
    this.store.probeRoom();
    this.board.publishIfChanged();
    // The open transcripts that moved: one event each per poll, however many lines it read.
    for (const c of this.transcripts.changed()) this.emit('transcript.changed', c);
    // A loop that entered its lead before its fire (only once `run`: a snapshot makes no pre-flight).
    this.preflight.look();
    // A poll asked for directly (a one-shot verb, not the scheduler) waits for the fleet's history
    // of the bad phases' windows it asked Prometheus for: the next poll then puts them down.
    if (reason === null && this.capacity.windowsPending) await this.capacity.windowsSettled();
    this.schedule.ended(reason, caughtUp);
    // Awake anyway: the notices' tick, when it is nearly due, runs in this wake, not a wake of its own.
    this.ticks?.ride();
  }

  /** Some follower left a backlog unread in its last poll (a large file is read over several polls), or was never read (UnreadLoops). */
  behind(): boolean {
    const due = (f: LoopFollower): boolean => f.behind || this.unread.pending(f.name, this.hosts.get(f.host));
    return this.followers.some(due) || [...this.ledgerFollowers.values()].some((f) => f.behind) || this.capacity.windowsPending || this.followers.some((f) => f.reattributing);
  }

  /** Publish the hosts when their states changed (a small slice: compared whole); true when they did. */
  private publishHosts(): boolean {
    const hosts = this.hosts.changed();
    if (hosts) this.causes.noteHosts(hosts, this.now().getTime());
    if (hosts) this.emit('hosts.changed', { hosts });
    return hosts !== null;
  }

  /** The live state, without copying findings or building a snapshot: what /metrics counts and the tray shows. */
  liveState(): LiveState {
    return liveStateOf(this.parts());
  }

  /** Record (or clear, with null) a problem of a part beside the engine, e.g. the /metrics exporter's port. */
  private setProblem(key: ProblemKey, problem: Problem | null): void {
    this.board.errors.set(key, problem);
    this.board.publishIfChanged();
  }

  /** What could not be read: malformed lines (file, line) and sources that failed. */
  problems(): Problem[] {
    return this.board.list();
  }

  /** Sources that failed (a host not connected, a runs folder unreadable), a sentence each naming it; `snapshot` exits 1 on any. */
  failures(): string[] {
    return [...this.hosts.failures(), ...this.board.errors.list().map((p) => p.message)];
  }

  /** The whole state, as `snapshot --json` prints it. */
  snapshot(): Snapshot {
    return snapshotOf(this.parts());
  }

  /** The state without the ledger rows (their counts instead): what the console paints first. */
  summary(): Summary {
    return summaryOf(this.parts());
  }

  /** What the read views are made of (engine/state-views.ts). */
  private parts(): StateParts {
    const { now, loops, ledgers, prTracker, hosts, board, contract, capacityNow, notifier, reviewMark, drills, preflight, desk, maintenance } = this;
    return { now, loops, ledgers, prTracker, hosts, board, contract, capacityNow, notifier, reviewMark, drills, preflight, desk, maintenance };
  }

  /** Mark the review done now: the console gets the notices with the new watermark. */
  markReviewed(by: string): string {
    const at = this.reviewMark.mark(by);
    this.notifier.reviewed();
    return at;
  }

  /** A loop's cycles or dead-man moved: publish it (a load sample as no news), and keep its nights for Trends. */
  private loopChanged(payload: EventPayload<'loop.changed'>, news: boolean): void {
    this.bus.publish('loop.changed', payload, news);
    this.nights.note(payload.loop, payload.upserted);
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    this.bus.publish(event, payload);
  }
}

