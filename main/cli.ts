import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { EventPayload } from '../shared/contract';
import { defaultConfigPath, loadConfig } from './core/config/load-config';
import { startDemo } from './core/demo/demo-runner';
import { Engine } from './core/engine';
import { pinnedClock } from './core/clock';
import { defaultDataDir } from './core/config/paths';
import { DataFolderError } from './core/config/data-folder';
import type { Config } from './core/config/schema';
import { openWith } from './core/store/open-store';
import type { Store } from './core/store/store';
import { VERSION } from './core/config/version';
import { formatDuration } from './core/config/duration';
import { buildReviewSummary, renderReviewMarkdown } from '../shared/review-summary';
import { ask, confirm, printSnapshot } from './cli-terminal';
import { log, startLogging } from './core/logging/log';
import { logSafe } from './core/logging/log-text';
import { serveMode } from './cli-serve';
import { LogError, logTranscript } from './cli-transcript';

const USAGE = `loopdeck ${VERSION} — operations console for overnight agent loops

Usage:
  loopdeck serve    [--config FILE] [--data DIR] [--port N] [--host ADDR]
  loopdeck demo     [--port N] [--speed X]
  loopdeck check    [--config FILE]
  loopdeck snapshot [--config FILE] [--data DIR] [--now ISO] [--json]
  loopdeck review   [--config FILE] [--data DIR] [--since ISO] [--markdown | --json]
  loopdeck watch    [--config FILE] [--data DIR] [--json]
  loopdeck trust    HOST [--config FILE] [--data DIR] [--yes]
  loopdeck untrust  HOST [--config FILE] [--data DIR] [--yes]
  loopdeck log      LOOP [DATE] PHASE [--lines N] [--from LINE] [--grep RE] [--follow] [--raw]
  loopdeck drill    list [--json]
  loopdeck drill    run NAME [--arg k=v ...] [--yes] [--override] [--json]

  --config FILE  the config (default ${defaultConfigPath()})
  --data DIR     the data folder holding loopdeck.db (default ${defaultDataDir()})
  --port N       serve on this port (default: a free one)
  --host ADDR    bind address (default 127.0.0.1; anything else exposes the console to the network)
  --now ISO      pin the clock, so a snapshot is reproducible
  --since ISO    the review's window start (default: when last marked reviewed, else 24 h ago)
  --markdown     the review as Markdown to paste (the default; --json prints its model)
  --json         machine-readable output
  --yes          trust without asking (after comparing the fingerprint out of band); forget a
                 trusted key without asking; run a drill without typing its name
  --arg k=v      a drill argument (one of the values the config allows)
  --override     run a drill although a loop phase on its host is running (recorded)
  --lines N      log: how many lines (default 50: the last ones, or from --from)
  --from LINE    log: start at this line (1-based)
  --grep RE      log: the lines matching an extended regex, searched on the host, with their numbers
  --follow       log: go on printing lines as they arrive, until Ctrl-C
  --raw          log: keep escape sequences (default: stripped)
`;

