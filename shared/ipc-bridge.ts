import type { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, LoopdeckBridge, RpcResult } from './contract';
import { messageOf } from './errors';

// The channel names are repeated as literals, typed against the contract's constants so they can
// never drift: importing the values would pull zod (through contract.ts) into the sandboxed
// preload bundle, which must stay a single small CommonJS file.
const INVOKE_CHANNEL: typeof IPC_INVOKE_CHANNEL = 'loopdeck:invoke';
const EVENT_CHANNEL: typeof IPC_EVENT_CHANNEL = 'loopdeck:event';

/** A listener as `ipcRenderer.on` calls it: the Electron event first, then the sent values. */
export type IpcRendererListener = (event: unknown, ...args: unknown[]) => void;

/**
 * The part of Electron's `ipcRenderer` the bridge uses. Declared here so the same bridge runs over
 * the real `ipcRenderer` in the preload and over an in-memory fake in plain-Node tests.
 */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: IpcRendererListener): unknown;
  removeListener(channel: string, listener: IpcRendererListener): unknown;
}

/** An event frame as main sends it on the event channel. */
export interface IpcEventFrame {
  readonly event: string;
  readonly payload: unknown;
  /** Numbers the events main sent this window (1, 2, …): a gap means one was lost. */
  readonly seq?: number;
}

function isEventFrame(value: unknown): value is IpcEventFrame {
  return typeof value === 'object' && value !== null && typeof (value as { event?: unknown }).event === 'string';
}

/**
 * Build the `window.loopdeck` bridge over an `ipcRenderer`. It hands out only `invoke` and `on`:
 * the Electron event object (whose `sender` is the ipcRenderer itself) never reaches a callback.
 * One ipcRenderer listener is shared by all subscriptions, attached while any exist.
 */
export function createIpcBridge(ipc: IpcRendererLike): LoopdeckBridge {
  const subscribers = new Map<string, Set<(payload: unknown, seq?: number) => void>>();
  let attached = false;

  const onFrame: IpcRendererListener = (_event, frame) => {
    if (!isEventFrame(frame)) return;
    const set = subscribers.get(frame.event);
    if (!set) return;
    for (const cb of [...set]) {
      try {
        cb(frame.payload, typeof frame.seq === 'number' ? frame.seq : undefined);
      } catch (err) {
        // One faulty subscriber must not starve the others of the event; its error still
        // surfaces, as an unhandled rejection, instead of vanishing (shared/ has no console).
        void Promise.reject(err);
      }
    }
  };

  return {
    async invoke(name: string, input: unknown): Promise<RpcResult> {
      try {
        return (await ipc.invoke(INVOKE_CHANNEL, name, input)) as RpcResult;
      } catch (err) {
        // main's dispatch never throws, so this is the transport itself failing (e.g. the window
        // is closing); report it as a typed failure rather than a rejected promise.
        const message = messageOf(err);
        return { ok: false, error: { code: 'handler-failed', message: `${name} did not reach the app: ${message}` } };
      }
    },
    on(event: string, cb: (payload: unknown, seq?: number) => void): () => void {
      const wrapped = (payload: unknown, seq?: number): void => cb(payload, seq);
      let set = subscribers.get(event);
      if (!set) {
        set = new Set();
        subscribers.set(event, set);
      }
      set.add(wrapped);
      if (!attached) {
        ipc.on(EVENT_CHANNEL, onFrame);
        attached = true;
      }
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        const current = subscribers.get(event);
        current?.delete(wrapped);
        if (current && current.size === 0) subscribers.delete(event);
        if (subscribers.size === 0 && attached) {
          ipc.removeListener(EVENT_CHANNEL, onFrame);
          attached = false;
        }
      };
    },
  };
}
