import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { log } from '../logging/log';
import { loopMetricsRegistry } from './loop-metrics';
import { parseListen, type MetricsConfig } from '../config/metrics-config';
import type { MetricsSource } from './metrics-state';
import type { ProblemKey } from '../state/problem-key';

/** The key the exporter's problem is kept under (a space: no loop name can collide with it). */
const PROBLEM_KEY: ProblemKey = 'config metrics.listen';

/**
 * Sockets the exporter holds at once: a Prometheus or two and a person with curl need a few. At
 * the limit a new connection closes the oldest socket that is not answering a request (one that
 * stalled mid-request or sits idle between scrapes), so a flood of slow connections cannot lock
 * the scrapers out; only when every socket is being answered is the new one closed.
 */
export const MAX_METRICS_CONNECTIONS = 32;
/** A request's headers must arrive within this (a scraper sends them at once). */
export const METRICS_HEADERS_TIMEOUT_MS = 5_000;
/** A whole request, answer included, within this. */
export const METRICS_REQUEST_TIMEOUT_MS = 10_000;
/** An idle keep-alive socket between scrapes is closed after this (Prometheus reconnects). */
export const METRICS_KEEP_ALIVE_MS = 5_000;
/** A socket with no traffic either way for this long is destroyed, whatever state it is in. */
export const METRICS_SOCKET_IDLE_MS = 10_000;
/**
 * How often the server checks the header and request timeouts. Node checks every 30 s by
 * default, which kept a socket that sent half a request line open 30 s past its 5 s timeout.
 */
const TIMEOUT_CHECK_MS = 1_000;

/** A running exporter; `close` frees the port. */
export interface MetricsExporter {
  /** The bound address (`host:port`), or null when it could not bind. */
  readonly address: string | null;
  close(): Promise<void>;
}

/**
 * Serve `GET /metrics` for one engine at `metrics.listen`. A port that cannot be bound does not
 * stop the app: it becomes a problem naming `metrics.listen` (shown with the other problems) and
 * the exporter stays closed until the next start.
 */
export async function startMetricsExporter(config: MetricsConfig, source: MetricsSource, configPath?: string): Promise<MetricsExporter> {
  const listen = parseListen(config.listen);
  // The schema accepted it; parse again only to bind.
  if (!listen) throw new Error(`metrics.listen: ${JSON.stringify(config.listen)} is not "host:port"`);
  if (!listen.loopback) {
    log.warn(`metrics.listen is ${config.listen}, not loopback (metrics.exposed is set): anyone who can reach it can read /metrics — the loops' states and host and loop names.`);
  }
  const registry = loopMetricsRegistry(() => source.liveState());
  const server = createServer(
    { headersTimeout: METRICS_HEADERS_TIMEOUT_MS, requestTimeout: METRICS_REQUEST_TIMEOUT_MS, keepAliveTimeout: METRICS_KEEP_ALIVE_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
    (req, res) => void answer(req, res, () => registry.metrics(), registry.contentType),
  );
  boundConnections(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: listen.host, port: listen.port, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    const message = bindFailure(config.listen, err as NodeJS.ErrnoException, configPath);
    log.error(message);
    source.signals.signal('problem', { key: PROBLEM_KEY, problem: { source: 'metrics.listen', line: null, message } });
    return { address: null, close: async () => undefined };
  }
  source.signals.signal('problem', { key: PROBLEM_KEY, problem: null });
  server.on('error', (err) => log.error(`/metrics server on ${config.listen} failed`, err));
  const bound = server.address() as AddressInfo;
  const address = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  log.info(`serving /metrics on http://${address}/metrics`);
  return { address, close: () => closeServer(server) };
}

/**
 * Hold at most MAX_METRICS_CONNECTIONS sockets (see there) and destroy any socket idle for
 * METRICS_SOCKET_IDLE_MS. `server.maxConnections` alone would refuse the scrapers once slow
 * connections fill it; it stays one above the bound as a backstop.
 */
function boundConnections(server: Server): void {
  const open = new Set<Socket>();
  const answering = new Set<Socket>();
  server.maxConnections = MAX_METRICS_CONNECTIONS + 1;
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(METRICS_SOCKET_IDLE_MS, () => socket.destroy());
    socket.once('close', () => {
      open.delete(socket);
      answering.delete(socket);
    });
    if (open.size >= MAX_METRICS_CONNECTIONS) {
      // A Set iterates in insertion order: the oldest first.
      let victim: Socket | undefined;
      for (const s of open) {
        if (!answering.has(s)) {
          victim = s;
          break;
        }
      }
      if (!victim) {
        socket.destroy();
        return;
      }
      open.delete(victim);
      victim.destroy();
    }
    open.add(socket);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    answering.add(socket);
    res.once('close', () => answering.delete(socket));
  });
}

async function answer(req: IncomingMessage, res: ServerResponse, metrics: () => Promise<string>, contentType: string): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'Only GET and HEAD are answered.\n', { Allow: 'GET, HEAD' });
  if (path !== '/metrics') return reply(res, 404, 'Not found: Loopdeck serves only /metrics here.\n');
  try {
    const body = await metrics();
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (err) {
    log.error('collecting /metrics failed', err);
    reply(res, 500, 'Collecting the metrics failed; see the Loopdeck log.\n');
  }
}

function reply(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

/** One sentence naming the key, the address and what to do. */
function bindFailure(listen: string, err: NodeJS.ErrnoException, configPath?: string): string {
  const where = `metrics.listen (${listen}${configPath ? ` in ${configPath}` : ''})`;
  const why =
    err.code === 'EADDRINUSE'
      ? 'the port is already in use (another Loopdeck or exporter?): free it or choose another port'
      : err.code === 'EADDRNOTAVAIL'
        ? 'that address is not one of this machine\'s: use "127.0.0.1:<port>" or an address of this machine'
        : err.code === 'EACCES'
          ? 'binding that port is not permitted: choose a port above 1023'
          : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
            ? 'the host name does not resolve: use an IP address'
            : `${err.message}`;
  return `/metrics is not served: ${where}: ${why}, then restart Loopdeck.`;
}

/** Close the server and the scrapers' keep-alive connections, so the port is free when this resolves. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
