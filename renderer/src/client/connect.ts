import type { LoopdeckBridge } from '../../../shared/contract';
import { createBridgeTransport } from './bridge-transport';
import { isRemembered, resolveToken, urlWithoutToken, wsUrl, type TokenStorage } from './token';
import type { Transport } from './types';
import { createWsTransport, type SocketFactory } from './ws-transport';

// This module and what it imports must stay free of zod and the contract's schemas: the entry
// (main.tsx) opens the connection with it before those are evaluated.

/** Where `createTransport` looks for its transport; every field defaults to the browser's. */
export interface ClientEnvironment {
  bridge?: LoopdeckBridge | undefined;
  location?: { protocol: string; host: string; search: string; pathname?: string; hash?: string };
  storage?: TokenStorage | null;
  /** Where the token is taken out of the address bar once it is remembered; null leaves the URL alone. */
  history?: Pick<History, 'replaceState' | 'state'> | null;
  socket?: SocketFactory;
}

function sessionStore(): TokenStorage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
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
 * The transport for this page: the Electron preload bridge when `window.loopdeck` exists, else a
 * WebSocket (opened at once) to the serve-mode server that served the page, authenticated by its
 * `?token=`.
 */
export function createTransport(env: ClientEnvironment = {}): Transport {
  const bridge = 'bridge' in env ? env.bridge : (window as { loopdeck?: LoopdeckBridge }).loopdeck;
  if (bridge) return createBridgeTransport(bridge);
  const loc = env.location ?? window.location;
  const storage = env.storage !== undefined ? env.storage : sessionStore();
  const token = resolveToken(loc.search, storage);
  if (token && isRemembered(storage, token)) hideToken(loc, env.history !== undefined ? env.history : window.history);
  return createWsTransport({ url: wsUrl(loc, token), ...(env.socket ? { socket: env.socket } : {}) });
}

/**
 * Resolves once the transport has opened (or failed to), or after `maxMs`: the entry waits for
 * this before evaluating the app, so the socket's `open` (which sends the first requests) is not
 * queued behind that evaluation, and the server computes its answers while the page evaluates.
 */
export function connectionSettled(transport: Transport, maxMs: number): Promise<void> {
  if (transport.connection() !== 'connecting') return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      off();
      resolve();
    };
    const timer = setTimeout(done, maxMs);
    const off = transport.onConnection((state) => {
      if (state !== 'connecting') done();
    });
  });
}