const OPTIONS = {
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
  from: { type: 'string' },
  grep: { type: 'string' },
  follow: { type: 'boolean', default: false },
  raw: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** How long `snapshot` and `trust` wait for SSH hosts to connect. */
const CONNECT_TIMEOUT_MS = 15_000;

/** A failure meant for the operator: printed without a stack, with this exit code. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

function portOf(flags: Flags): number {
  if (flags.port === undefined) return 0;
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port: expected a port number, got ${JSON.stringify(flags.port)}`);
  return port;
}

function clockOf(flags: Flags): () => Date {
  if (flags.now === undefined) return () => new Date();
  const pinned = new Date(flags.now);
  if (Number.isNaN(pinned.getTime())) throw new CliError(`--now: expected an ISO time such as 2026-11-30T07:00:00Z, got ${JSON.stringify(flags.now)}`);
  return pinnedClock(pinned);
}

async function loadedConfig(flags: Flags) {
  const path = flags.config ?? defaultConfigPath();
  const loaded = await loadConfig(path);
  if (loaded.state === 'missing') throw new CliError(`No config file at ${path}. Pass --config FILE, or try \`loopdeck demo\`.`);
  if (loaded.state === 'invalid') throw new CliError(loaded.error.message, 1);
  return loaded;
}

/**
 * The store and an engine on it (not started), for a command. A database found damaged is moved
 * aside for a fresh one (openWith), which is said on stderr as well as in the log.
 */
function openStoreAndEngine(config: Config, dataDir: string, now?: () => Date): { engine: Engine; store: Store } {
  const { store, made: engine, recovered } = openWith(dataDir, {}, (s) => new Engine(config, { store: s, ...(now ? { now } : {}) }));
  if (recovered) console.error(logSafe(`loopdeck: ${recovered}`));
  return { engine, store };
}

/** The command's engine, started; `reopen` makes another on a fresh store (after the database was found damaged). */
async function openEngine(flags: Flags, command: string): Promise<{ engine: Engine; store: Store; reopen: () => { engine: Engine; store: Store } }> {
  const loaded = await loadedConfig(flags);
  const dataDir = flags.data ?? defaultDataDir();
  // The log goes to the data folder, never stdout (which is this command's output).
  startLogging(dataDir, command);
  const reopen = (): { engine: Engine; store: Store } => {
    const opened = openStoreAndEngine(loaded.config, dataDir, clockOf(flags));
    opened.engine.start();
    return opened;
  };
  return { ...reopen(), reopen };
}

async function check(flags: Flags): Promise<number> {
  const loaded = await loadedConfig(flags);
  const c = loaded.config;
  const count = (o: object): number => Object.keys(o).length;
  console.log(
    `${loaded.path}: OK — ${count(c.hosts)} host(s), ${count(c.loops)} loop(s), ${count(c.proxies)} prox(ies), ${count(c.drills)} drill(s).`,
  );
  return 0;
}

/**
 * Read the whole state once (every follower caught up, the fleet polled), hand it to `print`, and
 * report the sources that failed: exit 1 when any did, as `snapshot` and `review` do.
 */
async function withState(flags: Flags, command: string, print: (snap: ReturnType<Engine['snapshot']>) => void): Promise<number> {
  const opened = await openEngine(flags, command);
  let { engine, store } = opened;
  try {
    await engine.hosts.settle(CONNECT_TIMEOUT_MS);
    await engine.capacity.pollOnce();
    // A large backlog is read in bounded chunks: poll until every follower has caught up.
    await engine.poll();
    if (store.damaged) {
      // The first read found the database damaged: read everything again into a fresh one.
      await engine.close();
      store.close();
      ({ engine, store } = opened.reopen());
      await engine.hosts.settle(CONNECT_TIMEOUT_MS);
      await engine.capacity.pollOnce();
      await engine.poll();
    }
    for (let i = 0; engine.behind() && i < 1000; i++) await engine.poll();
    // With a `github:` section, one round of asking GitHub about the PRs just read.
    await engine.github?.pollOnce();
    print(engine.snapshot());
    const failures = engine.failures();
    for (const f of failures) console.error(logSafe(`loopdeck ${command}: ${f}`));
    return failures.length > 0 ? 1 : 0;
  } finally {
    await engine.close();
    store.close();
  }
}

function snapshot(flags: Flags): Promise<number> {
  return withState(flags, 'snapshot', (snap) => (flags.json ? console.log(JSON.stringify(snap, null, 2)) : printSnapshot(snap)));
}

async function trust(flags: Flags, hostName: string | undefined): Promise<number> {
  if (!hostName) throw new CliError('Usage: loopdeck trust HOST [--yes]');
  const { engine, store } = await openEngine(flags, 'trust');
  try {
    const host = engine.hosts.sshHost(hostName);
    await engine.hosts.settle(CONNECT_TIMEOUT_MS);
    const status = host.connection.status;
    if (status.state === 'connected') {
      console.log(`Host ${hostName} is already trusted and connected.`);
      return 0;
    }
    const key = status.presentedKey;
    if (status.state !== 'untrusted' || !key) throw new CliError(host.connection.describe(), 1);
    console.log(`Host ${hostName} (${key.host}:${key.port}) presents a ${key.keyType} key:\n  ${key.fingerprint}`);
    console.log('Compare it with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` run on the host itself.');
    if (!flags.yes && !(await confirm('Trust this key? [y/N] '))) {
      console.log('Nothing was trusted.');
      return 1;
    }
    host.trust(key.fingerprint);
    await host.connection.ready(CONNECT_TIMEOUT_MS);
    console.log(`Trusted ${key.fingerprint} for ${hostName}; connected.`);
    return 0;
  } finally {
    await engine.close();
    store.close();
  }
}

/** Forget the keys trusted in Loopdeck for a host; the next connection shows the key to trust again. */
async function untrust(flags: Flags, hostName: string | undefined): Promise<number> {
  if (!hostName) throw new CliError('Usage: loopdeck untrust HOST [--yes]');
  const loaded = await loadedConfig(flags);
  const dataDir = flags.data ?? defaultDataDir();
  startLogging(dataDir, 'untrust');
  // Not started: forgetting a key needs no connection (a running console drops it on its next reconnect).
  const { engine, store } = openStoreAndEngine(loaded.config, dataDir);
  try {
    let host: ReturnType<Engine['hosts']['sshHost']>;
    try {
      host = engine.hosts.sshHost(hostName);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    const where = `${host.endpoint.host}:${host.endpoint.port}`;
    const keys = host.trustedKeys();
    if (keys.length === 0) {
      console.log(`No host key of ${hostName} (${where}) is trusted in Loopdeck; nothing was removed.`);
      console.log('Keys in ~/.ssh/known_hosts or the host\'s knownHosts file are not Loopdeck\'s: remove those with `ssh-keygen -R`.');
      return 0;
    }
    console.log(`Host ${hostName} (${where}) has ${keys.length} key(s) trusted in Loopdeck:`);
    for (const k of keys) console.log(`  ${k.keyType} ${k.fingerprint} (trusted ${k.addedAt})`);
    if (!flags.yes && !(await confirm('Forget them? [y/N] '))) {
      console.log('Nothing was removed.');
      return 1;
    }
    const removed = host.untrust({ reconnect: false });
    console.log(`Removed ${removed} key(s) trusted in Loopdeck for ${hostName}. The next connection will ask to trust its key again (\`loopdeck trust ${hostName}\`).`);
    return 0;
  } finally {
    await engine.close();
    store.close();
  }
}

function drillArgs(flags: Flags): Record<string, string> {
  const args: Record<string, string> = {};
  for (const pair of flags.arg ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--arg: expected NAME=VALUE, got ${JSON.stringify(pair)}`);
    args[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return args;
}

async function drill(flags: Flags, words: readonly string[]): Promise<number> {
  const [verb, name] = words;
  if (verb !== 'list' && !(verb === 'run' && name)) throw new CliError('Usage: loopdeck drill list | loopdeck drill run NAME [--arg k=v] [--yes] [--override] [--json]');
  const { engine, store } = await openEngine(flags, 'drill');
  try {
    if (verb === 'list') {
      const drills = engine.drills.list();
      if (flags.json) console.log(JSON.stringify(drills, null, 2));
      else if (drills.length === 0) console.log('No drills are declared under drills in the config.');
      else for (const d of drills) console.log(`${d.name}  on ${d.host}  timeout ${formatDuration(d.timeoutMs)}  ${Object.entries(d.args).map(([k, v]) => `${k}=${v.join('|')}`).join(' ')}`);
      return 0;
    }
    const drillName = name ?? '';
    await engine.hosts.settle(CONNECT_TIMEOUT_MS);
    await engine.poll(); // the guard needs to know which loop phases are running
    let confirmation = flags.yes ? drillName : '';
    if (!flags.yes) {
      if (!process.stdin.isTTY) throw new CliError(`Pass --yes to run drill ${drillName} without a terminal to confirm in.`);
      confirmation = await ask(`Type the drill's name (${drillName}) to run it: `);
    }
    let runId = '';
    engine.subscribe((event, payload) => {
      if (event !== 'drill.output') return;
      const out = payload as EventPayload<'drill.output'>;
      if (out.runId === runId) process.stdout.write(out.text);
    });
    try {
      runId = await engine.drills.run({ name: drillName, args: drillArgs(flags), confirm: confirmation, overrideRunningPhase: flags.override ?? false });
    } catch (err) {
      throw new CliError((err as Error).message, 1);
    }
    let run = engine.drills.runs().find((r) => r.id === runId);
    while (run?.status === 'running') {
      await new Promise((r) => setTimeout(r, 300));
      await engine.poll();
      run = engine.drills.runs().find((r) => r.id === runId);
    }
    if (flags.json) console.log(JSON.stringify(run));
    else console.error(`loopdeck: drill ${drillName} ${run?.status} (rc ${run?.rc ?? 'none'}) — log on ${run?.host}: ${run?.logPath}`);
    return run?.rc ?? 1;
  } finally {
    await engine.close();
    store.close();
  }
}

/** The morning summary the Review screen copies: the same function on the same state, so both agree. */
function review(flags: Flags): Promise<number> {
  if (flags.markdown && flags.json) throw new CliError('--markdown and --json: pass one of them (the default is --markdown).');
  if (flags.since !== undefined && Number.isNaN(Date.parse(flags.since))) {
    throw new CliError(`--since: expected an ISO time such as 2026-11-30T07:00:00Z, got ${JSON.stringify(flags.since)}`);
  }
  return withState(flags, 'review', (snap) => {
    const summary = buildReviewSummary(snap, { now: Date.parse(snap.takenAt), since: flags.since ?? null });
    if (flags.json) console.log(JSON.stringify(summary, null, 2));
    else process.stdout.write(renderReviewMarkdown(summary));
  });
}

/** `loopdeck log`: a phase transcript's lines or grep hits, after the engine caught up (its index makes a jump one seek). */
async function log_(flags: Flags, words: readonly string[]): Promise<number> {
  const { engine, store } = await openEngine(flags, 'log');
  try {
    await engine.hosts.settle(CONNECT_TIMEOUT_MS);
    await engine.poll();
    for (let i = 0; engine.behind() && i < 1000; i++) await engine.poll();
    return await logTranscript(engine, words, flags, (text) => process.stdout.write(text));
  } catch (err) {
    if (err instanceof LogError) throw new CliError(err.message, err.exitCode);
    throw err;
  } finally {
    await engine.close();
    store.close();
  }
}

async function watch(flags: Flags): Promise<number> {
  const { engine, store } = await openEngine(flags, 'watch');
  engine.subscribe((event, payload) => {
    if (flags.json) console.log(JSON.stringify({ at: new Date().toISOString(), event, payload }));
    else if (event === 'loop.changed') {
      const { loop, upserted, removed, deadman } = payload as EventPayload<'loop.changed'>;
      const at = new Date().toISOString();
      for (const c of upserted) console.log(`${at} ${loop} ${c.date} ${c.status}  ${c.phases.map((p) => `${p.name}=${p.status}`).join('  ')}`);
      if (removed.length > 0) console.log(`${at} ${loop} no longer follows ${removed.join(', ')}`);
      if (deadman) console.log(`${at} ${loop} dead-man ${deadman.state}: ${deadman.reason}`);
    } else console.log(`${new Date().toISOString()} ${event}`);
  });
  const finish = new Promise<void>((ok) => {
    process.once('SIGINT', ok);
    process.once('SIGTERM', ok);
  });
  engine.run({
    onError: (err) => {
      log.error('poll failed', err);
      console.error(`loopdeck: poll failed: ${(err as Error).message}`);
    },
  });
  await finish;
  await engine.close();
  store.close();
  return 0;
}

async function serveCore(flags: Flags, configPath: string, dataDir: string, banner: string): Promise<number> {
  // Checked before anything starts: a bad --port must not leave a started core behind.
  return serveMode({ host: flags.host ?? '127.0.0.1', port: portOf(flags), configPath, dataDir, banner });
}

async function main(argv: readonly string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  const [command] = positionals;
  if (flags.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return command === undefined && !flags.help ? 2 : 0;
  }
  switch (command) {
    case 'serve':
      return serveCore(flags, flags.config ?? defaultConfigPath(), flags.data ?? defaultDataDir(), `loopdeck ${VERSION} (serve mode)`);
    case 'demo': {
      const speed = flags.speed === undefined ? 1 : Number(flags.speed);
      if (!(speed > 0)) throw new CliError(`--speed: expected a positive number, got ${JSON.stringify(flags.speed)}`);
      const demo = await startDemo({ speed });
      try {
        return await serveCore(flags, demo.configPath, join(demo.dir, 'data'), `Demo runner folder: ${demo.dir}`);
      } finally {
        await demo.stop();
      }
    }
    case 'check':
      return check(flags);
    case 'snapshot':
      return snapshot(flags);
    case 'review':
      return review(flags);
    case 'watch':
      return watch(flags);
    case 'trust':
      return trust(flags, positionals[1]);
    case 'untrust':
      return untrust(flags, positionals[1]);
    case 'drill':
      return drill(flags, positionals.slice(1));
    case 'log':
      return log_(flags, positionals.slice(1));
    default:
      throw new CliError(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // A data folder that cannot be used is the operator's to fix, and its message says how.
    const known = err instanceof CliError || err instanceof DataFolderError;
    const message = err instanceof Error ? (known || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? err.message : err.stack) : String(err);
    // Once the command opened its log (the data folder is known), the file keeps the stack too.
    if (!known && log.file !== null) log.error('the command failed', err);
    console.error(logSafe(`loopdeck: ${message}`));
    process.exitCode = err instanceof CliError ? err.exitCode : 2;
  },
);
