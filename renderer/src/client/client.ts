import {
  commands,
  events,
  RpcResultSchema,
  type CommandInput,
  type CommandName,
  type CommandOutput,
  type EventName,
  type EventPayload,
  type RpcResult,
} from '../../../shared/contract';
import { createTransport, type ClientEnvironment } from './connect';
import { RpcClientError } from './errors';
import type { Prefetch } from './prefetch';
import type { ConnectionState, Transport } from './types';

export type { ClientEnvironment } from './connect';

/** The typed contract client the renderer talks to main through, whatever the transport. */
export interface LoopdeckClient {
  readonly transport: Transport['kind'];
  /** Call a command; resolves with its validated output or throws an `RpcClientError`. */
  invoke<N extends CommandName>(name: N, input: CommandInput<N>): Promise<CommandOutput<N>>;
  /** Subscribe to an event; payloads that fail the contract's schema are dropped with a warning. */
  on<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): () => void;
  connection(): ConnectionState;
  onConnection(cb: (state: ConnectionState) => void): () => void;
  /**
   * Called when an event was lost (its sequence number skipped one): what the client holds may be
   * stale, and a fresh snapshot puts it right. Returns an unsubscribe function.
   */
  onResync(cb: () => void): () => void;
  close(): void;
}

/**
 * Wrap any transport in the typed, validating client. `prefetch` holds answers asked for before
 * the client existed (main.tsx): a call it has an answer for takes that one, checked the same way.
 */
export function clientOver(transport: Transport, prefetch?: Prefetch): LoopdeckClient {
  // The highest event number seen on this connection. Every subscription sees every number it
  // is subscribed to; a number more than one past the highest is a gap (one seen twice, by two
  // subscriptions, is not).
  let lastSeq: number | null = null;
  const resync = new Set<() => void>();
  transport.onConnection((state) => {
    if (state !== 'open') lastSeq = null;
  });
  const sequence = (seq: number | undefined): void => {
    if (seq === undefined) return;
    const gap = lastSeq !== null && seq > lastSeq + 1;
    if (lastSeq === null || seq > lastSeq) lastSeq = seq;
    if (gap) for (const cb of [...resync]) cb();
  };
  return {
    transport: transport.kind,
    async invoke(name, input) {
      let raw: RpcResult;
      try {
        raw = await (prefetch?.take(name) ?? transport.invoke(name, input));
      } catch (err) {
        if (err instanceof RpcClientError) throw err;
        throw new RpcClientError('transport', `${name} could not be sent: ${err instanceof Error ? err.message : String(err)}`);
      }
      const checked = RpcResultSchema.safeParse(raw);
      if (!checked.success) throw new RpcClientError('invalid-output', `The answer to ${name} is not a valid result.`);
      const result = checked.data;
      if (!result.ok) throw new RpcClientError(result.error.code, result.error.message, result.error.issues ?? []);
      const parsed = commands[name].output.safeParse(result.output);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(output)', message: i.message }));
        throw new RpcClientError('invalid-output', `The answer to ${name} does not match the contract.`, issues);
      }
      return parsed.data as CommandOutput<typeof name>;
    },
    on(event, cb) {
      const schema = events[event];
      return transport.on(event, (raw, seq) => {
        sequence(seq);
        const parsed = schema.safeParse(raw);
        if (!parsed.success) {
          console.warn(`loopdeck: dropped an invalid ${event} event`, parsed.error.issues);
          return;
        }
        cb(parsed.data as EventPayload<typeof event>);
      });
    },
    connection: () => transport.connection(),
    onConnection: (cb) => transport.onConnection(cb),
    onResync(cb) {
      resync.add(cb);
      return () => {
        resync.delete(cb);
      };
    },
    close: () => transport.close(),
  };
}

/**
 * The client for this page: the Electron preload bridge when `window.loopdeck` exists, else a
 * WebSocket to the serve-mode server that served the page, authenticated by its `?token=`.
 */
export function createClient(env: ClientEnvironment = {}): LoopdeckClient {
  return clientOver(createTransport(env));
}
