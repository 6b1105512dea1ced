import type { Handlers } from '../rpc/dispatch';
import type { ServedCore } from './server';

/**
 * The core as serve answers it while the core is still opening (config, store, saved summary):
 * every command waits until `started` has settled, so the page and its scripts load in parallel
 * with the opening instead of after it, and no command sees a half-open core. A failed start
 * fails the commands that waited with its error. `begin`, when given, is called by every command
 * first: a console that asks before the opening was due (a reconnect, a page whose scripts were
 * cached) starts it at once instead of waiting for it.
 */
export function whenStarted(core: ServedCore, started: Promise<void>, begin?: () => void): ServedCore {
  const gated = Object.fromEntries(
    Object.entries(core.handlers).map(([name, handler]) => [
      name,
      async (input: unknown): Promise<unknown> => {
        begin?.();
        await started;
        return (handler as (input: unknown) => unknown)(input);
      },
    ]),
  ) as unknown as Handlers;
  return { handlers: gated, subscribe: (listener) => core.subscribe(listener) };
}
