import type { LoopdeckBridge } from '../../../shared/contract';

/** Whether the console can currently talk to Loopdeck's main process or server. */
export type ConnectionState = 'connecting' | 'open' | 'closed';

/** A bridge plus a connection state: what the contract client is built on. */
export interface Transport extends LoopdeckBridge {
  /** Which transport this is, for messages that differ between the desktop app and a browser. */
  readonly kind: 'bridge' | 'websocket';
  connection(): ConnectionState;
  /** Called on every connection state change; returns an unsubscribe function. */
  onConnection(cb: (state: ConnectionState) => void): () => void;
  close(): void;
}
