import WebSocket from 'ws';
import { WsServerFrameSchema, type LoopdeckBridge, type RpcResult } from '../shared/contract';

/** A Node-side client of serve mode's WebSocket, shaped like the preload bridge. */
export interface WsBridge extends LoopdeckBridge {
  close(): void;
}

/**
 * Connect to a serve-mode URL (as printed, token included) and speak the same contract the
 * renderer does. Used by the contract suite and by tools that drive serve mode from Node.
 */
export async function connectWsBridge(pageUrl: string, headers: Record<string, string> = {}): Promise<WsBridge> {
  const page = new URL(pageUrl);
  const wsUrl = `ws://${page.host}/ws?token=${encodeURIComponent(page.searchParams.get('token') ?? '')}`;
  const ws = new WebSocket(wsUrl, { headers });
  await new Promise<void>((ok, fail) => {
    ws.once('open', () => ok());
    ws.once('error', fail);
    ws.once('unexpected-response', (_req, res) => fail(new Error(`WebSocket refused: HTTP ${res.statusCode}`)));
  });
  let nextId = 1;
  const pending = new Map<number, (r: RpcResult) => void>();
  const listeners = new Map<string, Set<(payload: unknown, seq?: number) => void>>();
  ws.on('message', (data) => {
    const frame = WsServerFrameSchema.safeParse(JSON.parse(String(data)));
    if (!frame.success) return;
    if (frame.data.type === 'result') {
      pending.get(frame.data.id)?.(frame.data.result as RpcResult);
      pending.delete(frame.data.id);
    } else {
      for (const cb of listeners.get(frame.data.event) ?? []) cb(frame.data.payload, frame.data.seq);
    }
  });
  ws.on('close', () => {
    for (const resolve of pending.values()) resolve({ ok: false, error: { code: 'handler-failed', message: 'connection closed' } });
    pending.clear();
  });
  return {
    invoke: (name, input) =>
      new Promise<RpcResult>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, name, input }));
      }),
    on: (event, cb) => {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(cb);
      return () => set.delete(cb);
    },
    close: () => ws.close(),
  };
}
