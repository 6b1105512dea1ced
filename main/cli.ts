import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfigPath } from './core/config/load-config';
import { defaultDataDir } from './core/config/paths';
import { DataFolderError } from './core/config/data-folder';
import { VERSION } from './core/config/version';
import { CliError, DESK_OPTIONS, OPTIONS, portOf, type Flags } from './cli-args';
import { log } from './core/logging/log';
import { logSafe } from './core/logging/log-text';

// The CLI's entry: the usage, the verbs and the exit codes. Each verb's code is imported when it is
// asked for: the bundle (scripts/build-cli.mjs) splits there, so `serve` parses and runs only what
// it needs before it prints its URL (the core opens after: session.ts), not every verb's.

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
  loopdeck compare  LOOP DATE [DATE] [--config FILE] [--data DIR] [--now ISO] [--json]
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

async function serveCore(flags: Flags, configPath: string, dataDir: string, banner: string): Promise<number> {
  // Checked before anything starts: a bad --port must not leave a started core behind.
  const { serveMode } = await import('./cli-serve');
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
      const [{ startDemo }, { MIGRATIONS }] = await Promise.all([import('./core/demo/demo-runner'), import('./core/engine/migrations')]);
      const demo = await startDemo({ speed, migrations: MIGRATIONS });
      try {
        return await serveCore(flags, demo.configPath, join(demo.dir, 'data'), `Demo runner folder: ${demo.dir}`);
      } finally {
        await demo.stop();
      }
    }
    case 'check':
      return (await import('./cli-read')).check(flags);
    case 'schema': {
      const { configJsonSchema } = await import('./core/config/config-json-schema');
      console.log(JSON.stringify(configJsonSchema(), null, 2));
      return 0;
    }
    case 'snapshot':
      return (await import('./cli-read')).snapshot(flags);
    case 'review':
      return (await import('./cli-read')).review(flags);
    case 'watch':
      return (await import('./cli-read')).watch(flags);
    case 'trust':
      return (await import('./cli-hosts')).trust(flags, positionals[1]);
    case 'untrust':
      return (await import('./cli-hosts')).untrust(flags, positionals[1]);
    case 'drill':
      return (await import('./cli-drill')).drill(flags, positionals.slice(1));
    case 'trends':
      return (await import('./cli-trends')).trends(flags, positionals.slice(1));
    case 'compare':
      return (await import('./cli-compare')).compare(flags, positionals.slice(1));
    case 'log':
      return (await import('./cli-read')).logVerb(flags, positionals.slice(1));
    case 'preflight':
      return (await import('./cli-preflight')).preflight(flags, positionals[1]);
    case 'prs':
      return (await import('./cli-prs')).prs(flags, positionals.slice(1));
    case 'merge':
      return (await import('./cli-merge')).merge(flags, positionals.slice(1));
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
