import {
  commands,
  events,
  type CommandInput,
  type CommandName,
  type CommandOutput,
  type EventName,
  type EventPayload,
  type LoopdeckBridge,
} from '../../../shared/contract';
import { createBridgeTransport } from './bridge-transport';
import { signInUrl } from '../../../shared/sign-in';
import { RpcClientError } from './errors';
import { browserSessionStorage, isRemembered, resolveToken, urlWithoutToken, wsUrl, type TokenStorage } from './token';
import { takeEarlySocket, type EarlySocket } from './early-socket';
import type { ConnectionState, Transport } from './types';
import { createWsTransport, type SocketFactory } from './ws-transport';
import { messageOf } from '../../../shared/errors';

/** The typed contract client the renderer talks to main through, whatever the transport. */
export interface LoopdeckClient {
  readonly transport: Transport['kind'];
  /** Call a command; resolves with its validated output or throws an `RpcClientError`. */
  invoke<N extends CommandName>(name: N, input: CommandInput<N>): Promise<CommandOutput<N>>;
  /** Subscribe to an event; payloads that fail the contract's schema are dropped with a warning. */
  on<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): () => void;
  connection(): ConnectionState;
  onConnection(cb: (state: ConnectionState) => void): () => void;
  /**
   * Called when an event was lost (its sequence number skipped one): what the client holds may be
   * stale, and a fresh snapshot puts it right. Returns an unsubscribe function.
   */
  onResync(cb: () => void): () => void;
  close(): void;
}

/** Where `createClient` looks for its transport; every field defaults to the browser's. */
export interface ClientEnvironment {
  bridge?: LoopdeckBridge | undefined;
  location?: { protocol: string; host: string; search: string; pathname?: string; hash?: string };
  storage?: TokenStorage | null;
  /** Where the token is taken out of the address bar once it is remembered; null leaves the URL alone. */
  history?: Pick<History, 'replaceState' | 'state'> | null;
  socket?: SocketFactory;
  /** The socket the page's early script opened (early-socket.ts); by default the page's, if any. */
  early?: EarlySocket | null;
}

/** Wrap any transport in the typed, validating client. */
export function clientOver(transport: Transport): LoopdeckClient {
  // The highest event number seen on this connection. Every subscription sees every number it
  // is subscribed to; a number more than one past the highest is a gap (one seen twice, by two
  // subscriptions, is not).
  let lastSeq: number | null = null;
  const resync = new Set<() => void>();
  transport.onConnection((state) => {
    if (state !== 'open') lastSeq = null;
  });
  const sequence = (seq: number | undefined): void => {
    if (seq === undefined) return;
    const gap = lastSeq !== null && seq > lastSeq + 1;
    if (lastSeq === null || seq > lastSeq) lastSeq = seq;
    if (gap) for (const cb of [...resync]) cb();
  };
  return {
    transport: transport.kind,
    async invoke(name, input) {
      let result;
      try {
        result = await transport.invoke(name, input);
      } catch (err) {
        if (err instanceof RpcClientError) throw err;
        throw new RpcClientError('transport', `${name} could not be sent: ${messageOf(err)}`);
      }
      if (!result.ok) throw new RpcClientError(result.error.code, result.error.message, result.error.issues ?? []);
      const parsed = commands[name].output.safeParse(result.output);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(output)', message: i.message }));
        throw new RpcClientError('invalid-output', `The answer to ${name} does not match the contract.`, issues);
      }
      return parsed.data as CommandOutput<typeof name>;
    },
    on(event, cb) {
      const schema = events[event];
      return transport.on(event, (raw, seq) => {
        sequence(seq);
        const parsed = schema.safeParse(raw);
        if (!parsed.success) {
          console.warn(`loopdeck: dropped an invalid ${event} event`, parsed.error.issues);
          return;
        }
        cb(parsed.data as EventPayload<typeof event>);
      });
    },
    connection: () => transport.connection(),
    onConnection: (cb) => transport.onConnection(cb),
    onResync(cb) {
      resync.add(cb);
      return () => {
        resync.delete(cb);
      };
    },
    close: () => transport.close(),
  };
}

// Once the token is in sessionStorage a reload works without it, so it need not stay visible (or
// be copied along with the address). Without storage it stays: a reload would need it.
function hideToken(loc: { search: string; pathname?: string; hash?: string }, history: ClientEnvironment['history']): void {
  const clean = urlWithoutToken({ pathname: loc.pathname ?? '/', search: loc.search, hash: loc.hash ?? '' });
  if (clean === null || !history) return;
  try {
    history.replaceState(history.state, '', clean);
  } catch {
    // A sandboxed page may refuse; the token then merely stays visible.
  }
}

/**
 * The client for this page: the Electron preload bridge when `window.loopdeck` exists, else a
 * WebSocket to the serve-mode server that served the page, authenticated by its `?token=`.
 */
export function createClient(env: ClientEnvironment = {}): LoopdeckClient {
  const bridge = 'bridge' in env ? env.bridge : (window as { loopdeck?: LoopdeckBridge }).loopdeck;
  if (bridge) return clientOver(createBridgeTransport(bridge));
  const loc = env.location ?? window.location;
  const storage = env.storage !== undefined ? env.storage : browserSessionStorage();
  const token = resolveToken(loc.search, storage);
  if (token && isRemembered(storage, token)) hideToken(loc, env.history !== undefined ? env.history : window.history);
  // A sign-in that ended (expired, signed out elsewhere): sign in again, back to this view. Not
  // when this page is already leaving: signing out here ends the socket too, and a sign-in then
  // would undo the sign-out.
  let leaving = false;
  globalThis.addEventListener?.('beforeunload', () => (leaving = true));
  const onSignedOut = (): void => {
    if (!leaving) window.location.assign(signInUrl(window.location.hash));
  };
  const early = env.early !== undefined ? env.early : takeEarlySocket();
  return clientOver(createWsTransport({ url: wsUrl(loc, token), onSignedOut, early, ...(env.socket ? { socket: env.socket } : {}) }));
}
