import { join } from 'node:path';
import type { EventName, EventPayload, Handlers } from '../../shared/contract';
import { emptySnapshot, type Snapshot } from '../../shared/domain';
import { configStatusOf, loadConfig, type LoadedConfig } from './config/load-config';
import { startDemo, type DemoRunner } from './demo/demo-runner';
import { Engine, type EngineOptions } from './engine';
import { openWith } from './store/open-store';
import type { Store } from './store/store';
import { VERSION } from './config/version';
import { IDLE_POLL_MS, PollScheduler, ENGINE_WAKE_GAPS } from './engine/poll-scheduler';
import { FirstRead, SummaryKeeper } from './engine/summary-cache';
import { LedgerCursors } from './ledgers/ledger-cursors';
import { ledgerRowsOf, summaryOf } from '../../shared/ledger-slice';
import { log } from './logging/log';
import { logRendererError } from './logging/renderer-errors';
import type { MetricsExporter } from './metrics/exporter';
import type { MetricsState } from './metrics/metrics-state';

export { defaultConfigPath } from './config/load-config';

/** How the shells (Electron, serve) create the core. */
export interface AppCoreOptions {
  readonly configPath: string;
  readonly dataDir: string;
  readonly shell: 'electron' | 'serve';
  /** An Electron-ABI build of better-sqlite3 (see the Store). */
  readonly nativeBinding?: string;
  readonly now?: () => Date;
  /** How often sources are polled when no watcher wakes a poll (IDLE_POLL_MS by default). */
  readonly pollMs?: number;
  /** SSH surroundings and tuning (tests point these at a throwaway sshd). */
  readonly ssh?: EngineOptions['ssh'];
}

/** Everything a shell needs: the command handlers and the event stream. */
export interface AppCore {
  readonly handlers: Handlers;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
  start(): Promise<void>;
  close(): Promise<void>;
  /** Poll every source once now (tests and `snapshot` use it instead of waiting for the timer). */
  pollOnce(): Promise<void>;
  snapshot(): Snapshot;
  /** The engine's live state without copies (null before a config loads): cheap readers such as the tray. */
  liveState(): MetricsState | null;
  /** Where the console is reached (no token), so notices can link into it. */
  setConsoleUrl(url: string): void;
}

/**
 * The core behind both shells: loads the config, owns the store and the engine, polls on a timer,
 * and answers commands. Switching to the demo swaps config, store and engine in one step.
 */
