import type { Capacity, LoopState, Snapshot } from '../../../shared/domain';
import { buildReviewSummary } from '../../../shared/review-summary';
import { DigestService } from '../notices/digest/digest-service';
import { CapacityService } from '../capacity/capacity-service';
import type { Config } from '../config/schema';
import { DrillService } from '../drills/drill-service';
import { runningPhaseOn } from '../loops/phase-status';
import type { DeliverRecord } from '../prs/pull-requests';
import { GithubPrs } from '../prs/github/github-prs';
import { storeKeep } from '../prs/github/store-keep';
import type { PrTracker } from '../prs/pr-tracker';
import { Notifier } from '../notices/notifier';
import type { ReviewMark } from '../notices/review-mark';
import { PreflightService } from '../preflight/preflight-service';
import { DeskService } from '../prs/desk-service';
import { GithubDesk } from '../prs/github/desk-reader';
import type { Store } from '../store/store';
import type { EventBus } from '../state/event-bus';
import { TranscriptService } from '../transcripts/transcript-service';
import { hostFetch, isReachable, type HostTable } from '../hosts/host-table';
import { NightCompareService, type NightCompareServiceOptions } from '../compare/night-compare-service';
import type { MaintenanceSchedule } from '../maintenance/maintenance-schedule';
import { MaintenanceWindows } from '../maintenance/maintenance-windows';

// The engine's services, each wired to what it reads of the engine; what they have to tell, they
// publish on the bus (the engine listens there for what its next derive depends on). Built here so
// the engine itself keeps to following, deriving and publishing.

/** What the services are given of the engine. */
export interface EngineWiring {
  readonly config: Config;
  readonly store: Store;
  readonly now: () => Date;
  readonly hosts: HostTable;
  readonly githubEnv?: NodeJS.ProcessEnv;
  readonly prTracker: PrTracker;
  readonly reviewMark: ReviewMark;
  /** The loops' state as derived so far. */
  readonly loops: () => Iterable<LoopState>;
  /** The whole state (what the morning digest's Review is made of). */
  readonly snapshot: () => Snapshot;
  readonly deliverRecord: (loop: string) => DeliverRecord | null;
  /** Every follower caught up with its backlog. */
  readonly caughtUp: () => boolean;
  /** Where the services publish what changed, and signal what the engine alone hears. */
  readonly bus: EventBus;
  /** What night against night reads of the engine besides the above: the ledgers, the kept nights, the causes. */
  readonly nights?: Pick<NightCompareServiceOptions, 'ledgersOf' | 'keptStatus' | 'causeOf'>;
  /** The maintenance windows (`maintenance:` and the console's): the notices, the pre-flight and the fleet's rows read them. */
  readonly maintenance: MaintenanceSchedule;
}

/** The engine's services. */
export interface EngineServices {
  readonly capacity: CapacityService;
  /** The latest capacity polled (what the pre-flight and the notices read). */
  readonly capacityNow: () => readonly Capacity[];
  readonly github: GithubPrs | null;
  readonly transcripts: TranscriptService;
  readonly notifier: Notifier;
  readonly drills: DrillService;
  readonly preflight: PreflightService;
  readonly desk: DeskFacade;
  /** Night against night: two nights of a loop side by side. */
  readonly compare: NightCompareService;
  /** The maintenance windows, the console's added and ended. */
  readonly maintenance: MaintenanceWindows;
  /**
   * The notices' periodic work (engine/notice-tick.ts runs it once started), then what is asked on
   * the same tick with no timer of its own: the maintenance windows' beginnings and ends (for the
   * list the console shows) and the morning digest (`digest:`).
   */
  readonly noticeTicks: { tick(): Promise<void> };
}

/** What the engine and the commands use of the merge desk. */
export type DeskFacade = Pick<DeskService, 'list' | 'nextDone' | 'merge' | 'refresh' | 'pollOnce' | 'start' | 'stop'>;

