import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** One message the server published, with the request's headers and the JSON as sent. */
export interface NtfyPublished {
  readonly id: string;
  readonly headers: IncomingHttpHeaders;
  /** The request's JSON, as the client sent it. */
  readonly json: Readonly<Record<string, unknown>>;
}

/** A running local server speaking ntfy's JSON publish API (`PUT/POST /` with the message as JSON). */
export interface NtfyServer {
  /** The root URL, for `notify.ntfy.url`. */
  readonly url: string;
  /** Messages published, oldest first. */
  readonly published: readonly NtfyPublished[];
  /** Every publish request answered, published or not. */
  readonly requests: number;
  /** Answer the next `times` publish requests with this HTTP status and ntfy's error JSON (5xx: an outage; 4xx: a refusal). */
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

/** How the server is set up. */
export interface NtfyServerOptions {
  /** An access token (`tk_…`) the topics require, as a server with `auth-default-access: deny-all`; without it anyone may publish. */
  readonly token?: string;
  readonly host?: string;
  readonly port?: number;
}

/** ntfy's topic rule (its server's topicRegex). */
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
/** ntfy's default message-size-limit: a longer message becomes an attachment, which this server (like one without attachments) refuses. */
const MESSAGE_LIMIT = 4096;
/** The largest request body read. */
const BODY_LIMIT = 64 * 1024;
const ACTIONS = ['view', 'broadcast', 'http', 'copy'];

/** ntfy's error answers (server/errors.go): a code, the HTTP status, the message and a docs link. */
const ERRORS = {
  jsonInvalid: { code: 40017, http: 400, error: 'invalid request: request body must be message JSON', link: 'https://ntfy.sh/docs/publish/#publish-as-json' },
  topicInvalid: { code: 40009, http: 400, error: 'invalid request: topic invalid' },
  priorityInvalid: { code: 40007, http: 400, error: 'invalid priority parameter', link: 'https://ntfy.sh/docs/publish/#message-priority' },
  actionsInvalid: { code: 40018, http: 400, error: 'invalid request: actions invalid', link: 'https://ntfy.sh/docs/publish/#action-buttons' },
  attachmentsDisallowed: { code: 40014, http: 400, error: 'invalid request: attachments not allowed', link: 'https://ntfy.sh/docs/config/#attachments' },
  unauthorized: { code: 40101, http: 401, error: 'unauthorized', link: 'https://ntfy.sh/docs/publish/#authentication' },
  forbidden: { code: 40301, http: 403, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#authentication' },
  notFound: { code: 40401, http: 404, error: 'page not found' },
  tooLarge: { code: 41303, http: 413, error: 'JSON body too large' },
} as const;

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body)}\n`);
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > BODY_LIMIT) return null;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Why ntfy would refuse this message JSON, or null when it publishes it. */
function refusal(json: Record<string, unknown>): (typeof ERRORS)[keyof typeof ERRORS] | null {
  if (typeof json.topic !== 'string' || !TOPIC.test(json.topic)) return ERRORS.topicInvalid;
  const p = json.priority;
  if (p !== undefined && !(typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= 5)) return ERRORS.priorityInvalid;
  if (json.actions !== undefined) {
    if (!Array.isArray(json.actions) || json.actions.length > 3) return ERRORS.actionsInvalid;
    for (const a of json.actions as unknown[]) {
      const action = a as Record<string, unknown> | null;
      if (!action || typeof action.action !== 'string' || !ACTIONS.includes(action.action)) return ERRORS.actionsInvalid;
      if (typeof action.label !== 'string' || action.label === '') return ERRORS.actionsInvalid;
      if ((action.action === 'view' || action.action === 'http') && !(typeof action.url === 'string' && /^https?:\/\//.test(action.url))) return ERRORS.actionsInvalid;
    }
  }
  if (json.message !== undefined && typeof json.message !== 'string') return ERRORS.jsonInvalid;
  if (Buffer.byteLength(typeof json.message === 'string' ? json.message : '') > MESSAGE_LIMIT) return ERRORS.attachmentsDisallowed;
  return null;
}

/**
 * Start the server on loopback (a free port unless one is given). It publishes as ntfy does: the
 * JSON must go to the root URL, the topic must match ntfy's rule, the priority be 1 to 5, at most
 * three actions; with `token` set, a request without `Authorization: Bearer <token>` is refused
 * (403 without credentials, 401 with wrong ones); an answer is ntfy's message JSON or its error JSON.
 */
export async function startNtfyServer(opts: NtfyServerOptions = {}): Promise<NtfyServer> {
  const published: NtfyPublished[] = [];
  let requests = 0;
  let failures: { status: number; left: number } | null = null;

  const publish = (req: IncomingMessage, body: Buffer | null, res: ServerResponse): void => {
    requests += 1;
    if (failures && failures.left > 0) {
      failures.left -= 1;
      const { status } = failures;
      return reply(res, status, { code: status * 100 + 1, http: status, error: `simulated HTTP ${status}` });
    }
    if (body === null) return reply(res, 413, ERRORS.tooLarge);
    let json: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return reply(res, 400, ERRORS.jsonInvalid);
      json = parsed as Record<string, unknown>;
    } catch {
      return reply(res, 400, ERRORS.jsonInvalid);
    }
    // As ntfy: the topic is read from the JSON first, then the request authorised for it.
    if (typeof json.topic !== 'string' || !TOPIC.test(json.topic)) return reply(res, 400, ERRORS.topicInvalid);
    if (opts.token !== undefined) {
      const auth = req.headers.authorization;
      if (auth === undefined) return reply(res, 403, ERRORS.forbidden);
      if (auth !== `Bearer ${opts.token}`) return reply(res, 401, ERRORS.unauthorized);
    }
    const refused = refusal(json);
    if (refused) return reply(res, refused.http, refused);
    const id = randomBytes(6).toString('base64url');
    published.push({ id, headers: req.headers, json });
    const time = Math.floor(Date.now() / 1000);
    const actions = Array.isArray(json.actions) ? (json.actions as Record<string, unknown>[]).map((a) => ({ id: randomBytes(5).toString('base64url'), ...a })) : undefined;
    reply(res, 200, {
      id,
      time,
      expires: time + 43_200,
      event: 'message',
      topic: json.topic,
      ...(json.title !== undefined ? { title: json.title } : {}),
      message: typeof json.message === 'string' && json.message !== '' ? json.message : 'triggered',
      ...(json.priority !== undefined && json.priority !== 0 && json.priority !== 3 ? { priority: json.priority } : {}),
      ...(json.tags !== undefined ? { tags: json.tags } : {}),
      ...(json.click !== undefined ? { click: json.click } : {}),
      ...(actions ? { actions } : {}),
    });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    readBody(req)
      .then((body) => {
        if (url.pathname === '/' && (req.method === 'POST' || req.method === 'PUT')) return publish(req, body, res);
        reply(res, 404, ERRORS.notFound);
      })
      .catch(() => reply(res, 400, ERRORS.jsonInvalid));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    published,
    get requests() {
      return requests;
    },
    failNext(status, times = 1) {
      failures = { status, left: times };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Run directly (`npx tsx testing/ntfy-server.ts`) to point a Loopdeck at it: NTFY_TOKEN (optional)
// protects the topics, PORT chooses the port; messages are printed.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.NTFY_TOKEN;
  let printed = 0;
  void startNtfyServer({ ...(token ? { token } : {}), port: Number(process.env.PORT ?? 0) }).then((s) => {
    console.log(`ntfy test server at ${s.url}${token ? ' (token required)' : ''}`);
    setInterval(() => {
      while (s.published.length > printed) console.log(JSON.stringify(s.published[printed++]?.json));
    }, 500);
  });
}