export function createAppCore(options: AppCoreOptions): AppCore {
  const listeners = new Set<(event: EventName, payload: unknown) => void>();
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    for (const l of listeners) l(event, payload);
  };
  let loaded: LoadedConfig = { state: 'missing', path: options.configPath };
  let store: Store | null = null;
  let engine: Engine | null = null;
  let unsubscribe: (() => void) | null = null;
  let demo: DemoRunner | null = null;
  let consoleUrl: string | undefined;
  let metrics: MetricsExporter | null = null;
  // The state saved at the last run, answered until the first read after a start has caught up.
  let keeper: SummaryKeeper | null = null;
  // What `open` opened last: a damaged database is opened afresh from the same.
  let opened: { readonly configPath: string; readonly dataDir: string } | null = null;

  const open = async (configPath: string, dataDir: string): Promise<void> => {
    await metrics?.close();
    metrics = null;
    if (engine) keeper?.close(engine);
    keeper = null;
    await engine?.close();
    unsubscribe?.();
    store?.close();
    engine = null;
    store = null;
    loaded = await loadConfig(configPath);
    opened = { configPath, dataDir };
    if (loaded.state === 'loaded') {
      const config = loaded.config;
      const storeOptions = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
      const engineOptions = { ...(options.now ? { now: options.now } : {}), ...(options.ssh ? { ssh: options.ssh } : {}) };
      // A damaged database (a cache of what the sources hold) is moved aside for a fresh one.
      const made = openWith(dataDir, storeOptions, (s) => new Engine(config, { store: s, ...engineOptions }));
      store = made.store;
      engine = made.made;
      if (made.recovered) engine.setProblem('database', { source: store.dbPath, line: null, message: made.recovered });
      keeper = new SummaryKeeper(dataDir, store.space);
      unsubscribe = engine.subscribe(emit);
      engine.onWake(wake);
      engine.notifier.consoleUrl = consoleUrl;
      engine.start();
      // `GET /metrics` for Prometheus, over this engine's state; it closes with the engine.
      // Loaded only when configured: prom-client is ~50 ms of a start otherwise.
      if (loaded.config.metrics) {
        const { startMetricsExporter } = await import('./metrics/exporter');
        metrics = await startMetricsExporter(loaded.config.metrics, engine, loaded.path);
      }
    }
  };

  // Every poll goes through here, so the keeper sees the one that ends the first read.
  const pollEngine = async (e: Engine, reason?: 'timer' | 'wake'): Promise<void> => {
    await e.poll(reason ? { reason } : undefined);
    if (e !== engine) return;
    if (store?.damaged && opened) {
      // A query found the database damaged: open afresh (it is moved aside) and read the sources again.
      await open(opened.configPath, opened.dataDir);
      emit('state.reset', {});
      return;
    }
    if (keeper?.afterPoll(e, Date.now())) emit('state.reset', {});
  };

  const scheduler = new PollScheduler({
    poll: async (why) => {
      const e = engine;
      if (e) await pollEngine(e, why.timer ? 'timer' : 'wake');
    },
    intervalMs: options.pollMs ?? IDLE_POLL_MS,
    ...ENGINE_WAKE_GAPS,
    onError: (err) => log.error('poll failed', err),
  });
  // A watched folder changed: poll now (or right after the poll in flight).
  const wake = (): void => scheduler.wake();
  // With a saved summary, the first read (seconds of work for a year of history) waits until a
  // console has been answered with it, so the page loads and paints first.
  const firstRead = new FirstRead(() => scheduler.start());

  const snapshot = (): Snapshot =>
    engine?.snapshot() ?? emptySnapshot((options.now?.() ?? new Date()).toISOString());

  // The renderer reads the ledgers' rows in pages of one frozen copy after its summary.
  const cursors = new LedgerCursors();

  const requireEngine = (): Engine => {
    if (!engine) throw new Error(`No config is loaded (${configStatusOf(loaded).state} at ${loaded.path}).`);
    return engine;
  };

  const handlers: Handlers = {
    'app.info': () => ({
      version: VERSION,
      shell: options.shell,
      config: configStatusOf(loaded),
      dataDir: options.dataDir,
      demo: demo !== null,
    }),
    'state.snapshot': () => snapshot(),
    'state.summary': () => {
      if (keeper?.pending) firstRead.soon();
      return engine && keeper ? keeper.answer(engine) : summaryOf(snapshot());
    },
    'ledgers.page': (input) => {
      // Not "no rows": none are read yet. The console waits for the `state.reset` that follows.
      const pending = keeper?.rowsPending;
      if (pending && input.cursor === null) return { ready: false, reason: `The ledgers' rows are not read yet: ${pending}; a state.reset follows once they are.` };
      return cursors.page(input, () => ledgerRowsOf(snapshot()));
    },
    'hosts.trust': ({ host, fingerprint }) => {
      requireEngine().hosts.sshHost(host).trust(fingerprint);
      return { trusted: true } as const;
    },
    'hosts.untrust': ({ host }) => ({ removed: requireEngine().hosts.sshHost(host).untrust() }),
    'hosts.unlock': ({ host, passphrase }) => ({ unlocked: requireEngine().hosts.sshHost(host).unlock(passphrase) }),
    'capacity.history': (input) => requireEngine().capacity.history(input),
    'review.mark': () => ({ lastReviewedAt: requireEngine().notifier.markReviewed() }),
    'notices.ack': ({ key }) => ({ acknowledgedAt: requireEngine().notifier.acknowledge(key) }),
    'notices.snooze': ({ key, minutes }) => ({ snoozedUntil: requireEngine().notifier.snooze(key, minutes) }),
    'drills.run': async (input) => ({ runId: await requireEngine().drills.run(input) }),
    'drills.cancel': async ({ runId }) => ({ cancelled: await requireEngine().drills.cancel(runId) }),
    'drills.output': ({ runId, from }) => requireEngine().drills.output(runId, from),
    'log.error': (report) => logRendererError(report),
    'demo.start': async () => {
      // Only from the first-run screen: any client of serve mode could otherwise swap demo data
      // in for every client while a real config is loaded.
      if (!demo && loaded.state !== 'missing') {
        throw new Error(
          `the demo starts only from the first-run screen, and a config is ${loaded.state} at ${loaded.path}` +
            (loaded.state === 'loaded' ? '.' : ' (fix or move it away to see the first-run screen).'),
        );
      }
      if (!demo) {
        demo = await startDemo();
        await open(demo.configPath, join(demo.dir, 'data'));
        if (engine) await pollEngine(engine);
        emit('config.changed', { config: configStatusOf(loaded), demo: true });
      }
      return { configPath: demo.configPath };
    },
  };

  return {
    handlers,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: async () => {
      await open(options.configPath, options.dataDir);
      firstRead.start(keeper?.pending != null);
    },
    close: async () => {
      firstRead.cancel();
      await scheduler.stop();
      await demo?.stop();
      await metrics?.close();
      metrics = null;
      if (engine) keeper?.close(engine);
      await engine?.close();
      unsubscribe?.();
      store?.close();
      store = null;
      engine = null;
    },
    pollOnce: async () => {
      if (engine) await pollEngine(engine);
    },
    snapshot,
    liveState: () => engine?.metricsState() ?? null,
    setConsoleUrl: (url) => {
      consoleUrl = url;
      if (engine) engine.notifier.consoleUrl = url;
    },
  };
}
