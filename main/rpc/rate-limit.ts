import { RENDERER_ERRORS_PER_MINUTE, type CommandName, type CommandOutput, type Handlers } from '../../shared/contract';
import { log } from '../core/logging/log';

/** Options of `limitCommand`. */
export interface CommandLimit<N extends CommandName> {
  readonly name: N;
  /** Calls allowed in one window; the rest of the window's calls are dropped. */
  readonly max: number;
  readonly windowMs?: number;
  /** Who the calls come from, for the log line ("serve client 127.0.0.1:51234", "the window"). */
  readonly client: string;
  /** The answer to a dropped call. */
  readonly dropped: CommandOutput<N>;
  readonly now?: () => number;
}

/**
 * The handlers with one command rate-limited for one client: a page stuck in an error loop cannot
 * fill the disk through `log.error`. Each transport wraps its handlers once per client. The first
 * call dropped in a window is logged, and how many were dropped when the next window starts.
 */
export function limitCommand<N extends CommandName>(handlers: Handlers, limit: CommandLimit<N>): Handlers {
  const windowMs = limit.windowMs ?? 60_000;
  const now = limit.now ?? Date.now;
  const inner = handlers[limit.name] as (input: unknown, caller: unknown) => unknown;
  let windowStart = -Infinity;
  let calls = 0;
  let dropped = 0;
  const limited = (input: unknown, caller: unknown): unknown => {
    const t = now();
    if (t - windowStart >= windowMs) {
      if (dropped > 0) log.warn(`${limit.name} from ${limit.client}: ${dropped} call(s) were dropped over the limit of ${limit.max} in ${windowMs / 1000} s.`);
      windowStart = t;
      calls = 0;
      dropped = 0;
    }
    if (++calls <= limit.max) return inner(input, caller);
    if (++dropped === 1) {
      log.warn(`${limit.name} from ${limit.client}: more than ${limit.max} calls in ${windowMs / 1000} s; dropping the rest of this window.`);
    }
    return limit.dropped;
  };
  return { ...handlers, [limit.name]: limited } as Handlers;
}

/** The handlers one client gets: renderer error reports limited to RENDERER_ERRORS_PER_MINUTE. */
export function handlersForClient(handlers: Handlers, client: string, now?: () => number): Handlers {
  return limitCommand(handlers, {
    name: 'log.error',
    max: RENDERER_ERRORS_PER_MINUTE,
    client,
    dropped: { logged: false },
    ...(now ? { now } : {}),
  });
}
