import { join } from 'node:path';
import { deliverEvent, type EventListener, type EventName, type EventPayload, type Handlers } from '../../../shared/contract';
import { emptySnapshot, type Snapshot } from '../../../shared/domain';
import { summaryOf } from '../../../shared/ledger-slice';
import { configStatusOf, loadConfig, type LoadedConfig } from '../config/load-config';
import { VERSION } from '../config/version';
import type { DemoRunner } from '../demo/demo-runner';
import type { Engine, EngineOptions } from '../engine';
import type { LiveState } from '../state/live-state';
import { IDLE_POLL_MS } from '../engine/poll-scheduler';
import { log } from '../logging/log';
import { sessionCommands } from './commands';
import type * as CoreModule from './core';
import type { Core } from './core';
import { Disposables } from '../state/disposables';
import { FirstReadStart } from './first-read-start';
import { SavedSummary } from './saved-summary';
import { StartGate } from './start-gate';

export { defaultConfigPath } from '../config/load-config';

/** How a shell creates the session. */
export interface SessionOptions {
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
  /**
   * The config as the shell already read it from `configPath` (serve reads its `serve:` section
   * before it listens): the first open uses it instead of reading and parsing the file again.
   */
  readonly loaded?: LoadedConfig;
}

/** Receives every event the session publishes (keyed by name: a test of the name narrows the payload). */
export type SessionListener = EventListener;

/** What every shell drives: the commands, the events, and the session's life. */
export interface Session {
  /** Every command of the contract; each waits for the start gate (and opens the session if nothing has). */
  readonly handlers: Handlers;
  subscribe(listener: SessionListener): () => void;
  /** Open the session now (config, store, saved summary, engine and its connections), unless it is; resolves once open. */
  start(): Promise<void>;
  /**
   * Load the core's code (the engine and its services) without opening anything, so the open that
   * follows only reads: serve calls it once it listens, while the browser is still navigating.
   */
  prepare(): Promise<void>;
  /** Resolves once the session is open, without opening it (the shells' start gate). */
  readonly started: Promise<void>;
  close(): Promise<void>;
  /** Poll every source once now (tests, `snapshot`), beside the engine's own schedule. */
  pollOnce(): Promise<void>;
  snapshot(): Snapshot;
  /** The engine's live state without copies (null before a config loads): cheap readers such as the tray. */
  liveState(): LiveState | null;
  /** Where the console is reached (no token), so notices can link into it. */
  setConsoleUrl(url: string): void;
}

/**
 * The session the long-running shells drive (the Electron window, serve; the CLI's verbs, `watch`
 * included, open the core of session/core.ts directly): it loads the config and owns the core
 * (store, engine, services; the engine polls on its own schedule once the first read is due), the
 * summary saved across restarts, the /metrics exporter and the start gate, and answers the
 * commands. Switching to the demo swaps config and core in one step.
 */
