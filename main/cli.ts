import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfigPath } from './core/config/load-config';
import { startDemo } from './core/demo/demo-runner';
import { defaultDataDir } from './core/config/paths';
import { DataFolderError } from './core/config/data-folder';
import { VERSION } from './core/config/version';
import { buildReviewSummary, renderReviewMarkdown } from '../shared/review-summary';
import { printSnapshot } from './cli-terminal';
import { configJsonSchema } from './core/config/config-json-schema';
import { CliError, CONNECT_TIMEOUT_MS, OPTIONS, openEngine, portOf, withState, loadedConfig, type Flags } from './cli-common';
import { trust, untrust } from './cli-hosts';
import { drill } from './cli-drill';
import { preflight } from './cli-preflight';
import { trends } from './cli-trends';
import { DESK_OPTIONS, prs } from './cli-prs';
import { merge } from './cli-merge';
import { log } from './core/logging/log';
import { logSafe } from './core/logging/log-text';
import { serveMode } from './cli-serve';
import { checkLogUsage, LogError, logTranscript } from './cli-transcript';
import { messageOf } from '../shared/errors';

const USAGE = `loopdeck ${VERSION} — operations console for overnight agent loops

Usage:
  loopdeck serve    [--config FILE] [--data DIR] [--port N] [--host ADDR]
  loopdeck demo     [--port N] [--speed X]
  loopdeck check    [--config FILE]
  loopdeck schema   (the config's JSON Schema, for an editor)
  loopdeck snapshot [--config FILE] [--data DIR] [--now ISO] [--json]
  loopdeck review   [--config FILE] [--data DIR] [--since ISO] [--markdown | --json]
  loopdeck watch    [--config FILE] [--data DIR] [--json]
  loopdeck trust    HOST [--config FILE] [--data DIR] [--yes]
  loopdeck untrust  HOST [--config FILE] [--data DIR] [--yes]
  loopdeck log      LOOP [DATE] PHASE [--lines N] [--from LINE] [--grep RE] [--follow] [--raw]
  loopdeck trends   [LOOP] [--config FILE] [--data DIR] [--nights N] [--now ISO] [--json]
  loopdeck drill    list [--json]
  loopdeck drill    run NAME [--arg k=v ...] [--yes] [--override] [--json]
  loopdeck preflight [LOOP] [--config FILE] [--data DIR] [--json]
  loopdeck prs      [LOOP] [--config FILE] [--data DIR] [--json]
  loopdeck merge    LOOP NUMBER --sha SHA [--method merge|squash|rebase] [--yes]

  --config FILE  the config (default ${defaultConfigPath()})
  --data DIR     the data folder holding loopdeck.db (default ${defaultDataDir()})
  --port N       serve on this port (default: a free one)
  --host ADDR    bind address (default 127.0.0.1; anything else exposes the console to the network)
  --now ISO      pin the clock, so a snapshot or trends is reproducible
  --since ISO    the review's window start (default: when last marked reviewed, else 24 h ago)
  --markdown     the review as Markdown to paste (the default; --json prints its model)
  --json         machine-readable output
  --yes          trust without asking (after comparing the fingerprint out of band); forget a
                 trusted key without asking; run a drill without typing its name; merge without asking
  --arg k=v      a drill argument (one of the values the config allows)
  --override     run a drill although a loop phase on its host is running (recorded)
  --nights N     trends: the window in nights (default 30; the kept nights reach back each loop's history)
  --lines N      log: how many lines (default 50: the last ones, or from --from)
  --from LINE    log: start at this line (1-based)
  --grep RE      log: the lines matching an extended regex, searched on the host, with their numbers
  --follow       log: go on printing lines as they arrive, until Ctrl-C
  --raw          log: keep escape sequences (default: stripped)
  --sha SHA      merge: the head commit you reviewed (40 hex digits; a PR that moved since is refused)
  --method M     merge: merge, squash or rebase (default: prs.mergeMethod in the config)
`;

async function check(flags: Flags): Promise<number> {
  const loaded = await loadedConfig(flags);
  const c = loaded.config;
  const count = (o: object): number => Object.keys(o).length;
  console.log(
    `${loaded.path}: OK — ${count(c.hosts)} host(s), ${count(c.loops)} loop(s), ${count(c.proxies)} prox(ies), ${count(c.drills)} drill(s).`,
  );
  return 0;
}

function snapshot(flags: Flags): Promise<number> {
  return withState(flags, 'snapshot', (snap) => (flags.json ? console.log(JSON.stringify(snap, null, 2)) : printSnapshot(snap)));
}

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
  try {
    // A usage mistake needs neither the hosts nor the store.
    checkLogUsage(words, flags);
    const core = await openEngine(flags, 'log');
  const { engine, services } = core;
    try {
      await services.hosts.settle(CONNECT_TIMEOUT_MS);
      await engine.poll();
      for (let i = 0; engine.behind() && i < 1000; i++) await engine.poll();
      return await logTranscript(core, words, flags, (text) => process.stdout.write(text));
    } finally {
      await core.close();
    }
  } catch (err) {
    if (err instanceof LogError) throw new CliError(err.message, err.exitCode);
    throw err;
  }
}

async function watch(flags: Flags): Promise<number> {
  const core = await openEngine(flags, 'watch');
  const { engine, services } = core;
  services.subscribe((event, payload) => {
    if (flags.json) console.log(JSON.stringify({ at: new Date().toISOString(), event, payload }));
    else if (event === 'loop.changed') {
      const { loop, upserted, removed, deadman } = payload;
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
      console.error(`loopdeck: poll failed: ${messageOf(err)}`);
    },
  });
  await finish;
  await core.close();
  return 0;
}

async function serveCore(flags: Flags, configPath: string, dataDir: string, banner: string): Promise<number> {
  // Checked before anything starts: a bad --port must not leave a started core behind.
  return serveMode({ host: flags.host ?? '127.0.0.1', port: portOf(flags), configPath, dataDir, banner });
}

async function main(argv: readonly string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({ args: [...argv], options: { ...OPTIONS, ...DESK_OPTIONS }, allowPositionals: true, strict: true });
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
    case 'schema':
      console.log(JSON.stringify(configJsonSchema(), null, 2));
      return 0;
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
    case 'trends':
      return trends(flags, positionals.slice(1));
    case 'log':
      return log_(flags, positionals.slice(1));
    case 'preflight':
      return preflight(flags, positionals[1]);
    case 'prs':
      return prs(flags, positionals.slice(1));
    case 'merge':
      return merge(flags, positionals.slice(1));
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
