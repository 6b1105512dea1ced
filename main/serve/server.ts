import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';
import { SIGN_IN_RETURN_SCRIPT, SIGNED_OUT_CLOSE } from '../../shared/sign-in';
import type { ServeConfig } from '../core/config/serve-config';
import type { ServedSession } from '../rpc/client-session';
import { createWsTransport } from '../rpc/ws-transport';
import { isAdmitted, isSignInFirst, type Access, type AccessVerdict } from './auth/access';
import { oidcAccess } from './auth/oidc-access';
import { proxyAccess } from './auth/proxy-access';
import { tokenAccess } from './auth/token-access';
import { decodeOrNull, HostGuard } from './http-guard';
import { StaticFiles } from './static-files';

/** Options for serve mode. */
export interface ServeOptions {
  /** The session served (its commands wait for its start gate). */
  readonly session: ServedSession;
  /** Address to bind; loopback by default. */
  readonly host?: string;
  /** Port; 0 picks a free one. */
  readonly port?: number;
  /** The built renderer; `$LOOPDECK_RENDERER_DIR`, else `out/renderer` of this checkout. */
  readonly rendererDir?: string;
  /** The access token; random per run by default. */
  readonly token?: string;
  /** `serve:` of the config: the URL people open, and sign-in (`auth`) instead of the token. */
  readonly serve?: ServeConfig;
  /** Where `env:` secrets are read (process.env by default). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * A client whose unsent output passes this many bytes is dropped (it loads the summary again
   * when it reconnects) rather than buffered without bound; 8 MiB by default.
   */
  readonly maxBufferedBytes?: number;
  /**
   * Called once, when the page's scripts have been sent and no other file is being sent: the
   * browser then spends a few hundred ms compiling and running them before it opens the
   * WebSocket, which is when serve opens its core (~150 ms of the one thread at a year of
   * history) without delaying the page's files.
   */
  readonly onPageSent?: () => void;
}

/** A running serve-mode server. */
export interface Served {
  /** The URL to open: the token included when that is how serve is reached, else `serve.publicUrl` (or the bound address). */
  readonly url: string;
  /** How people are let in. */
  readonly access: Access['kind'];
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** The renderer build of this checkout. */
export const DEFAULT_RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

/**
 * Headers of every HTTP answer, errors included: the console's one CSP (shared/csp.ts, the same
 * policy the built index.html carries in its <meta> tag, plus frame-ancestors) and no sniffing,
 * referrers or framing.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY_HEADER,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

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
  '.webmanifest': 'application/manifest+json',
};

/**
 * Files served without the token or a sign-in: the web app's manifest and icons, which a browser
 * fetches without credentials when it installs the console (they hold nothing of the operator's).
 */
const PUBLIC_FILES: ReadonlySet<string> = new Set(['/manifest.webmanifest', '/icon-192.png', '/icon-512.png', '/favicon.svg']);

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS, ...headers });
  res.end(`${text}\n`);
}

/** An error answer instead of a file. */
function refuse(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): null {
  send(res, status, text, headers);
  return null;
}

/** The largest frame a client may send: requests are small. */
const MAX_FRAME_BYTES = 1024 * 1024;

/** The request target as a URL, or null when it does not parse (`new URL` throws on `http://[/`). */
function targetOf(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://placeholder');
  } catch {
    return null;
  }
}

/** Refuse an upgrade with a bare HTTP answer and drop the socket. */
function refuseUpgrade(socket: Socket, status: number): void {
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 502: 'Bad Gateway' }[status] ?? 'Error';
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  socket.destroySoon();
}

/** The file a static answer sent, or null when it sent an error instead. */
function serveStatic(files: StaticFiles, rendererDir: string, pathname: string, res: ServerResponse, extra: Record<string, string>): string | null {
  const root = resolve(rendererDir);
  const decoded = pathname === '/' ? 'index.html' : decodeOrNull(pathname);
  if (decoded === null) return refuse(res, 400, 'Bad request: the path has malformed %-escapes.', extra);
  const rel = decoded.replace(/^\/+/, '');
  const file = resolve(join(root, rel));
  if (file !== root && !file.startsWith(root + sep)) return refuse(res, 404, 'Not found.');
  if (!existsSync(join(root, 'index.html'))) {
    return refuse(res, 503, `Loopdeck's renderer is not built (no ${join(root, 'index.html')}). Run \`npm run build:renderer\`, then reload.`);
  }
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) return refuse(res, 404, 'Not found.');
  const headers = {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': rel === 'index.html' ? 'no-store' : 'private, max-age=3600',
    ...SECURITY_HEADERS,
    ...extra,
  };
  let body: Buffer | null;
  try {
    body = files.body(file, stat);
  } catch {
    // Gone or unreadable between the check and the read.
    return refuse(res, 500, 'The file could not be read.');
  }
  if (body) {
    res.writeHead(200, { ...headers, 'content-length': String(body.length) });
    res.end(body);
    return file;
  }
  res.writeHead(200, headers);
  const stream = createReadStream(file);
  // Gone or unreadable between the check and the read: end the answer, never the process.
  stream.on('error', () => res.destroy());
  stream.pipe(res);
  return file;
}

