import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type EventName, type RpcResult } from '../../shared/contract';
import type { IpcEventFrame } from '../../shared/ipc-bridge';
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
 * Electron-agnostic, so it runs in plain Node against testing/in-memory-ipc.ts's pair.
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
