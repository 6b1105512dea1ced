/**
 * A raw WebSocket client of serve mode for figure 8: counts the bytes of every event frame it
 * receives, answers commands, and reconnects when serve drops it (counting the drops, since a
 * dropped client has missed what serve sent it).
 */
import WebSocket from 'ws';
import { onCleanup } from './lib';

/** Frames and bytes received, per event name. */
export type EventTally = Record<string, { frames: number; bytes: number }>;

/** A counting client of serve; `reset` starts a new window. */
export interface EventCounter {
  /** Event bytes and frames received since the last reset. */
  readonly bytes: number;
  readonly frames: number;
  /** Times serve closed the connection since the last reset. */
  readonly drops: number;
  /** `Date.now()` of the last event frame or drop. */
  readonly lastFrameAt: number;
  /** Per event name, since the last reset. */
  tally(): EventTally;
  /** Called with each event frame's text (for waiting on content). */
  onFrame: ((text: string) => void) | null;
  reset(): void;
  /** Send a command and resolve with its output; rejects when it fails or the connection drops. */
  invoke(name: string, input?: unknown): Promise<unknown>;
  close(): void;
}

interface Pending {
  readonly ok: (v: unknown) => void;
  readonly fail: (e: Error) => void;
}

/** Connect to serve (its printed URL, token included). */
export async function connectCounter(pageUrl: string): Promise<EventCounter> {
  const page = new URL(pageUrl);
  const wsUrl = `ws://${page.host}/ws?token=${encodeURIComponent(page.searchParams.get('token') ?? '')}`;
  let bytes = 0;
  let frames = 0;
  let drops = 0;
  let lastFrameAt = Date.now();
  let closed = false;
  const byEvent = new Map<string, { frames: number; bytes: number }>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let ws: WebSocket;

  const open = async (): Promise<WebSocket> => {
    const sock = new WebSocket(wsUrl, { maxPayload: 1024 * 1024 * 1024 });
    await new Promise<void>((ok, fail) => {
      sock.once('open', () => ok());
      sock.once('error', fail);
    });
    sock.on('error', () => undefined);
    sock.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"type":"result"')) {
        const frame = JSON.parse(text) as { id: number; result: { ok: boolean; output?: unknown; error?: { message: string } } };
        const p = pending.get(frame.id);
        pending.delete(frame.id);
        if (frame.result.ok) p?.ok(frame.result.output);
        else p?.fail(new Error(frame.result.error?.message ?? 'command failed'));
        return;
      }
      // Everything else serve sends is an event, whatever its shape: count it whole.
      bytes += data.length;
      frames += 1;
      lastFrameAt = Date.now();
      const name = /"event":"([^"]+)"/.exec(text.slice(0, 200))?.[1] ?? '?';
      const e = byEvent.get(name) ?? { frames: 0, bytes: 0 };
      e.frames += 1;
      e.bytes += data.length;
      byEvent.set(name, e);
      counter.onFrame?.(text);
    });
    sock.once('close', (code, reason) => {
      for (const p of pending.values()) p.fail(new Error(`serve closed the WebSocket (${code}${reason.length ? ` ${reason.toString()}` : ''})`));
      pending.clear();
      if (closed) return;
      drops += 1;
      lastFrameAt = Date.now();
      // Reconnect as the renderer would; the next command waits for it.
      reconnecting = open().then(
        (s) => {
          ws = s;
        },
        (err: unknown) => {
          broken = err as Error;
        },
      );
    });
    return sock;
  };
  let reconnecting: Promise<void> = Promise.resolve();
  let broken: Error | null = null;
  ws = await open();
  onCleanup(() => {
    closed = true;
    ws.close();
  });

  const counter: EventCounter = {
    get bytes() {
      return bytes;
    },
    get frames() {
      return frames;
    },
    get drops() {
      return drops;
    },
    get lastFrameAt() {
      return lastFrameAt;
    },
    tally: () => Object.fromEntries(byEvent),
    onFrame: null,
    reset() {
      bytes = 0;
      frames = 0;
      drops = 0;
      byEvent.clear();
    },
    invoke: async (name, input = {}) => {
      await reconnecting;
      if (broken) throw new Error(`could not reconnect to serve: ${broken.message}`);
      return new Promise((ok, fail) => {
        const id = nextId++;
        pending.set(id, { ok, fail });
        ws.send(JSON.stringify({ id, name, input }));
      });
    },
    close() {
      closed = true;
      ws.close();
    },
  };
  return counter;
}
