import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** One message the test server accepted, with the form fields as sent. */
export interface PushoverMessage {
  readonly request: string;
  readonly receipt: string | null;
  readonly fields: Readonly<Record<string, string>>;
}

/** An emergency's receipt as the test server keeps it. */
export interface PushoverReceipt {
  readonly receipt: string;
  acknowledgedAt: number | null;
  expiresAt: number;
  expired: boolean;
  cancelled: boolean;
}

/** A running local server speaking Pushover's messages and receipts API. */
export interface PushoverTestServer {
  /** Base URL, for `notify.pushover.baseUrl`. */
  readonly url: string;
  readonly messages: readonly PushoverMessage[];
  readonly receipts: ReadonlyMap<string, PushoverReceipt>;
  /** Mark a receipt acknowledged, as if on the phone (`at` defaults to the server's clock). */
  acknowledge(receipt: string, at?: Date): void;
  /** Mark a receipt expired. */
  expire(receipt: string): void;
  /** Answer the next `times` message posts with this HTTP status (5xx: an outage; 4xx: a refusal). */
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

/** What the test server accepts: the one application token and user key it knows. */
export interface PushoverTestServerOptions {
  readonly token: string;
  readonly user: string;
  readonly host?: string;
  readonly port?: number;
  readonly now?: () => Date;
}

async function readFields(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    const obj = JSON.parse(text || '{}') as Record<string, unknown>;
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, String(v)]));
  }
  return Object.fromEntries(new URLSearchParams(text));
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Start the server on loopback (a free port unless one is given). */
export async function startPushoverTestServer(opts: PushoverTestServerOptions): Promise<PushoverTestServer> {
  const now = opts.now ?? (() => new Date());
  const messages: PushoverMessage[] = [];
  const receipts = new Map<string, PushoverReceipt>();
  let failures: { status: number; left: number } | null = null;
  const id = (): string => randomBytes(15).toString('hex');

  const messagesApi = (fields: Record<string, string>, res: ServerResponse): void => {
    const request = id();
    const refuse = (errors: string[], extra: Record<string, string> = {}): void => reply(res, 400, { ...extra, errors, status: 0, request });
    if (failures && failures.left > 0) {
      failures.left -= 1;
      return reply(res, failures.status, { errors: [`simulated HTTP ${failures.status}`], status: 0, request });
    }
    if (fields.token !== opts.token) return refuse(['application token is invalid'], { token: 'invalid' });
    if (fields.user !== opts.user) return refuse(['user identifier is not a valid user, group, or subscribed user key'], { user: 'invalid' });
    const message = fields.message ?? '';
    if (message.trim() === '') return refuse(['message cannot be blank'], { message: 'invalid' });
    if (message.length > 1024) return refuse(['message is too long (1024 characters maximum)'], { message: 'invalid' });
    if ((fields.title ?? '').length > 250) return refuse(['title is too long (250 characters maximum)'], { title: 'invalid' });
    const priority = Number(fields.priority ?? '0');
    if (![-2, -1, 0, 1, 2].includes(priority)) return refuse(['priority is invalid'], { priority: 'invalid' });
    let receipt: string | null = null;
    if (priority === 2) {
      const retry = Number(fields.retry);
      const expire = Number(fields.expire);
      if (!Number.isInteger(retry) || retry < 30) return refuse(['retry must be at least 30 seconds'], { retry: 'invalid' });
      if (!Number.isInteger(expire) || expire < 1 || expire > 10_800) return refuse(['expire must be at most 10800 seconds'], { expire: 'invalid' });
      receipt = id();
      receipts.set(receipt, { receipt, acknowledgedAt: null, expiresAt: Math.floor(now().getTime() / 1000) + expire, expired: false, cancelled: false });
    }
    messages.push({ request, receipt, fields });
    reply(res, 200, { status: 1, request, ...(receipt ? { receipt } : {}) });
  };

  const receiptsApi = (path: string, method: string, fields: Record<string, string>, res: ServerResponse): void => {
    const request = id();
    const m = /^\/1\/receipts\/([^/]+?)(\/cancel)?\.json$/.exec(path);
    const r = m ? receipts.get(decodeURIComponent(m[1] ?? '')) : undefined;
    if (fields.token !== opts.token) return reply(res, 400, { token: 'invalid', errors: ['application token is invalid'], status: 0, request });
    if (!m || !r) return reply(res, 404, { receipt: 'not found', errors: ['receipt not found; may be invalid or expired'], status: 0, request });
    if (m[2]) {
      if (method !== 'POST') return reply(res, 405, { errors: ['use POST'], status: 0, request });
      r.cancelled = true;
      return reply(res, 200, { status: 1, request });
    }
    const t = Math.floor(now().getTime() / 1000);
    const expired = r.expired || (r.acknowledgedAt === null && t >= r.expiresAt);
    reply(res, 200, {
      status: 1,
      acknowledged: r.acknowledgedAt === null ? 0 : 1,
      acknowledged_at: r.acknowledgedAt ?? 0,
      acknowledged_by: r.acknowledgedAt === null ? '' : opts.user,
      acknowledged_by_device: r.acknowledgedAt === null ? '' : 'test-phone',
      last_delivered_at: t,
      expired: expired ? 1 : 0,
      expires_at: r.expiresAt,
      called_back: 0,
      called_back_at: 0,
      request,
    });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    readFields(req)
      .then((body) => {
        const fields = { ...Object.fromEntries(url.searchParams), ...body };
        if (url.pathname === '/1/messages.json' && req.method === 'POST') return messagesApi(fields, res);
        if (url.pathname.startsWith('/1/receipts/')) return receiptsApi(url.pathname, req.method ?? 'GET', fields, res);
        reply(res, 404, { errors: [`no such endpoint ${req.method} ${url.pathname}`], status: 0, request: id() });
      })
      .catch((err: unknown) => reply(res, 400, { errors: [err instanceof Error ? err.message : String(err)], status: 0, request: id() }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    messages,
    receipts,
    acknowledge(receipt, at) {
      const r = receipts.get(receipt);
      if (!r) throw new Error(`no receipt ${receipt}`);
      r.acknowledgedAt = Math.floor((at ?? now()).getTime() / 1000);
    },
    expire(receipt) {
      const r = receipts.get(receipt);
      if (!r) throw new Error(`no receipt ${receipt}`);
      r.expired = true;
    },
    failNext(status, times = 1) {
      failures = { status, left: times };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Run directly (`npx tsx testing/pushover-test-server.ts`) to point a Loopdeck at it:
// PUSHOVER_TOKEN, PUSHOVER_USER and PORT choose the credentials and port; messages are printed.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.PUSHOVER_TOKEN ?? 'test-token';
  const user = process.env.PUSHOVER_USER ?? 'test-user';
  let printed = 0;
  void startPushoverTestServer({ token, user, port: Number(process.env.PORT ?? 0) }).then((s) => {
    console.log(`Pushover test server at ${s.url} (token ${token}, user ${user})`);
    setInterval(() => {
      while (s.messages.length > printed) console.log(JSON.stringify(s.messages[printed++]));
    }, 500);
  });
}
