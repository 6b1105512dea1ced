// The IPC transport's server joined to the preload's bridge in memory: the contract suite and the
// IPC tests run the real createIpcServer and createIpcBridge in plain Node, without Electron.
import type { AnyEvent, EventListener, EventName, LoopdeckBridge } from '../shared/contract';
import { createIpcBridge, type IpcRendererLike, type IpcRendererListener } from '../shared/ipc-bridge';
import type { Handlers } from '../main/rpc/dispatch';
import { createIpcServer, type IpcInvokeListener, type IpcMainLike } from '../main/rpc/ipc-transport';

/** Options of `createInMemoryIpcPair`. */
export interface InMemoryIpcOptions {
  /** URL the fake renderer frame reports as its own; defaults to `IN_MEMORY_RENDERER_URL`. */
  readonly senderUrl?: string;
  /** Trust check given to the server; defaults to "exactly `IN_MEMORY_RENDERER_URL`". */
  readonly isTrustedSender?: (senderUrl: string) => boolean;
}

/** A server and a renderer-side bridge joined by a fake IPC, for tests and the contract suite. */
export interface InMemoryIpcPair {
  /** The bridge exactly as the preload builds it, over a fake `ipcRenderer`. */
  readonly bridge: LoopdeckBridge;
  /** Publish an event of the session served (the server forwards it, as for every session event). */
  publish(event: EventName, payload: unknown): void;
  /** Remove the server's handler; later invokes reject at the transport like a dead channel. */
  close(): void;
}

/** The renderer URL the in-memory pair trusts by default. */
export const IN_MEMORY_RENDERER_URL = 'file:///loopdeck/out/renderer/index.html';

/**
 * Join `createIpcServer` and the preload's `createIpcBridge` through an in-memory ipcMain /
 * ipcRenderer. Values crossing it are copied with `structuredClone`, as Electron's IPC does, and
 * delivered asynchronously, so anything that would not survive real IPC fails here too.
 */
export function createInMemoryIpcPair(handlers: Handlers, opts: InMemoryIpcOptions = {}): InMemoryIpcPair {
  const senderUrl = opts.senderUrl ?? IN_MEMORY_RENDERER_URL;
  const isTrustedSender = opts.isTrustedSender ?? ((url: string) => url === IN_MEMORY_RENDERER_URL);
  const invokeHandlers = new Map<string, IpcInvokeListener>();
  const rendererListeners = new Map<string, Set<IpcRendererListener>>();

  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (invokeHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      invokeHandlers.set(channel, listener);
    },
    removeHandler(channel) {
      invokeHandlers.delete(channel);
    },
  };

  const rendererEvent = Object.freeze({ sender: 'in-memory-ipc-renderer' });
  const ipcRenderer: IpcRendererLike = {
    async invoke(channel, ...args) {
      const sent = structuredClone(args);
      await Promise.resolve();
      const listener = invokeHandlers.get(channel);
      if (!listener) throw new Error(`Error invoking remote method '${channel}': No handler registered for '${channel}'`);
      let result: unknown;
      try {
        result = await listener({ senderFrame: { url: senderUrl } }, ...sent);
      } catch (err) {
        throw new Error(`Error invoking remote method '${channel}': ${String(err)}`, { cause: err });
      }
      return structuredClone(result);
    },
    on(channel, listener) {
      let set = rendererListeners.get(channel);
      if (!set) {
        set = new Set();
        rendererListeners.set(channel, set);
      }
      set.add(listener);
    },
    removeListener(channel, listener) {
      rendererListeners.get(channel)?.delete(listener);
    },
  };

  // The session the server serves: these handlers, and the events `publish` hands it.
  const listeners = new Set<EventListener>();
  const session = {
    handlers,
    subscribe: (listener: EventListener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const server = createIpcServer({
    session,
    ipcMain,
    isTrustedSender,
    send(channel, frame) {
      // Cloned synchronously, as webContents.send serializes at the call: a payload that cannot
      // cross IPC throws here, in the publisher, and later mutation does not leak through.
      const copy = structuredClone(frame);
      queueMicrotask(() => {
        for (const listener of [...(rendererListeners.get(channel) ?? [])]) listener(rendererEvent, copy);
      });
    },
    onSendError(err) {
      throw err;
    },
  });

  return {
    bridge: createIpcBridge(ipcRenderer),
    publish: (event, payload) => {
      // Whatever the test publishes, as the session would hand it on (tests also send bad payloads).
      for (const l of listeners) l(...([event, payload] as unknown as AnyEvent));
    },
    close: server.close,
  };
}
