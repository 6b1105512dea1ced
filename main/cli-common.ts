import type { parseArgs } from 'node:util';
import { defaultConfigPath, loadConfig } from './core/config/load-config';
import type { Engine } from './core/engine';
import { pinnedClock } from './core/clock';
import { defaultDataDir } from './core/config/paths';
import type { Config } from './core/config/schema';
import { openCore, type Core, type CoreServices } from './core/session/core';
import { startLogging } from './core/logging/log';
import { logSafe } from './core/logging/log-text';

// What the CLI's commands share: the options, the errors meant for the operator, and opening the
// config, the store and an engine for one command.

export const OPTIONS = {
  config: { type: 'string' },
  data: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  now: { type: 'string' },
  since: { type: 'string' },
  markdown: { type: 'boolean', default: false },
  speed: { type: 'string' },
  yes: { type: 'boolean', default: false },
  arg: { type: 'string', multiple: true },
  override: { type: 'boolean', default: false },
  lines: { type: 'string' },
  nights: { type: 'string' },
  from: { type: 'string' },
  grep: { type: 'string' },
  follow: { type: 'boolean', default: false },
  raw: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** How long `snapshot` and `trust` wait for SSH hosts to connect. */
export const CONNECT_TIMEOUT_MS = 15_000;

/** A failure meant for the operator: printed without a stack, with this exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

export function portOf(flags: Flags): number {
  if (flags.port === undefined) return 0;
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port: expected a port number, got ${JSON.stringify(flags.port)}`);
  return port;
}

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
  print: (snap: ReturnType<Engine['snapshot']>, services: CoreServices) => void,
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
    print(engine.snapshot(), services);
    const failures = engine.failures();
    for (const f of failures) console.error(logSafe(`loopdeck ${command}: ${f}`));
    return failures.length > 0 ? 1 : 0;
  } finally {
    await core.close();
  }
}
