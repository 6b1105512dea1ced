// The renderer's own WebSocket client (renderer/src/client), driven from Node so the contract
// suite runs over it too: the browser's WebSocket is replaced by the `ws` package's (Node 20 has
// no global WebSocket), sending the Origin a browser would, and the rest is the renderer's code —
// token lookup, URL, frames, queueing, event fan-out.
import WebSocket from 'ws';
import type { LoopdeckBridge } from '../shared/contract';
import { resolveToken, wsUrl } from '../renderer/src/client/token';
import type { Transport } from '../renderer/src/client/types';
import { createWsTransport, type SocketFactory, type SocketLike } from '../renderer/src/client/ws-transport';

/** The renderer's WebSocket transport, open, with a `close` that stops its reconnecting. */
export interface RendererWsBridge extends LoopdeckBridge {
  readonly transport: Transport;
  close(): void;
}

/** A socket factory over `ws`, shaped like the browser's WebSocket for the page at `pageOrigin`. */
export function nodeSocketFactory(pageOrigin: string): SocketFactory {
  // ws's WebSocket has the same onopen/onmessage/onclose/onerror properties (text frames arrive
  // as strings in `data`); only its declared event types are richer.
  return (url) => new WebSocket(url, { origin: pageOrigin }) as unknown as SocketLike;
}

/**
 * Connect the renderer's transport to a serve-mode page URL (as printed, token included), the way
 * the console does when a browser opens that URL; resolves once the socket is open.
 */
export async function connectRendererWsBridge(pageUrl: string, timeoutMs = 10_000): Promise<RendererWsBridge> {
  const page = new URL(pageUrl);
  const token = resolveToken(page.search, null);
  const transport = createWsTransport({ url: wsUrl(page, token), socket: nodeSocketFactory(page.origin) });
  await new Promise<void>((resolve, reject) => {
    if (transport.connection() === 'open') return resolve();
    const timer = setTimeout(() => {
      off();
      transport.close();
      reject(new Error(`The renderer's WebSocket transport did not open to ${page.host} within ${timeoutMs} ms (state: ${transport.connection()}).`));
    }, timeoutMs);
    const off = transport.onConnection((state) => {
      if (state !== 'open') return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
  return {
    transport,
    invoke: (name, input) => transport.invoke(name, input),
    on: (event, cb) => transport.on(event, cb),
    close: () => transport.close(),
  };
}
