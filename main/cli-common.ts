import { defaultConfigPath, loadConfig } from './core/config/load-config';
import type { Engine } from './core/engine';
import { pinnedClock } from './core/clock';
import { defaultDataDir } from './core/config/paths';
import type { Config } from './core/config/schema';
import { openCore, type Core, type CoreServices } from './core/session/core';
import { startLogging } from './core/logging/log';
import { logSafe } from './core/logging/log-text';
import { CliError, CONNECT_TIMEOUT_MS, type Flags } from './cli-args';

// What the CLI's commands that read the runner share: opening the config, the store and an engine
// for one command (the flags and the operator's errors are in cli-args.ts, which serve needs alone).

export function clockOf(flags: Flags): () => Date {
  if (flags.now === undefined) return () => new Date();
  const pinned = new Date(flags.now);
  if (Number.isNaN(pinned.getTime())) throw new CliError(`--now: expected an ISO time such as 2026-11-30T07:00:00Z, got ${JSON.stringify(flags.now)}`);
  return pinnedClock(pinned);
}

export async function loadedConfig(flags: Flags) {
  const path = flags.config ?? defaultConfigPath();
  const loaded = await loadConfig(path);
  if (loaded.state === 'missing') throw new CliError(`No config file at ${path}. Pass --config FILE, or try \`loopdeck demo\`.`);
  if (loaded.state === 'invalid') throw new CliError(loaded.error.message, 1);
  return loaded;
}

/**
 * The config's core (the composition root: store, engine, services), not started, for a command. A
 * database found damaged is moved aside for a fresh one, which is said on stderr as well as in the log.
 */
export function coreFor(config: Config, dataDir: string, now?: () => Date): Core {
  const core = openCore({ config, dataDir, ...(now ? { now } : {}) });
  if (core.recovered) console.error(logSafe(`loopdeck: ${core.recovered}`));
  return core;
}

/** The command's core, started; `reopen` makes another on a fresh store (after the database was found damaged). */
export async function openEngine(flags: Flags, command: string): Promise<Core & { readonly reopen: () => Core }> {
  const loaded = await loadedConfig(flags);
  const dataDir = flags.data ?? defaultDataDir();
  // The log goes to the data folder, never stdout (which is this command's output).
  startLogging(dataDir, command);
  const reopen = (): Core => {
    const core = coreFor(loaded.config, dataDir, clockOf(flags));
    core.engine.start();
    return core;
  };
  return { ...reopen(), reopen };
}

/**
 * Read the whole state once (every follower caught up, the fleet polled), hand it to `print`, and
 * report the sources that failed: exit 1 when any did, as `snapshot` and `review` do.
 */
export async function withState(
  flags: Flags,
  command: string,
  print: (snap: ReturnType<Engine['snapshot']>, services: CoreServices) => void | Promise<void>,
  /** `history`: also read every older night Trends keeps (a first run reads them a chunk a poll). */
  options: { readonly history?: boolean } = {},
): Promise<number> {
  const opened = await openEngine(flags, command);
  let core: Core = opened;
  try {
    const read = async (): Promise<void> => {
      await core.services.hosts.settle(CONNECT_TIMEOUT_MS);
      await core.services.capacity.pollOnce();
      await core.engine.poll();
    };
    await read();
    if (core.store.damaged) {
      // The first read found the database damaged: read everything again into a fresh one.
      await core.close();
      core = opened.reopen();
      await read();
    }
    const { engine, services } = core;
    // A large backlog is read in bounded chunks: poll until every follower has caught up.
    for (let i = 0; (engine.behind() || (options.history === true && services.nights.pending)) && i < 1000; i++) await engine.poll();
    // With a `github:` section, one round of asking GitHub about the PRs just read.
    await services.github?.pollOnce();
    await print(engine.snapshot(), services);
    const failures = engine.failures();
    for (const f of failures) console.error(logSafe(`loopdeck ${command}: ${f}`));
    return failures.length > 0 ? 1 : 0;
  } finally {
    await core.close();
  }
}
