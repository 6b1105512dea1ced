import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type EventName, type RpcResult } from '../../shared/contract';
import type { IpcEventFrame } from '../../shared/ipc-bridge';
import { ClientSession, type ServedSession } from './client-session';
import { localCaller } from './local-caller';
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
  /** The session served; its commands wait for its start gate. */
  readonly session: ServedSession;
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
  /** Send an event of the shell's own (a notification's click: `app.navigate`), numbered with the session's. */
  publish(event: EventName, payload: unknown): void;
  /** Stop answering calls (removes the `ipcMain` handler) and forwarding events. */
  close(): void;
}

/**
 * Serve the contract over Electron IPC: one `handle` channel carrying `(name, input)`, refused with
 * `unauthorized` unless the sending frame is the app's renderer, and the session's events sent on
 * `IPC_EVENT_CHANNEL`. The window is this transport's one client, through the same ClientSession
 * as a WebSocket client: its handlers (renderer error reports rate-limited), its numbering (an
 * event that could not be sent leaves a gap it notices). Electron-agnostic, so it runs in plain
 * Node against testing/in-memory-ipc.ts's pair.
 */
export function createIpcServer(opts: IpcServerOptions): IpcServer {
  const { ipcMain, isTrustedSender, send } = opts;
  const onSendError = opts.onSendError ?? ((err, event) => log.error(`could not send ${event} to the window`, err));
  const window = new ClientSession(opts.session, 'the window', {
    event: (seq, event, payload) => {
      try {
        send(IPC_EVENT_CHANNEL, { event, payload, seq });
      } catch (err) {
        onSendError(err, event);
      }
    },
    // IPC answers through the `handle` call's promise, and cannot tell what waits unsent.
    result: () => undefined,
    buffered: () => 0,
    drop: () => undefined,
  }, localCaller('desktop'));

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
    return window.run(name, input);
  });
  const unsubscribe = opts.session.subscribe((event: EventName, payload: unknown) => window.event(event, payload, () => ''));
  return {
    publish: (event, payload) => window.event(event, payload, () => ''),
    close() {
      unsubscribe();
      ipcMain.removeHandler(IPC_INVOKE_CHANNEL);
    },
  };
}
