import { browserSessionStorage, resolveToken, wsUrl, type TokenStorage } from './token';
// A type only: the transport (and zod with it) stays out of this script's chunk.
import type { SocketLike } from './ws-transport';

/**
 * The serve-mode socket a tiny script of its own opens before the main bundle has arrived (see
 * renderer/src/early.ts): it asks for what the first paint needs, `app.info` and `state.summary`,
 * while the browser still fetches and evaluates ~450 kB of script, and keeps every frame the server
 * sends. The WebSocket transport adopts it (createWsTransport's `early`) and hands those frames on
 * once the page listens, in the order they came.
 */
export interface EarlySocket {
  readonly socket: SocketLike;
  /** Every frame received before the transport adopted the socket, in order. */
  readonly frames: unknown[];
  open: boolean;
  closed: boolean;
}

/** The calls the early socket makes, by frame id (the transport numbers its own calls after them). */
export const EARLY_CALLS: ReadonlyArray<readonly [id: number, name: 'app.info' | 'state.summary']> = [
  [1, 'app.info'],
  [2, 'state.summary'],
];

/**
 * The most the early socket keeps for the transport (characters of frames). A page whose main
 * bundle never runs (a chunk that failed to load) would otherwise keep every event for as long as
 * the tab stays open; past this the socket is closed and dropped, and a transport that comes after
 * all opens its own. A first paint's answers are tens of kB.
 */
export const EARLY_HOLD_MAX = 8 * 1024 * 1024;

/** Where the early socket waits for the transport (a page global: the two scripts share nothing else). */
const KEY = '__loopdeckEarlySocket';

type Holder = { [KEY]?: EarlySocket | undefined };

/** Send the early calls on an open socket. */
export function sendEarlyCalls(socket: Pick<SocketLike, 'send'>): void {
  for (const [id, name] of EARLY_CALLS) socket.send(JSON.stringify({ id, name, input: {} }));
}

/** What opening the early socket reads; every field defaults to the browser's. */
export interface EarlyEnvironment {
  readonly holder?: object;
  readonly location?: { protocol: string; host: string; search: string };
  readonly storage?: TokenStorage | null;
  readonly socket?: (url: string) => SocketLike;
}

/**
 * Open the early socket, unless the page runs in the Electron shell (its preload bridge, not a
 * socket, reaches main) or nothing can be opened; it is left for the transport under a page global.
 */
export function openEarlySocket(env: EarlyEnvironment = {}): EarlySocket | null {
  const holder = (env.holder ?? globalThis) as Holder & { loopdeck?: unknown };
  if (holder.loopdeck !== undefined || holder[KEY] !== undefined) return null;
  const page = globalThis as { location?: EarlyEnvironment['location']; WebSocket?: new (url: string) => SocketLike };
  let socket: SocketLike;
  try {
    const loc = env.location ?? page.location;
    const open = env.socket ?? (page.WebSocket ? (url: string) => new (page.WebSocket as new (url: string) => SocketLike)(url) : null);
    if (!loc || !open) return null;
    const storage = env.storage !== undefined ? env.storage : browserSessionStorage();
    socket = open(wsUrl(loc, resolveToken(loc.search, storage)));
  } catch {
    return null; // the transport opens its own
  }
  const early: EarlySocket = { socket, frames: [], open: false, closed: false };
  let held = 0;
  socket.onopen = () => {
    early.open = true;
    sendEarlyCalls(socket);
  };
  socket.onmessage = (ev) => {
    held += typeof ev.data === 'string' ? ev.data.length : 0;
    if (held <= EARLY_HOLD_MAX) {
      early.frames.push(ev.data);
      return;
    }
    early.closed = true;
    early.frames.length = 0;
    socket.close();
  };
  socket.onclose = () => {
    early.closed = true;
  };
  holder[KEY] = early;
  return early;
}

/** The early socket, once: the transport that takes it owns it from then on. */
export function takeEarlySocket(holder: object = globalThis): EarlySocket | null {
  const h = holder as Holder;
  const early = h[KEY] ?? null;
  h[KEY] = undefined;
  return early;
}
