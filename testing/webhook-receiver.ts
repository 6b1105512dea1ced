import { HTTP, type CloudEvent } from 'cloudevents';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, as it came, with what verifying it said. */
export interface ReceivedHook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The status it was answered with. */
  readonly status: number;
  /** When it arrived (ms since the epoch). */
  readonly at: number;
  /** The Standard Webhooks reference library's verdict: the parsed body, or its error. */
  readonly verified: { readonly ok: true; readonly payload: unknown } | { readonly ok: false; readonly error: string } | null;
  /** The CloudEvents SDK's parse of the request (HTTP.toEvent, which validates the envelope), or its error. */
  readonly cloudEvent: { readonly ok: true; readonly event: CloudEvent<unknown> } | { readonly ok: false; readonly error: string } | null;
}

/** A running receiver on loopback. */
export interface WebhookReceiver {
  /** Where to post (changes on no restart: `stop` then `start` keeps the port). */
  readonly url: string;
  readonly received: readonly ReceivedHook[];
  /** Answer the next requests with these statuses, in order (then 200 again). */
  answer(...statuses: number[]): void;
  /** Answer the next request with this status and these headers (a 429 with Retry-After). */
  answerWith(status: number, headers: Readonly<Record<string, string>>): void;
  /** Stop listening (the receiver is down: connections are refused). */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** How the receiver verifies: the secret it shares with the sender (`whsec_…`, or the base64 alone), and whether to parse CloudEvents. */
export interface WebhookReceiverOptions {
  readonly secret?: string;
  readonly cloudEvents?: boolean;
}

function headersRecord(h: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(h).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v]])));
}

/**
 * A webhook receiver as a real one is written: it verifies each request with Standard Webhooks'
 * own library (`standardwebhooks`, which also checks the timestamp is within 5 minutes of now)
 * and, for CloudEvents, reads it with the official SDK; it answers with the statuses it is told
 * to (an outage, a refusal) and records everything for the test to look at.
 */
export async function startWebhookReceiver(opts: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const script: { status: number; headers: Readonly<Record<string, string>> }[] = [];
  const verifier = opts.secret !== undefined ? new Webhook(opts.secret) : null;
  const handle = (body: string, headers: IncomingHttpHeaders): Omit<ReceivedHook, 'status' | 'at'> => {
    let verified: ReceivedHook['verified'] = null;
    if (verifier) {
      try {
        verified = { ok: true, payload: verifier.verify(body, headersRecord(headers)) };
      } catch (err) {
        verified = { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
    let cloudEvent: ReceivedHook['cloudEvent'] = null;
    if (opts.cloudEvents) {
      try {
        const event = HTTP.toEvent({ headers: headersRecord(headers), body });
        if (Array.isArray(event)) throw new Error('a batch, where one event was expected');
        cloudEvent = { ok: true, event: event as CloudEvent<unknown> };
      } catch (err) {
        cloudEvent = { ok: false, error: err instanceof Error ? err.message : JSON.stringify(err) };
      }
    }
    return { headers, body, verified, cloudEvent };
  };
  let server: Server | null = null;
  let port = 0;
  const start = async (): Promise<void> => {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { status, headers } = script.shift() ?? { status: 200, headers: {} };
        received.push({ ...handle(Buffer.concat(chunks).toString('utf8'), req.headers), status, at: Date.now() });
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(status < 300 ? 'ok' : `status ${status}`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}/hooks/loopdeck`,
    received,
    answer: (...statuses) => void script.push(...statuses.map((status) => ({ status, headers: {} }))),
    answerWith: (status, headers) => void script.push({ status, headers }),
    stop,
    start,
    close: stop,
  };
}
