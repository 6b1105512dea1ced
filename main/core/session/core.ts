import type { EventListener } from '../../../shared/contract';
import type { Config } from '../config/schema';
import { Engine, type EngineOptions } from '../engine';
import type { StoreOptions } from '../store/store';
import { openWith } from '../store/open-store';
import { MIGRATIONS } from '../engine/migrations';
import type { Store } from '../store/store';
import { Disposables } from '../state/disposables';
import { EventBus, type SignalSink } from '../state/event-bus';
import type { CapacityService } from '../capacity/capacity-service';
import type { TrendNights } from '../nights/trend-nights';
import type { Notifier } from '../notices/notifier';
import type { DrillService } from '../drills/drill-service';
import type { TranscriptService } from '../transcripts/transcript-service';
import type { PreflightService } from '../preflight/preflight-service';
import type { HostTable } from '../hosts/host-table';
import type { GithubPrs } from '../prs/github/github-prs';
import type { DeskService } from '../prs/desk-service';
import type { MaintenanceWindows } from '../maintenance/maintenance-windows';
import type { NightCompareService } from '../compare/night-compare-service';

// The composition root: the one place the core of a loaded config is put together (its store,
// the engine and the engine's services), used by the session (the window, serve, `watch`) and by
// every CLI command. Nothing else constructs an Engine or opens the store for one.

/** What a command (an RPC handler or a CLI verb) may use of the core: narrow services, never the engine's parts. */
export interface CoreServices {
  /** SSH hosts: settle, and trust, untrust or unlock one (`sshHost(name)`, which names a bad host in its error). */
  readonly hosts: Pick<HostTable, 'settle' | 'sshHost'>;
  readonly capacity: Pick<CapacityService, 'history' | 'pollOnce'>;
  /** Trends' nights. */
  readonly nights: Pick<TrendNights, 'list' | 'pending'>;
  readonly notices: Pick<Notifier, 'acknowledge' | 'snooze'>;
  readonly drills: Pick<DrillService, 'list' | 'runs' | 'run' | 'cancel' | 'output'>;
  readonly transcripts: Pick<TranscriptService, 'newestDate' | 'open' | 'lines' | 'search'>;
  readonly preflight: Pick<PreflightService, 'loops' | 'run'>;
  /** GitHub's view of the PRs; null without a `github:` section. */
  readonly github: Pick<GithubPrs, 'pollOnce'> | null;
  /** The merge desk: its list, a Next step ticked, a merge of the head the operator saw. */
  readonly desk: Pick<DeskService, 'list' | 'nextDone' | 'merge' | 'refresh'> & { pollOnce(): Promise<void> };
  /** Night against night: two nights of a loop side by side. */
  readonly compare: Pick<NightCompareService, 'compare'>;
  /** Maintenance windows: add one, end one the console added. */
  readonly maintenance: Pick<MaintenanceWindows, 'add' | 'end'>;
  /** Mark the review done now (the notices get the new watermark); when. */
  markReviewed(by: string): string;
  /** Every event the core publishes; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void;
}

/** One loaded config's core, closed as one. */
export interface Core {
  readonly config: Config;
  readonly store: Store;
  /** Follows the sources, derives the state and publishes it (poll → derive → publish). */
  readonly engine: Engine;
  readonly services: CoreServices;
  /** Where a part beside the engine reports (a problem of /metrics, of the database): heard by the engine, sent to no console. */
  readonly signals: SignalSink;
  /** One sentence when a damaged database was moved aside for a fresh one (logged already), else null. */
  readonly recovered: string | null;
  /** The engine (after its poll in flight), then the store. */
  close(): Promise<void>;
}

/** What the core of a config is made with. */
export interface CoreOptions extends Omit<EngineOptions, 'store'> {
  readonly config: Config;
  readonly dataDir: string;
  readonly storeOptions?: StoreOptions;
}

/**
 * The engine on a store the caller owns: for the core below, and for tests and benchmarks that
 * open a store of their own. The only `new Engine` there is.
 */
export function composeEngine(config: Config, options: EngineOptions): Engine {
  return new Engine(config, options);
}

/** The narrow services commands use, over an engine. */
export function servicesOf(engine: Engine): CoreServices {
  return {
    hosts: engine.hosts,
    capacity: engine.capacity,
    nights: engine.nights,
    notices: engine.notifier,
    drills: engine.drills,
    transcripts: engine.transcripts,
    preflight: engine.preflight,
    github: engine.github,
    desk: engine.desk,
    compare: engine.compare,
    maintenance: engine.maintenance,
    markReviewed: (by) => engine.markReviewed(by),
    subscribe: (listener) => engine.subscribe(listener),
  };
}

/**
 * Open the data folder's store and compose the core on it. A database the first queries find
 * damaged is moved aside and everything made again, once (openWith), said in `recovered`.
 */
export function openCore(options: CoreOptions): Core {
  const { config, dataDir, storeOptions, ...engineOptions } = options;
  const bus = new EventBus();
  const made = openWith(dataDir, { migrations: MIGRATIONS, ...storeOptions }, (store) => composeEngine(config, { ...engineOptions, store, bus }));
  const { store, made: engine, recovered } = made;
  const teardown = new Disposables();
  teardown.add(() => store.close());
  teardown.add(() => engine.close());
  return { config, store, engine, services: servicesOf(engine), signals: bus, recovered, close: () => teardown.dispose() };
}
