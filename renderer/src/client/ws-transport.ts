import * as z from 'zod';
import { RpcErrorSchema, WsServerFrameSchema, type RpcResult } from '../../../shared/contract';
import { SIGNED_OUT_CLOSE } from '../../../shared/sign-in';
import { backoffDelay } from './backoff';
import { EARLY_CALLS, sendEarlyCalls, type EarlySocket } from './early-socket';
import { RpcClientError } from './errors';
import type { ConnectionState, Transport } from './types';

/** The part of a browser WebSocket the transport uses, so tests can pass a fake. */
export interface SocketLike {
  send(data: string): void;
  close(): void;
  onopen: (() => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  /** `code`: the close code (SIGNED_OUT_CLOSE when the sign-in ended). */
  onclose: ((ev: { code?: number }) => void) | null;
  onerror: (() => void) | null;
}

/** Opens a socket to a URL. */
export type SocketFactory = (url: string) => SocketLike;

/** Options of the WebSocket transport. */
export interface WsTransportOptions {
  url: string;
  /** Defaults to the browser's WebSocket. */
  socket?: SocketFactory;
  /** Jitter source for the reconnect backoff. */
  random?: () => number;
  /** The server closed the socket because the sign-in ended: no reconnect (the page signs in again). */
  onSignedOut?: () => void;
  /**
   * The socket the page's early script opened (early-socket.ts), adopted as the first connection
   * unless it closed already: its answers to the early calls serve the first `invoke` of each, and
   * what it received is handed on once someone calls (or after the page's first turn), in order.
   */
  early?: EarlySocket | null;
}

const RpcResultSchema = z.union([
  z.object({ ok: z.literal(true), output: z.unknown() }),
  z.object({ ok: z.literal(false), error: RpcErrorSchema }),
]);

interface Pending {
  readonly name: string;
  readonly frame: string;
  readonly resolve: (r: RpcResult) => void;
  readonly reject: (e: unknown) => void;
}

/** Whether a command's input is `{}` (how the store asks for what the early socket asked for). */
const isEmpty = (input: unknown): boolean => input !== null && typeof input === 'object' && Object.keys(input).length === 0;

// The DOM WebSocket's handler properties take richer event types than SocketLike declares;
// the transport only reads `data`, so the narrower view is safe.
const browserSocket: SocketFactory = (url) => new WebSocket(url) as unknown as SocketLike;

/**
 * The serve-mode transport: `{id, name, input}` frames out, `result` and `event` frames in.
 * Calls made while connecting wait for the socket; calls in flight (or made while closed) fail
 * with `disconnected`. It reconnects with backoff until closed; event subscriptions survive.
 */
export function createWsTransport(options: WsTransportOptions): Transport {
  const open = options.socket ?? browserSocket;
  const random = options.random ?? Math.random;
  const listeners = new Map<string, Set<(payload: unknown, seq?: number) => void>>();
  const stateListeners = new Set<(s: ConnectionState) => void>();
  const pending = new Map<number, Pending>();
  const queued: number[] = [];
  let state: ConnectionState = 'connecting';
  let socket: SocketLike | null = null;
  let attempt = 0;
  let nextId = 1;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closedForGood = false;
  let early = options.early ?? null;
  // The early calls no `invoke` has claimed yet (name → frame id), and their answers once come.
  const prefetched = new Map<string, number>();
  const earlyAnswers = new Map<number, unknown>();
  // Frames of the adopted early socket not handed on yet (null: none held).
  let held: unknown[] | null = null;

  function setState(next: ConnectionState): void {
    if (next === state) return;
    state = next;
    for (const cb of [...stateListeners]) cb(next);
  }

  function failAll(): void {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new RpcClientError('disconnected', `The connection to Loopdeck closed before ${p.name} was answered.`));
    }
    queued.length = 0;
    prefetched.clear();
    earlyAnswers.clear();
    held = null;
  }

  /** Hand on what the adopted early socket received so far: the page listens by now. */
  function release(): void {
    if (held === null) return;
    const frames = held;
    held = null;
    for (const data of frames) onMessage(data);
  }

  function settle(call: Pending, raw: unknown): void {
    const result = RpcResultSchema.safeParse(raw);
    if (result.success) call.resolve(result.data);
    else call.reject(new RpcClientError('invalid-output', `The answer to ${call.name} is not a valid result.`));
  }

  function onMessage(data: unknown): void {
    if (typeof data !== 'string') return;
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      console.warn('loopdeck: dropped a WebSocket frame that is not JSON');
      return;
    }
    const frame = WsServerFrameSchema.safeParse(raw);
    if (!frame.success) {
      console.warn('loopdeck: dropped a malformed WebSocket frame', frame.error.issues);
      return;
    }
    if (frame.data.type === 'event') {
      for (const cb of [...(listeners.get(frame.data.event) ?? [])]) cb(frame.data.payload, frame.data.seq);
      return;
    }
    const call = pending.get(frame.data.id);
    if (!call) {
      // An early call's answer before anyone asked for it: kept for the `invoke` that will.
      if ([...prefetched.values()].includes(frame.data.id)) earlyAnswers.set(frame.data.id, frame.data.result);
      return;
    }
    pending.delete(frame.data.id);
    settle(call, frame.data.result);
  }

  function connect(): void {
    timer = null;
    setState('connecting');
    // The early socket is the first connection's, if it is still open or opening.
    const adopted = early && !early.closed ? early : null;
    early = null;
    let ws: SocketLike;
    try {
      ws = adopted ? adopted.socket : open(options.url);
    } catch (err) {
      console.warn('loopdeck: could not open the WebSocket', err);
      scheduleReconnect();
      return;
    }
    socket = ws;
    const opened = (): void => {
      attempt = 0;
      setState('open');
      for (const id of queued.splice(0)) {
        const p = pending.get(id);
        if (p) ws.send(p.frame);
      }
    };
    ws.onopen = () => {
      if (socket !== ws) return;
      // An early socket that was still opening: its calls go first (their ids are taken).
      if (adopted) sendEarlyCalls(ws);
      opened();
    };
    ws.onmessage = (ev) => {
      if (socket !== ws) return;
      if (held !== null) held.push(ev.data);
      else onMessage(ev.data);
    };
    ws.onerror = () => {
      // A close event always follows; reconnecting is handled there.
    };
    ws.onclose = (ev) => {
      if (socket !== ws) return;
      socket = null;
      failAll();
      setState('closed');
      if (ev?.code === SIGNED_OUT_CLOSE && options.onSignedOut) {
        closedForGood = true;
        options.onSignedOut();
        return;
      }
      scheduleReconnect();
    };
    if (adopted) {
      for (const [id, name] of EARLY_CALLS) {
        prefetched.set(name, id);
        nextId = Math.max(nextId, id + 1);
      }
      held = adopted.frames.splice(0);
      // Whoever listens subscribes in the page's first turn: then the frames go on, asked for or not.
      setTimeout(release, 0);
      if (adopted.open) opened();
    }
  }

  function scheduleReconnect(): void {
    if (closedForGood || timer !== null) return;
    setState('closed');
    timer = setTimeout(connect, backoffDelay(attempt, random));
    attempt += 1;
  }

  connect();

  return {
    kind: 'websocket',
    invoke(name, input) {
      if (closedForGood || state === 'closed') {
        return Promise.reject(new RpcClientError('disconnected', `Not connected to Loopdeck; ${name} was not sent.`));
      }
      const earlyId = isEmpty(input) ? prefetched.get(name) : undefined;
      if (earlyId !== undefined) {
        prefetched.delete(name);
        return new Promise<RpcResult>((resolve, reject) => {
          const call: Pending = { name, frame: '', resolve, reject };
          if (earlyAnswers.has(earlyId)) {
            const raw = earlyAnswers.get(earlyId);
            earlyAnswers.delete(earlyId);
            settle(call, raw);
          } else pending.set(earlyId, call);
          release();
        });
      }
      release();
      const id = nextId++;
      const frame = JSON.stringify({ id, name, input });
      return new Promise<RpcResult>((resolve, reject) => {
        pending.set(id, { name, frame, resolve, reject });
        if (state === 'open' && socket) socket.send(frame);
        else queued.push(id);
      });
    },
    on(event, cb) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(cb);
      return () => {
        set.delete(cb);
      };
    },
    connection: () => state,
    onConnection(cb) {
      stateListeners.add(cb);
      return () => {
        stateListeners.delete(cb);
      };
    },
    close() {
      closedForGood = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      const ws = socket;
      socket = null;
      failAll();
      setState('closed');
      ws?.close();
    },
  };
}
