import type { WsServerFrame } from '../../../shared/contract';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A server → client WebSocket frame, checked by hand to the very rules of the contract's
 * `WsServerFrameSchema` (frame.test.ts holds the two to the same verdicts), or null. By hand
 * because the transport runs before zod and the contract have loaded (they are evaluated while
 * the first answers are on their way); what a frame carries is still checked with zod by the client.
 */
export function parseServerFrame(raw: unknown): WsServerFrame | null {
  if (!isRecord(raw)) return null;
  if (raw.type === 'result') {
    return Number.isSafeInteger(raw.id) && 'result' in raw ? { type: 'result', id: raw.id as number, result: raw.result } : null;
  }
  if (raw.type === 'event') {
    if (typeof raw.event !== 'string' || !('payload' in raw)) return null;
    const seq = raw.seq;
    if (seq !== undefined && !(Number.isSafeInteger(seq) && (seq as number) > 0)) return null;
    return { type: 'event', event: raw.event, payload: raw.payload, ...(seq !== undefined ? { seq: seq as number } : {}) };
  }
  return null;
}
