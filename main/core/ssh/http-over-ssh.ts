import { request, type IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SshConnection } from './connection';

/** An HTTP response, body read whole (admin APIs answer small JSON or Prometheus text). */
export interface HttpReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * The most bytes of a JSON admin body read (1 MiB). crossbar's `/_crossbar/hosts` for 256 hosts is
 * about 100 KB, a llama.cpp `/slots` for 64 slots about 40 KB, a gateway status under 1 KB; an
 * answer past 1 MiB is not the admin API (or is hostile), and reading 16 MiB cost 1.6 GB to parse.
 */
export const MAX_JSON_BODY = 1024 * 1024;
/**
 * The most bytes of a `/metrics` body read (4 MiB): Prometheus text repeats every label on every
 * line, so a crossbar's per-(route, host, model, status) counters for a large fleet run to a few MB.
 */
export const MAX_METRICS_BODY = 4 * 1024 * 1024;

/** The body cap for a URL: Prometheus text under `/metrics`, JSON everywhere else. */
export function bodyCapFor(url: string): number {
  return /\/metrics\/?$/.test(new URL(url).pathname) ? MAX_METRICS_BODY : MAX_JSON_BODY;
}

const mib = (n: number): string => `${n / (1024 * 1024)} MiB`;

/**
 * GET `url` on a host: through the host's SSH connection (a forwardOut channel to the URL's
 * host:port, as seen from the host) or, for a local host (`connection` null), directly. Every
 * channel is closed after use, the whole exchange is bounded by `timeoutMs`, and the body by
 * `maxBytes` (default: bodyCapFor(url)); a longer answer is refused as soon as it is seen.
 */
export async function httpGet(connection: SshConnection | null, url: string, timeoutMs = 10_000, maxBytes?: number): Promise<HttpReply> {
  const target = new URL(url);
  const cap = maxBytes ?? bodyCapFor(url);
  const tooLarge = (what: string): Error =>
    new Error(`${url}: response ${what} larger than ${mib(cap)}, the most Loopdeck reads of an admin answer (${mib(MAX_JSON_BODY)} of JSON, ${mib(MAX_METRICS_BODY)} of /metrics text); is this the admin API?`);
  if (target.protocol !== 'http:') throw new Error(`${url}: only http:// is supported on a host's loopback.`);
  const port = Number(target.port || 80);
  let channel: { stream: Duplex; release: () => void } | null = null;
  if (connection) channel = await connection.forwardOut(target.hostname, port);
  try {
    return await new Promise<HttpReply>((resolve, reject) => {
      // An SSH channel is no net.Socket (no setTimeout), so the deadline is a plain timer.
      const timeout = new Error(`${url}: no answer within ${timeoutMs} ms`);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(timeout);
      }, timeoutMs);
      const settle = <T,>(fn: (v: T) => void) => (v: T): void => {
        clearTimeout(timer);
        fn(v);
      };
      const req = request(
        {
          host: target.hostname,
          port,
          path: `${target.pathname}${target.search}`,
          method: 'GET',
          headers: { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', connection: 'close' },
          ...(channel ? { createConnection: () => channel?.stream as never } : {}),
        },
        (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > cap) {
            req.destroy(tooLarge(`of ${declared} bytes (Content-Length) is`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size > cap) return;
            size += c.length;
            if (size > cap) req.destroy(tooLarge('is'));
            else chunks.push(c);
          });
          res.on('end', () => settle(resolve)({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', settle(reject));
        },
      );
      req.on('error', (err: Error) => settle(reject)(timedOut ? timeout : err));
      req.end();
    });
  } finally {
    if (channel) {
      channel.stream.destroy();
      channel.release();
    }
  }
}
