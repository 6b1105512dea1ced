import { messageOf } from '../../../../shared/errors';
import { log } from '../../logging/log';

/** What a reader that asks GitHub in rounds gives its schedule. */
export interface RoundsOptions {
  /** One round; `scheduled` is false for a round asked for with `now()`. */
  readonly round: (scheduled: boolean) => Promise<void>;
  /** How long after a scheduled round ends the next is due (ms): `every`, or later while GitHub asks to wait. */
  readonly next: () => number;
  /** What a failed scheduled round is logged as ("a round of PR requests"). */
  readonly what: string;
}

/**
 * The schedule of a reader that asks GitHub in rounds (the PR tracker, the merge desk): a round at
 * `start`, then each `next()` ms after the last ended, never two at once, until `stop`, which
 * aborts the requests in flight (`signal`: closing the console waits for no GitHub). `now()` runs
 * one round after the one in flight and awaits it (the CLI's verbs); `soon()` moves the next
 * scheduled round to now (a PR not asked about yet). A scheduled round that fails is logged, and
 * the schedule goes on.
 */
export class Rounds {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private inFlight: Promise<void> | null = null;
  private readonly stopping = new AbortController();

  constructor(private readonly o: RoundsOptions) {}

  /** Aborted once `stop` was called. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Started and not stopped. */
  get active(): boolean {
    return this.running;
  }

  /** A round now, then on the schedule, until `stop`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** The next scheduled round now (after the one in flight), if started. */
  soon(): void {
    this.schedule(0);
  }

  /** Stop asking: the requests in flight are given up, and the round in flight is awaited. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  /** One round now, after the one in flight, awaited; it rejects as the round does. */
  async now(): Promise<void> {
    await this.inFlight;
    const round = this.o.round(false);
    this.inFlight = round.catch(() => undefined);
    try {
      await round;
    } finally {
      this.inFlight = null;
    }
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.inFlight) return void this.inFlight.then(() => this.schedule(0));
      this.inFlight = this.o
        .round(true)
        .catch((err: unknown) => log.warn(`GitHub: ${this.o.what} failed: ${messageOf(err)}`))
        .finally(() => {
          this.inFlight = null;
          this.schedule(this.o.next());
        });
    }, ms);
    this.timer.unref?.();
  }
}
