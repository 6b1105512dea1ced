/** The most transcript searches that run on one host at once, across all users. */
export const SEARCHES_PER_HOST = 2;

/** A search refused because its host runs SEARCHES_PER_HOST already; the message names the host and says to retry. */
export class SearchBusyError extends Error {
  override readonly name = 'SearchBusyError';
}

/** A search ended because the same user started another; its grep is stopped on the host. */
export class SearchCancelledError extends Error {
  override readonly name = 'SearchCancelledError';
}

interface Slot {
  readonly user: string;
  readonly host: string;
  /** What it searches (the file), for the message of its cancel. */
  readonly what: string;
  readonly controller: AbortController;
}

/**
 * The transcript searches running now, so that no one can keep a host's disks and CPUs busy with
 * greps: one per user (a user's new search cancels their old one, whichever host it is on) and at
 * most `perHost` on a host across users (past that a new search is refused, naming the host; a
 * queue would only hold the user's wait hidden). "User" is the caller's name: two windows of one
 * signed-in user are one user. A cancelled search gives its slot up at once: its grep ends on
 * the host as soon as the cancel reaches it (the search script's input ends).
 */
export class SearchSlots {
  private readonly byUser = new Map<string, Slot>();
  private readonly onHost = new Map<string, Set<Slot>>();

  constructor(private readonly perHost = SEARCHES_PER_HOST) {}

  /** Searches running on `host` now. */
  running(host: string): number {
    return this.onHost.get(host)?.size ?? 0;
  }

  /**
   * Run `search` for `user` on `host` with a signal that is aborted (with a SearchCancelledError)
   * when the same user starts another; throws SearchBusyError when the host has no slot free.
   */
  async run<T>(user: string, host: string, what: string, search: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const old = this.byUser.get(user);
    if (old) {
      this.release(old);
      old.controller.abort(new SearchCancelledError(`The search of ${old.what} on host ${old.host} was cancelled: ${user} started another search.`));
    }
    const busy = this.onHost.get(host) ?? new Set<Slot>();
    if (busy.size >= this.perHost) {
      throw new SearchBusyError(`Host ${host} is already running ${busy.size} transcript searches, the most at once; try again in a few seconds, once one has ended.`);
    }
    const slot: Slot = { user, host, what, controller: new AbortController() };
    busy.add(slot);
    this.onHost.set(host, busy);
    this.byUser.set(user, slot);
    try {
      return await search(slot.controller.signal);
    } finally {
      this.release(slot);
    }
  }

  private release(slot: Slot): void {
    if (this.byUser.get(slot.user) === slot) this.byUser.delete(slot.user);
    const busy = this.onHost.get(slot.host);
    busy?.delete(slot);
    if (busy?.size === 0) this.onHost.delete(slot.host);
  }
}
