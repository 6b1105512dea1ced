import { createAppCore } from './core/app-core';
import { startLogging } from './core/logging/log';
import { startServer } from './serve/server';
import { whenStarted } from './serve/starting-core';

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
 * Serve mode until SIGINT/SIGTERM: the core behind the HTTP and WebSocket server. The server
 * listens and the URL is printed first. The core (the config, the store and the saved summary:
 * ~150 ms of the one thread at a year of history) opens once the page's scripts are sent, while
 * the browser compiles them; done at once, it delayed the page's first answer by as much. A
 * command before then opens it at once, and it opens CORE_OPEN_LATEST_MS after the URL whatever
 * happens. Commands wait for it.
 */
export async function serveMode(o: ServeModeOptions): Promise<number> {
  // Warnings and errors also reach the terminal serve runs in; the file has them all.
  const logger = startLogging(o.dataDir, 'serve', { stderrLevel: 'warn' });
  const core = createAppCore({ configPath: o.configPath, dataDir: o.dataDir, shell: 'serve' });
  let begin: () => void = () => undefined;
  const started = new Promise<void>((go) => (begin = go)).then(() => core.start());
  // Awaited below, after the URL is out; until then a failure must not count as unhandled.
  started.catch(() => undefined);
  const served = await startServer({ core: whenStarted(core, started, begin), host: o.host, port: o.port, onPageSent: begin });
  core.setConsoleUrl(served.url.replace(/\?token=.*$/, ''));
  if (o.host !== '127.0.0.1' && o.host !== 'localhost' && o.host !== '::1') {
    console.warn(`loopdeck: warning: listening on ${o.host}, not loopback: anyone who can reach it and has the token can use the console.`);
  }
  console.log(`${o.banner}\nLoopdeck is serving at ${served.url}`);
  console.log('Open that URL in a browser (the token is required). Press Ctrl+C to stop.');
  console.log(`Log: ${logger.file}`);
  const latest = setTimeout(begin, CORE_OPEN_LATEST_MS);
  try {
    await started;
  } catch (err) {
    await served.close();
    await core.close();
    throw err;
  } finally {
    clearTimeout(latest);
  }
  await new Promise<void>((ok) => {
    process.once('SIGINT', ok);
    process.once('SIGTERM', ok);
  });
  await served.close();
  await core.close();
  return 0;
}
