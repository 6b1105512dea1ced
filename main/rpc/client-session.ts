import type { EventListener, EventName, Handlers, RpcResult } from '../../shared/contract';
import type { Caller } from '../../shared/roles';
import { dispatch } from './dispatch';
import { handlersForClient } from './rate-limit';

/** What a transport's server side serves: the session's commands and events. */
export interface ServedSession {
  readonly handlers: Handlers;
  subscribe(listener: EventListener): () => void;
}

/** How one client is reached: the transport's side of it. */
export interface ClientLink {
  /** Send an event numbered `seq`; `json` gives its `{"event":…,"payload":…}` text, made once for all clients of a publish. */
  event(seq: number, event: EventName, payload: unknown, json: () => string): void;
  /** Send the result of the command of request `id`. */
  result(id: string | number, result: RpcResult): void;
  /** Bytes waiting unsent to the client; 0 where the transport cannot tell (IPC). */
  buffered(): number;
  /** Drop the client: it stopped reading (it loads the summary again when it reconnects). */
  drop(): void;
}

/**
 * One client of a transport, the same for IPC and the WebSocket: its own handlers (renderer error
 * reports rate-limited per client), its own event numbering (1, 2, …: a client that sees a gap
 * lost one, and resyncs), and a bound on what it may hold unsent (a client that stops reading is
 * dropped rather than buffered without end). The check comes before a send, so one frame larger
 * than the bound (a snapshot of 60,000 findings is tens of megabytes) still goes out.
 */
export class ClientSession {
  private readonly handlers: Handlers;
  private seq = 0;

  constructor(
    served: ServedSession,
    /** Who the client is, for the log ("the window", "serve client 127.0.0.1:51234"). */
    who: string,
    private readonly link: ClientLink,
    /** Who sends this client's commands (their role decides which it may), recorded on what they do. */
    readonly caller: Caller,
    private readonly maxBufferedBytes = Number.POSITIVE_INFINITY,
  ) {
    this.handlers = handlersForClient(served.handlers, who);
  }

  /** Validate and run one command of this client (never throws: a failure is a typed error). */
  run(name: unknown, input: unknown): Promise<RpcResult> {
    return dispatch(this.handlers, name, input, this.caller);
  }

  /** Answer request `id`, unless the client has stopped reading. */
  answer(id: string | number, result: RpcResult): void {
    if (this.reading()) this.link.result(id, result);
  }

  /** Send an event, numbered even when it cannot be sent, so the client sees the gap. */
  event(event: EventName, payload: unknown, json: () => string): void {
    this.seq += 1;
    if (this.reading()) this.link.event(this.seq, event, payload, json);
  }

  private reading(): boolean {
    if (this.link.buffered() <= this.maxBufferedBytes) return true;
    this.link.drop();
    return false;
  }
}

/**
 * A transport's clients, and the session's events handed to each: an event's JSON is made at most
 * once, whatever the number of clients. Returns the set and the unsubscribe function.
 */
export class ClientSet {
  private readonly clients = new Set<ClientSession>();
  private readonly unsubscribe: () => void;

  constructor(served: ServedSession) {
    this.unsubscribe = served.subscribe((event, payload) => {
      let json: string | null = null;
      const once = (): string => (json ??= JSON.stringify({ event, payload }));
      for (const c of this.clients) c.event(event, payload, once);
    });
  }

  add(client: ClientSession): void {
    this.clients.add(client);
  }

  delete(client: ClientSession): void {
    this.clients.delete(client);
  }

  /** Stop handing events to the clients. */
  close(): void {
    this.unsubscribe();
    this.clients.clear();
  }
}
