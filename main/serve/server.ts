import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { WsRequestSchema, type EventName } from '../../shared/contract';
import { dispatch, type Handlers } from '../rpc/dispatch';
import { HttpGuard } from './http-guard';

/** What serve mode needs from the core. */
export interface ServedCore {
  readonly handlers: Handlers;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
}

/** Options for serve mode. */
export interface ServeOptions {
  readonly core: ServedCore;
  /** Address to bind; loopback by default. */
  readonly host?: string;
  /** Port; 0 picks a free one. */
  readonly port?: number;
  /** The built renderer; `out/renderer` of this checkout by default. */
  readonly rendererDir?: string;
  /** The access token; random per run by default. */
  readonly token?: string;
}

/** A running serve-mode server. */
export interface Served {
  /** The URL to open, token included. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** The renderer build of this checkout. */
export const DEFAULT_RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

/** The Content-Security-Policy of every page: no inline script, nothing from elsewhere. */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(`${text}\n`);
}

function serveStatic(rendererDir: string, pathname: string, res: ServerResponse, extra: Record<string, string>): void {
  const root = resolve(rendererDir);
  const rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '');
  const file = resolve(join(root, rel));
  if (file !== root && !file.startsWith(root + sep)) return send(res, 404, 'Not found.');
  if (!existsSync(join(root, 'index.html'))) {
    return send(res, 503, `Loopdeck's renderer is not built (no ${join(root, 'index.html')}). Run \`npm run build:renderer\`, then reload.`);
  }
  if (!existsSync(file) || !statSync(file).isFile()) return send(res, 404, 'Not found.');
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': rel === 'index.html' ? 'no-store' : 'private, max-age=3600',
    ...extra,
  });
  createReadStream(file).pipe(res);
}

/**
 * Serve the built renderer and the WebSocket transport on loopback. Every request and upgrade
 * needs the per-run token (query or cookie), our own Host, and our own Origin when one is sent.
 */
export async function startServer(options: ServeOptions): Promise<Served> {
  const bindHost = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const rendererDir = options.rendererDir ?? DEFAULT_RENDERER_DIR;
  const security = {
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  };
  let guard: HttpGuard | null = null;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (!guard) return send(res, 503, 'Starting.');
    const verdict = guard.check(req, url);
    if ('status' in verdict) return send(res, verdict.status, verdict.message, security);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed.', { allow: 'GET, HEAD' });
    const extra: Record<string, string> = { ...security };
    if (verdict.via === 'query') extra['set-cookie'] = guard.cookie();
    serveStatic(rendererDir, url.pathname, res, extra);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const verdict = guard?.check(req, url) ?? { status: 403 as const, message: 'Starting.' };
    if (url.pathname !== '/ws' || 'status' in verdict) {
      const status = 'status' in verdict ? verdict.status : 404;
      socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found'}\r\nconnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    ws.on('message', (data) => {
      let frame: unknown;
      try {
        frame = JSON.parse(String(data));
      } catch {
        ws.close(1008, 'frames are JSON');
        return;
      }
      const request = WsRequestSchema.safeParse(frame);
      if (!request.success) {
        ws.close(1008, 'expected {id, name, input}');
        return;
      }
      void dispatch(options.core.handlers, request.data.name, request.data.input).then((result) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id: request.data.id, result }));
      });
    });
  });

  const unsubscribe = options.core.subscribe((event, payload) => {
    const frame = JSON.stringify({ type: 'event', event, payload });
    for (const client of wss.clients) if (client.readyState === client.OPEN) client.send(frame);
  });

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, bindHost, () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  const names = bindHost === '127.0.0.1' || bindHost === 'localhost' ? ['127.0.0.1', 'localhost'] : [bindHost];
  const bracket = (n: string): string => (n.includes(':') ? `[${n}]` : n);
  guard = new HttpGuard(token, names.map((n) => `${bracket(n)}:${port}`));
  const shown = bracket(bindHost);

  return {
    url: `http://${shown}:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      unsubscribe();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
