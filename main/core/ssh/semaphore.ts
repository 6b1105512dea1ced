/**
 * A counting semaphore: at most `limit` holders at once, the rest wait in order. Used to keep a
 * connection's open channels under the server's MaxSessions however many files are followed.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Holders right now. */
  get inUse(): number {
    return this.active;
  }

  /** Wait for a slot; call the returned function exactly once to give it back. */
  async acquire(): Promise<() => void> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