/** Build the engine's services on its wiring. */
export function engineServices(w: EngineWiring): EngineServices {
  const { config, store, now, hosts } = w;
  let capacityNow: readonly Capacity[] = [];
  const capacity = new CapacityService({
    proxies: config.proxies,
    store,
    now,
    getFor: (host) => {
      const h = hosts.get(host);
      return isReachable(h) ? hostFetch(h) : null;
    },
    onChange: (next) => {
      capacityNow = next;
      w.bus.publish('capacity.changed', { capacity: next });
    },
    onWindowRead: () => w.bus.signal('capacity.window-read', null),
    maintenanceOf: (proxy: string, at: Date) => w.maintenance.markAt({ kind: 'proxy', name: proxy }, at.getTime()),
  });
  const github = config.github
    ? new GithubPrs({
        config: config.github,
        ...(w.githubEnv ? { env: w.githubEnv } : {}),
        onChange: (remote) => {
          const prs = w.prTracker.setRemote(remote);
          if (!prs) return;
          // The engine hears it and polls soon: the notices (a merged PR's merge cue) follow.
          w.bus.publish('prs.changed', { prs });
        },
        onProblem: (problem) => w.bus.signal('problem', { key: 'github', problem }),
        keep: storeKeep(store),
      })
    : null;
  if (github) w.prTracker.setRemote(github.known());
  const transcripts = new TranscriptService({
    config,
    store,
    hosts,
    running: ({ loop, date, phase }) =>
      [...w.loops()].find((l) => l.name === loop)?.cycles.find((c) => c.date === date)?.phases.find((p) => p.name === phase)?.status === 'running',
  });
  const notifier = new Notifier({ store, notify: config.notify, now, emit: (e, p) => w.bus.publish(e, p), reviewed: () => w.reviewMark.reviewed(), maintenance: w.maintenance, ...(config.escalate ? { escalate: config.escalate } : {}) });
  const drills = new DrillService({
    store,
    drills: config.drills,
    now,
    hostFor: (host) => {
      const h = hosts.get(host);
      return isReachable(h) && h.source && h.shell ? { shell: h.shell, source: h.source } : null;
    },
    runningPhaseOn: (host) => runningPhaseOn(w.loops(), host),
    onRunsChanged: (runs) => w.bus.publish('drills.changed', { runs }),
    onOutput: (runId, from, text) => w.bus.publish('drill.output', { runId, from, text }),
  });
  const preflight = new PreflightService({
    config,
    hosts,
    now,
    state: {
      caughtUp: w.caughtUp,
      cycles: (loop) => [...w.loops()].find((l) => l.name === loop)?.cycles ?? [],
      deliverRecord: w.deliverRecord,
      capacity: () => capacityNow,
      drills: () => drills.list(),
      drillRuns: () => drills.runs(),
    },
    onChange: (list) => w.bus.publish('preflight.changed', { preflight: list }),
    maintenance: w.maintenance,
  });
  // A window added or ended in the console: the held notices and Alertmanager follow at once, the
  // dead-men and the pre-flight at the poll the signal asks for.
  const maintenance = new MaintenanceWindows({
    store,
    schedule: w.maintenance,
    declared: { loops: Object.keys(config.loops), hosts: Object.keys(config.hosts), proxies: Object.keys(config.proxies) },
    now,
    publish: (list) => w.bus.publish('maintenance.changed', { maintenance: list }),
    rescheduled: () => {
      notifier.rescheduled();
      w.bus.signal('maintenance.rescheduled', null);
    },
    warn: (message) => w.bus.signal('problem', { key: 'maintenance', problem: { source: 'maintenance', line: null, message } }),
  });
  // The merge desk reads GitHub apart from the PR tracker's reader: it lists each loop's open PRs by head.
  // Only for loops that name their repository: without one there is no desk to list (the PR tracker's reader says the rest).
  const reader = config.github && Object.values(config.loops).some((l) => l.repo)
    ? new GithubDesk({
        config: config.github,
        ...(w.githubEnv ? { env: w.githubEnv } : {}),
        onProblem: (problem) => w.bus.signal('problem', { key: 'github desk', problem }),
        onChange: () => desk.refresh(),
      })
    : null;
  const desk: DeskService = new DeskService({ config, store, reader, loops: w.loops, prs: () => w.prTracker.prs, now, publish: (list) => w.bus.publish('desk.changed', { desk: list }) });
  // The desk follows the loops' news: a new verdict names a PR, a cycle's commits name its ids.
  let queued = false;
  w.bus.subscribe((...[event]) => {
    if ((event !== 'loop.changed' && event !== 'prs.changed') || queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      desk.track();
      desk.refresh();
    });
  });
  const compare = new NightCompareService({ config, hosts, store, now, loops: w.loops, ...w.nights });
  const digest = config.digest
    ? new DigestService({ digest: config.digest, notify: config.notify, store, now, review: (at) => buildReviewSummary(w.snapshot(), { now: at.getTime() }), consoleUrl: () => notifier.consoleUrl })
    : null;
  const noticeTicks = { tick: () => notifier.tick().finally(() => (maintenance.tick(), digest?.tick())) };
  return { capacity, capacityNow: () => capacityNow, github, transcripts, notifier, drills, preflight, desk, compare, maintenance, noticeTicks };
}
