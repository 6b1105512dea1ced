import { readFile } from 'node:fs/promises';
import { loadConfig, type LoadedConfig } from './core/config/load-config';
import type { ServeConfig } from './core/config/serve-config';
import { createSession } from './core/session/session';
import { CliError } from './cli-args';
import { startLogging } from './core/logging/log';
import { startTimerStats } from './core/logging/timer-stats';
import { ensureRenderer } from './serve/renderer-build';
import { DEFAULT_RENDERER_DIR, startServer } from './serve/server';

/** What `loopdeck serve` (and `demo`) run with. */
export interface ServeModeOptions {
  readonly host: string;
  readonly port: number;
  readonly configPath: string;
  readonly dataDir: string;
  /** The first line printed. */
  readonly banner: string;
}

/**
 * At the latest, how long after the URL is printed the core opens when no page has loaded and no
 * command has come (ms): serve follows its loops whether or not a browser is open.
 */
export const CORE_OPEN_LATEST_MS = 1000;

/**
 * The config's `serve:` section, read once before serve listens (a change needs a restart), and
 * the load itself, which the session's first open uses rather than parse the file twice. A
 * config that does not load serves with the token and shows its error, unless it asks for
 * `serve.auth`: then serve refuses to start rather than fall back to a weaker way in.
 */
async function serveSection(configPath: string): Promise<{ readonly serve: ServeConfig | undefined; readonly loaded: LoadedConfig }> {
  const loaded = await loadConfig(configPath);
  if (loaded.state === 'loaded') return { serve: loaded.config.serve, loaded };
  if (loaded.state === 'missing') return { serve: undefined, loaded };
  // Not parsed (it does not load): a top-level `serve:` with an `auth:` under it is enough to refuse.
  const text = await readFile(configPath, 'utf8').catch(() => '');
  if (/^serve:/m.test(text) && /^[ \t]+auth:/m.test(text)) {
    throw new CliError(`${configPath} sets serve.auth but does not load, so serve will not start without its sign-in:\n${loaded.error.message}`, 2);
  }
  return { serve: undefined, loaded };
}

/**
 * Serve mode until SIGINT/SIGTERM: the session behind the HTTP and WebSocket server. The server
 * listens and the URL is printed first (before it, only the CLI's entry, the config and the server
 * are loaded: the bundle is split); then the core's code loads while the browser navigates. The
 * session (the store, the saved summary and the SSH connections: ~150 ms of the one thread at a year of history) opens
 * once the page's scripts are sent, while the browser compiles them; done at once, it delayed the
 * page's first answer by as much. The fleet's and GitHub's pollers start once the first read is due. A
 * command before then opens it at once (the session's start gate), and it opens
 * CORE_OPEN_LATEST_MS after the URL whatever happens.
 */
export async function serveMode(o: ServeModeOptions): Promise<number> {
  // Warnings and errors also reach the terminal serve runs in; the file has them all.
  ensureRenderer(process.env.LOOPDECK_RENDERER_DIR || DEFAULT_RENDERER_DIR);
  const logger = startLogging(o.dataDir, 'serve', { stderrLevel: 'warn' });
  // A diagnostic for `npm run bench` (figure 8a): who wakes serve, how often, at what cost.
  if (process.env.LOOPDECK_TIMER_STATS) startTimerStats(process.env.LOOPDECK_TIMER_STATS);
  const { serve, loaded } = await serveSection(o.configPath);
  const session = createSession({ configPath: o.configPath, dataDir: o.dataDir, shell: 'serve', loaded });
  const open = (): void => void session.start();
  const served = await startServer({ session, host: o.host, port: o.port, onPageSent: open, ...(serve ? { serve } : {}) });
  session.setConsoleUrl(served.url.replace(/\?token=.*$/, ''));
  if (o.host !== '127.0.0.1' && o.host !== 'localhost' && o.host !== '::1') {
    const who = { token: 'has the token', oidc: 'signs in', proxy: 'sends the proxy header from a trusted address' }[served.access];
    console.warn(`loopdeck: warning: listening on ${o.host}, not loopback: anyone who can reach it and ${who} can use the console.`);
  }
  console.log(`${o.banner}\nLoopdeck is serving at ${served.url}`);
  const how = { token: 'the token is required', oidc: `people sign in with ${serve?.auth?.oidc?.issuer ?? 'the provider'}`, proxy: `the proxy in front names them in ${serve?.auth?.proxyHeader ?? 'its header'}` }[served.access];
  console.log(`Open that URL in a browser (${how}). Press Ctrl+C to stop.`);
  console.log(`Log: ${logger.file}`);
  const latest = setTimeout(open, CORE_OPEN_LATEST_MS);
  // While the browser starts its navigation (tens of ms before the page is asked for): the core's
  // code, so the open that the page's scripts trigger only reads the store and the saved summary.
  setImmediate(() => void session.prepare().catch((err: unknown) => logger.warn(`could not load the core ahead of the page: ${String(err)}`)));
  try {
    await session.started;
  } catch (err) {
    await served.close();
    await session.close();
    throw err;
  } finally {
    clearTimeout(latest);
  }
  await new Promise<void>((ok) => {
    process.once('SIGINT', ok);
    process.once('SIGTERM', ok);
  });
  await served.close();
  await session.close();
  return 0;
}