export function createSession(options: SessionOptions): Session {
  const listeners = new Set<SessionListener>();
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    for (const l of listeners) deliverEvent(l, event, payload);
  };
  let loaded: LoadedConfig = { state: 'missing', path: options.configPath };
  let core: Core | null = null;
  let engine: Engine | null = null;
  let demo: DemoRunner | null = null;
  let consoleUrl: string | undefined;
  // The state saved at the last run, answered until the first read after a start has caught up.
  let saved: SavedSummary | null = null;
  // What `open` opened last: a damaged database is opened afresh from the same.
  let opened: { readonly configPath: string; readonly dataDir: string } | null = null;
  let closing = false;

  const run = (e: Engine): void => e.run({ intervalMs: options.pollMs ?? IDLE_POLL_MS, onError: (err) => log.error('poll failed', err) });
  // With a saved summary, the first read (seconds of work for a year of history) waits until a
  // console has been answered with it, so the page loads and paints first.
  const firstRead = new FirstReadStart(() => {
    if (!engine) return;
    engine.start();
    run(engine);
  });

  /** After every poll of the engine, whoever asked for it: the first read's end, or a damaged database. */
  const afterPoll = (e: Engine): void => {
    if (e !== engine || closing) return;
    if (core?.store.damaged && opened) {
      // A query found the database damaged: open afresh (it is moved aside) and read the sources
      // again, once this poll is over (the engine closes under it otherwise).
      const again = opened;
      setImmediate(() => {
        void reopen(again.configPath, again.dataDir).then(() => emit('state.reset', {}), (err: unknown) => log.error('could not open the database afresh', err));
      });
      return;
    }
    if (saved?.afterPoll(e, Date.now())) emit('state.reset', {});
  };

  // What `open` started, undone newest first: the exporter, the saved summary, the events, the core.
  let teardown = new Disposables();
  const shut = async (): Promise<void> => {
    const done = teardown;
    teardown = new Disposables();
    await done.dispose();
  };

  // The config the shell read, for the first open of that file only.
  let given = options.loaded;
  // The core's code, loaded once (see `prepare`).
  let coreModule: Promise<typeof CoreModule> | null = null;
  const loadCore = (): Promise<typeof CoreModule> => (coreModule ??= import('./core'));

  const open = async (configPath: string, dataDir: string): Promise<void> => {
    await shut();
    loaded = given && given.path === configPath ? given : await loadConfig(configPath);
    given = undefined;
    opened = { configPath, dataDir };
    if (loaded.state !== 'loaded') return;
    const config = loaded.config;
    // The core's code (the engine, its services, SSH, SQLite: most of serve's bundle) is loaded
    // here, not when the shell starts: serve prints its URL and sends the page without it.
    const { openCore } = await loadCore();
    // A damaged database (a cache of what the sources hold) is moved aside for a fresh one.
    const next: Core = openCore({
      config,
      dataDir,
      ...(options.nativeBinding ? { storeOptions: { nativeBinding: options.nativeBinding } } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.ssh ? { ssh: options.ssh } : {}),
      afterPoll: () => afterPoll(next.engine),
    });
    core = next;
    engine = next.engine;
    teardown.add(async () => {
      await next.close();
      if (core === next) [core, engine] = [null, null];
    });
    // Shown in the console until the next start; the CLI says it on stderr instead.
    if (next.recovered) next.signals.signal('problem', { key: 'database', problem: { source: next.store.dbPath, line: null, message: next.recovered } });
    teardown.add(next.services.subscribe((...event) => {
      for (const l of listeners) l(...event);
    }));
    const summary = (saved = new SavedSummary(dataDir, next.store.space));
    teardown.add(() => {
      summary.close(next.engine);
      if (saved === summary) saved = null;
    });
    engine.notifier.consoleUrl = consoleUrl;
    // The SSH connections open now, spread by the connect gate, ready for the first read. The
    // services' own schedules (the fleet's and GitHub's pollers, the desk, the notice tick) wait for
    // the first read (first-read-start.ts) or a command that needs a service: a start answers the
    // page its saved summary before it polls a fleet or asks GitHub.
    engine.connect();
    // `GET /metrics` for Prometheus, over this engine's state; it closes with the engine.
    // Loaded only when configured: prom-client is ~50 ms of a start otherwise.
    if (config.metrics) {
      const { startMetricsExporter } = await import('../metrics/exporter');
      const exporter = await startMetricsExporter(config.metrics, { liveState: () => next.engine.liveState(), signals: next.signals }, loaded.path);
      teardown.add(() => exporter.close());
    }
  };

  /** Open afresh (a demo, a damaged database): the engine polls on its own at once, no first-read wait. */
  const reopen = async (configPath: string, dataDir: string): Promise<void> => {
    await open(configPath, dataDir);
    if (engine) {
      engine.start();
      await engine.poll();
      run(engine);
    }
  };

  const snapshot = (): Snapshot => engine?.snapshot() ?? emptySnapshot((options.now?.() ?? new Date()).toISOString());

  const requireCore = (): Core => {
    if (!core) throw new Error(`No config is loaded (${configStatusOf(loaded).state} at ${loaded.path}).`);
    return core;
  };

  const gate = new StartGate(async () => {
    await open(options.configPath, options.dataDir);
    firstRead.start(saved?.pending != null);
  });

  const commands = sessionCommands({
    info: () => ({ version: VERSION, shell: options.shell, config: configStatusOf(loaded), dataDir: options.dataDir, demo: demo !== null }),
    snapshot,
    summary: () => {
      if (saved?.pending) firstRead.soon();
      return engine && saved ? saved.answer(engine) : summaryOf(snapshot());
    },
    rowsPending: () => saved?.rowsPending ?? null,
    services: () => {
      // A command that reaches a service (a trust, a drill, the capacity history) starts the
      // services' schedules if the first read has not yet: what it asks of may be theirs.
      const c = requireCore();
      c.engine.start();
      return c.services;
    },
    startDemo: async () => {
      // Only from the first-run screen: any client of serve mode could otherwise swap demo data
      // in for every client while a real config is loaded.
      if (!demo && loaded.state !== 'missing') {
        throw new Error(
          `the demo starts only from the first-run screen, and a config is ${loaded.state} at ${loaded.path}` +
            (loaded.state === 'loaded' ? '.' : ' (fix or move it away to see the first-run screen).'),
        );
      }
      if (!demo) {
        // The first-run screen has no core loaded yet: the schema comes with the demo's import.
        const [{ startDemo }, { MIGRATIONS }] = await Promise.all([import('../demo/demo-runner'), import('../engine/migrations')]);
        demo = await startDemo({ migrations: MIGRATIONS });
        await reopen(demo.configPath, join(demo.dir, 'data'));
        emit('config.changed', { config: configStatusOf(loaded), demo: true });
      }
      return demo.configPath;
    },
  });

  return {
    handlers: gate.gate(commands),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: () => gate.open(),
    prepare: async () => {
      await loadCore();
    },
    started: gate.opened,
    close: async () => {
      closing = true;
      firstRead.cancel();
      // The core first: it asks the demo's servers (the fleet, the GitHub stand-in) until it stops.
      await shut();
      await demo?.stop();
    },
    pollOnce: async () => {
      if (engine) await engine.poll();
    },
    snapshot,
    liveState: () => engine?.liveState() ?? null,
    setConsoleUrl: (url) => {
      consoleUrl = url;
      if (engine) engine.notifier.consoleUrl = url;
    },
  };
}
