import type { Handlers } from '../rpc/dispatch';
import type { ServedCore } from './server';

/**
 * The core as serve answers it while the core is still opening (config, store, saved summary):
 * every command waits until `started` has settled, so the page and its scripts load in parallel
 * with the opening instead of after it, and no command sees a half-open core. A failed start
 * fails the commands that waited with its error.
 */
export function whenStarted(core: ServedCore, started: Promise<void>): ServedCore {
  const gated = Object.fromEntries(
    Object.entries(core.handlers).map(([name, handler]) => [
      name,
      async (input: unknown): Promise<unknown> => {
        await started;
        return (handler as (input: unknown) => unknown)(input);
      },
    ]),
  ) as unknown as Handlers;
  return { handlers: gated, subscribe: (listener) => core.subscribe(listener) };
}
