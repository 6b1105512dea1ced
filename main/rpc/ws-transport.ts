import { WsRequestSchema } from '../../shared/contract';
import type { Caller } from '../../shared/roles';
import { ClientSession, ClientSet, type ServedSession } from './client-session';

/** The part of a `ws` WebSocket the transport uses; a real one satisfies it. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly OPEN: number;
  readonly bufferedAmount: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  pause(): void;
  resume(): void;
  on(event: 'message', listener: (data: unknown) => void): void;
  on(event: 'error' | 'close', listener: () => void): void;
}

/** Options of the WebSocket transport. */
export interface WsTransportOptions {
  /**
   * A client whose unsent output passes this many bytes is dropped (it loads the summary again
   * when it reconnects) rather than buffered without bound; 8 MiB by default.
   */
  readonly maxBufferedBytes?: number;
}

/** Requests of one client being answered at once; past it, its socket is not read until some finish. */
const MAX_IN_FLIGHT = 16;
/** How long a closed client gets to answer the close before its socket is destroyed. */
const CLOSE_GRACE_MS = 1000;

/** Close a client, and end it for sure: a hostile peer need not answer the close (ws waits 30 s). */
function closeClient(ws: WebSocketLike, code?: number, reason?: string): void {
  if (code !== undefined) ws.close(code, reason);
  setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
}

/** The server side of the WebSocket transport: its clients, and how each is served. */
export interface WsTransport {
  /** Serve one connected client as `caller` (the shell has checked its upgrade: sign-in or token, Host, Origin). */
  connect(ws: WebSocketLike, who: string, caller: Caller): void;
  /** Stop: every client ends. */
  close(): void;
}

/**
 * The contract over WebSocket frames: `{id, name, input}` requests answered `{type: "result", id,
 * result}`, and `{type: "event", seq, event, payload}` events, each client through its
 * ClientSession (its handlers, its numbering, its bound). A frame that is not JSON or not a
 * request, a malformed or oversized one (ws has sent 1002/1007/1009), closes that client only.
 * At most MAX_IN_FLIGHT requests of a client are answered at once.
 */
export function createWsTransport(served: ServedSession, options: WsTransportOptions = {}): WsTransport {
  const maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  const clients = new ClientSet(served);
  const sockets = new Set<WebSocketLike>();
  return {
    connect(ws, who, caller) {
      const open = (): boolean => ws.readyState === ws.OPEN;
      const client = new ClientSession(served, who, {
        event: (seq, _event, _payload, json) => {
          if (open()) ws.send(`{"type":"event","seq":${seq},${json().slice(1)}`);
        },
        result: (id, result) => {
          if (open()) ws.send(JSON.stringify({ type: 'result', id, result }));
        },
        buffered: () => ws.bufferedAmount,
        drop: () => ws.terminate(),
      }, caller, maxBuffered);
      clients.add(client);
      sockets.add(ws);
      ws.on('close', () => {
        clients.delete(client);
        sockets.delete(ws);
      });
      ws.on('error', () => closeClient(ws));
      let inFlight = 0;
      ws.on('message', (data) => {
        let frame: unknown;
        try {
          frame = JSON.parse(String(data));
        } catch {
          closeClient(ws, 1008, 'frames are JSON');
          return;
        }
        const request = WsRequestSchema.safeParse(frame);
        if (!request.success) {
          closeClient(ws, 1008, 'expected {id, name, input}');
          return;
        }
        if (++inFlight >= MAX_IN_FLIGHT) ws.pause();
        void client
          .run(request.data.name, request.data.input)
          .then((result) => client.answer(request.data.id, result))
          .catch(() => ws.terminate())
          .finally(() => {
            if (inFlight-- === MAX_IN_FLIGHT) ws.resume();
          });
      });
    },
    close() {
      clients.close();
      for (const ws of sockets) ws.terminate();
      sockets.clear();
    },
  };
}
