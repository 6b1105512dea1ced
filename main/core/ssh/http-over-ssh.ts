import { request, type IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SshConnection } from './connection';

/** An HTTP response, body read whole (admin APIs answer small JSON or Prometheus text). */
export interface HttpReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The most bytes of a response body kept; an admin API answering more is misbehaving. */
const MAX_BODY = 16 * 1024 * 1024;

/**
 * GET `url` on a host: through the host's SSH connection (a forwardOut channel to the URL's
 * host:port, as seen from the host) or, for a local host (`connection` null), directly. Every
 * channel is closed after use, and the whole exchange is bounded by `timeoutMs`.
 */
export async function httpGet(connection: SshConnection | null, url: string, timeoutMs = 10_000): Promise<HttpReply> {
  const target = new URL(url);
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
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY) req.destroy(new Error(`${url}: response larger than ${MAX_BODY} bytes`));
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
