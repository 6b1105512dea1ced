/** Who asked for a poll: a watcher, the timer, or (null) a person, a test or `snapshot`: everything is read. */
export type PollReason = 'wake' | 'timer' | null;

/** Of two reasons, the one that reads more: a person's reads everything, the timer's takes the safety net's turn. */
export function widerReason(a: PollReason, b: PollReason): PollReason {
  if (a === null || b === null) return null;
  return a === 'timer' || b === 'timer' ? 'timer' : 'wake';
}

/**
 * One poll at a time. A call while a poll is in flight is answered by one more poll right after
 * it, shared by every call made meanwhile (with the widest reason asked): the poll in flight began
 * before the call, so it may have missed what the caller wrote or a watcher reported since.
 * Joining it instead let a drill start beside a phase whose stamp a person had just written, and
 * left a watcher's report unread until the next timer poll (under load, a minute in a test).
 */
export class PollQueue {
  private running: Promise<void> | null = null;
  private queued: { reason: PollReason; readonly promise: Promise<void> } | null = null;

  constructor(private readonly pollOnce: (reason: PollReason) => Promise<void>) {}

  /** Whether a poll is in flight. */
  get busy(): boolean {
    return this.running !== null;
  }

  poll(reason: PollReason): Promise<void> {
    if (this.running === null) {
      const run = (this.running = this.pollOnce(reason).finally(() => {
        if (this.running === run) this.running = null;
      }));
      return run;
    }
    if (this.queued !== null) {
      this.queued.reason = widerReason(this.queued.reason, reason);
      return this.queued.promise;
    }
    const queued: { reason: PollReason; promise: Promise<void> } = {
      reason,
      promise: this.running
        .catch(() => undefined)
        .then(() => {
          this.queued = null;
          return this.poll(queued.reason);
        }),
    };
    this.queued = queued;
    return queued.promise;
  }

  /** Resolves when no poll is in flight or asked for. */
  async idle(): Promise<void> {
    while (this.running !== null || this.queued !== null) await (this.queued?.promise ?? this.running)?.catch(() => undefined);
  }
}
