import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type EventName, type LoopdeckBridge, type RpcResult } from '../../shared/contract';
import { createIpcBridge, type IpcEventFrame, type IpcRendererLike, type IpcRendererListener } from '../../shared/ipc-bridge';
import { dispatch, type Handlers } from './dispatch';
import { handlersForClient } from './rate-limit';
import { log } from '../core/logging/log';

/** What the IPC server needs to know about the event of one `ipcMain.handle` call. */
export interface IpcInvokeEventLike {
  /** The frame that sent the call; Electron gives null once it has navigated away or died. */
  readonly senderFrame: { readonly url: string } | null;
}

/** The handler signature `ipcMain.handle` takes. */
export type IpcInvokeListener = (event: IpcInvokeEventLike, ...args: unknown[]) => Promise<RpcResult>;

/** The part of Electron's `ipcMain` the server uses; the real `ipcMain` satisfies it. */
export interface IpcMainLike {
  handle(channel: string, listener: IpcInvokeListener): void;
  removeHandler(channel: string): void;
}

/** Options of `createIpcServer`. */
export interface IpcServerOptions {
  readonly handlers: Handlers;
  readonly ipcMain: IpcMainLike;
  /** Whether a call from a frame at this URL may run commands (the app's own renderer only). */
  readonly isTrustedSender: (senderUrl: string) => boolean;
  /** Send one frame to the renderer(s), like `webContents.send(channel, frame)`. */
  readonly send: (channel: string, frame: IpcEventFrame) => void;
  /** Called when sending an event fails (e.g. the window is gone); defaults to logging it. */
  readonly onSendError?: (err: unknown, event: string) => void;
}

/** The main-process side of the IPC transport. */
export interface IpcServer {
  /** Forward one event to the renderer on `IPC_EVENT_CHANNEL`. */
  publish(event: EventName, payload: unknown): void;
  /** Stop answering calls (removes the `ipcMain` handler). */
  close(): void;
}

/**
 * Serve the contract over Electron IPC: one `handle` channel carrying `(name, input)`, every call
 * through `dispatch`, refused with `unauthorized` unless the sending frame is the app's renderer.
 * Electron-agnostic, so it runs in plain Node against `createInMemoryIpcPair`.
 */
export function createIpcServer(opts: IpcServerOptions): IpcServer {
  const { ipcMain, isTrustedSender, send } = opts;
  // The window is this transport's one client: its renderer error reports are rate-limited.
  const handlers = handlersForClient(opts.handlers, 'the window');
  const onSendError = opts.onSendError ?? ((err, event) => log.error(`could not send ${event} to the window`, err));

  ipcMain.handle(IPC_INVOKE_CHANNEL, async (event, name, input) => {
    const url = event.senderFrame?.url;
    if (url === undefined || !isTrustedSender(url)) {
      return {
        ok: false,
        error: {
          code: 'unauthorized',
          message: `Refused ${typeof name === 'string' ? name : 'a command'} from ${url ?? 'a closed frame'}: only the Loopdeck window may send commands.`,
        },
      };
    }
    return dispatch(handlers, name, input);
  });

  // Events are numbered for the window: one that could not be sent leaves a gap it notices.
  let seq = 0;
  return {
    publish(event, payload) {
      try {
        seq += 1;
        send(IPC_EVENT_CHANNEL, { event, payload, seq });
      } catch (err) {
        onSendError(err, event);
      }
    },
    close() {
      ipcMain.removeHandler(IPC_INVOKE_CHANNEL);
    },
  };
}

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
  /** Publish an event from the main side, as the shell does for each app-core event. */
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

  const server = createIpcServer({
    handlers,
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

  return { bridge: createIpcBridge(ipcRenderer), publish: server.publish, close: server.close };
}