/** The page a browser without a sign-in gets: its script goes to sign in and back to the view asked for; the link is for a browser without scripts. */
function signInPage(href: string): string {
  const h = href.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<!doctype html><meta charset="utf-8"><title>Loopdeck: sign in</title><script src="${SIGN_IN_RETURN_SCRIPT}"></script><p>Loopdeck needs you to sign in. <a href="${h}">Sign in</a></p>`;
}

/** The access `serve` (the config's `serve.auth`) asks for. */
function accessFor(options: ServeOptions, token: string, publicUrl: string): Access {
  const auth = options.serve?.auth;
  if (auth?.oidc) return oidcAccess({ auth: { ...auth, oidc: auth.oidc }, publicUrl, answer: send, ...(options.env ? { env: options.env } : {}) });
  if (auth?.proxyHeader) return proxyAccess({ ...auth, proxyHeader: auth.proxyHeader });
  return tokenAccess(token);
}

/**
 * Serve the built renderer, and the WebSocket transport (main/rpc) on `/ws`, on loopback. Every
 * request and upgrade names our own Host (or `serve.publicUrl`'s) and, when it sends one, our own
 * Origin; then the access decides who it is: the per-run token (query or cookie) by default, an
 * OIDC sign-in or a trusted proxy's header with `serve.auth`. An upgrade authenticated by a cookie
 * or a proxy must name our Origin. HTTP only here: the frames and the clients are the transport's.
 */
export async function startServer(options: ServeOptions): Promise<Served> {
  const bindHost = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const rendererDir = options.rendererDir ?? (process.env.LOOPDECK_RENDERER_DIR || DEFAULT_RENDERER_DIR);

  const maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  let guard: HostGuard | null = null;
  let access: Access | null = null;
  // Static answers being sent, and whether a script was among them (for onPageSent).
  let sending = 0;
  let scriptSent = false;
  let onPageSent = options.onPageSent;
  const files = new StaticFiles();
  const sent = (file: string): void => {
    sending -= 1;
    if (extname(file) === '.js') scriptSent = true;
    if (sending > 0 || !scriptSent || !onPageSent) return;
    const fire = onPageSent;
    onPageSent = undefined;
    fire();
  };

  /** The access's verdict on a request that passed the host guard. */
  const admit = (req: IncomingMessage, url: URL, upgrade: boolean): AccessVerdict => {
    if (!guard || !access) return { status: 403, message: 'Starting.' };
    const place = guard.check(req);
    if (place) return place;
    const verdict = access.check(req, url, upgrade);
    if (upgrade && isAdmitted(verdict) && verdict.ambient) return guard.check(req, true) ?? verdict;
    return verdict;
  };

  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const url = targetOf(req);
    if (!url) return send(res, 400, 'Bad request: the request target does not parse as a URL.');
    if (!guard || !access) return send(res, 503, 'Starting.');
    const place = guard.check(req);
    if (place) return send(res, place.status, place.message);
    if (access.route(req, res, url)) return;
    if (PUBLIC_FILES.has(url.pathname) && (req.method === 'GET' || req.method === 'HEAD')) {
      serveStatic(files, rendererDir, url.pathname, res, {});
      return;
    }
    const verdict = admit(req, url, false);
    if (isSignInFirst(verdict)) return send(res, 401, signInPage(verdict.signIn), { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    if (!isAdmitted(verdict)) return send(res, verdict.status, verdict.message);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed.', { allow: 'GET, HEAD' });
    const file = serveStatic(files, rendererDir, url.pathname, res, verdict.setCookie ? { 'set-cookie': verdict.setCookie } : {});
    if (file === null) return;
    sending += 1;
    res.once('close', () => sent(file));
  };

  // Whatever a request holds, it gets an answer (400 if nothing better) and the process lives on.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    try {
      answer(req, res);
    } catch {
      if (res.headersSent) res.destroy();
      else send(res, 400, 'Bad request.');
    }
  });

  // The contract over the socket (main/rpc's WebSocket transport): each client its own handlers,
  // numbering and bound on unsent output, and its caller (whose role decides what it may send).
  const transport = createWsTransport(options.session, { maxBufferedBytes: maxBuffered });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // Until ws takes the socket over, nothing else listens for its errors (a reset would be fatal).
    socket.on('error', () => socket.destroy());
    try {
      const url = targetOf(req);
      if (!url) return refuseUpgrade(socket, 400);
      const verdict = admit(req, url, true);
      if (!isAdmitted(verdict)) return refuseUpgrade(socket, isSignInFirst(verdict) ? 401 : verdict.status);
      if (url.pathname !== '/ws') return refuseUpgrade(socket, 404);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const who = `serve client ${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'} (${verdict.caller.user})`;
        transport.connect(ws, who, verdict.caller);
        // A sign-in that ends (expired, signed out) ends its sockets: the page signs in again.
        const end = (): void => ws.close(SIGNED_OUT_CLOSE, 'signed out');
        const timer = verdict.endsAt === undefined ? null : setTimeout(end, Math.max(0, verdict.endsAt - Date.now()));
        timer?.unref();
        const off = verdict.onEnd?.(end);
        ws.once('close', () => {
          if (timer) clearTimeout(timer);
          off?.();
        });
      });
    } catch {
      refuseUpgrade(socket, 400);
    }
  });

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, bindHost, () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  const names = bindHost === '127.0.0.1' || bindHost === 'localhost' ? ['127.0.0.1', 'localhost'] : [bindHost];
  const bracket = (n: string): string => (n.includes(':') ? `[${n}]` : n);
  const hosts = names.map((n) => `${bracket(n)}:${port}`);
  const publicUrl = options.serve?.publicUrl ? new URL(options.serve.publicUrl) : null;
  if (publicUrl) hosts.push(publicUrl.host);
  const origins = [...hosts.map((h) => `http://${h}`), ...(publicUrl ? [publicUrl.origin] : [])];
  guard = new HostGuard(hosts, origins);
  const shown = `http://${bracket(bindHost)}:${port}`;
  access = accessFor(options, token, publicUrl?.origin ?? shown);

  return {
    url: access.kind === 'token' ? `${shown}/?token=${token}` : `${publicUrl?.origin ?? shown}/`,
    access: access.kind,
    port,
    token,
    close: async () => {
      transport.close();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
