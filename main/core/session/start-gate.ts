import type { Handlers } from '../../../shared/contract';

/**
 * The session's start gate: the shells answer the moment they are up (serve's page, Electron's
 * window), and the session opens its config, store and saved summary a moment later (~150 ms of
 * the one thread at a year of history), so that the page's files are not held up behind it. Until
 * it is open, every command waits (none sees a half-open session) and opens it at once if nothing
 * has yet; a failed opening fails the commands that waited with its error.
 */
export class StartGate {
  private begun: Promise<void> | null = null;
  private settle: { ok: () => void; fail: (err: unknown) => void } | null = null;
  /** Resolves once the session is open; rejects with what stopped it. */
  readonly opened: Promise<void>;

  constructor(private readonly openNow: () => Promise<void>) {
    this.opened = new Promise<void>((ok, fail) => (this.settle = { ok, fail }));
    // Awaited by whoever cares (the shells, the commands); an opening that fails before any does
    // is not an unhandled rejection.
    this.opened.catch(() => undefined);
  }

  /** Open now, unless already opening or open; resolves (or rejects) with the opening. */
  open(): Promise<void> {
    this.begun ??= this.openNow().then(
      () => this.settle?.ok(),
      (err: unknown) => this.settle?.fail(err),
    );
    return this.opened;
  }

  /** The commands, each opening the session if nothing has, and waiting until it is open. */
  gate(handlers: Handlers): Handlers {
    return Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => [
        name,
        async (input: unknown, caller: unknown): Promise<unknown> => {
          await this.open();
          return (handler as (input: unknown, caller: unknown) => unknown)(input, caller);
        },
      ]),
    ) as unknown as Handlers;
  }
}
