import type { Notifier } from '../notices/notifier';
import type { ProblemBoard } from './problem-board';
import { messageOf } from '../../../shared/errors';

/** How much sooner than due a tick runs when a poll has woken the process anyway (ms; see `ride`). */
export const TICK_RIDE_MS = 1000;

/**
 * The notices' periodic work (emergency repeats, receipt polls) every `everyMs` from `start` until
 * `stop`: on the engine's polls when one comes within `rideMs` of a tick's time (`ride`), else on its
 * own timer `rideMs` after that time. An idle serve polls every 5 s too: two timers of their own
 * were two wakes of the process where one does. A failure (a full disk under a repeat's write) is
 * noted on the problem board, never thrown, and what it did not do is done by a later tick.
 */
export class NoticeTick {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** The tick in flight: its sends record what went only once they are answered. */
  private inFlight: Promise<void> | null = null;
  /** When the next tick is due (`clock`, ms). */
  private dueAt = 0;

  constructor(
    private readonly notifier: Pick<Notifier, 'tick'>,
    private readonly board: ProblemBoard,
    private readonly everyMs: number,
    private readonly rideMs = Math.min(TICK_RIDE_MS, everyMs / 5),
    /** The clock `ride` and the due time go by (ms; tests give their own). */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Tick every `everyMs` from now on. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  /**
   * A poll has just run (the process is awake): tick now if the next tick is due within `rideMs`,
   * rather than wake again for it. Not while a tick is in flight.
   */
  ride(): void {
    if (!this.running || this.timer === null || this.clock() < this.dueAt - this.rideMs) return;
    clearTimeout(this.timer);
    this.tick();
  }

  private schedule(): void {
    this.dueAt = this.clock() + this.everyMs;
    this.timer = setTimeout(() => this.tick(), this.everyMs + this.rideMs);
  }

  /**
   * No tick after this one; resolves once a tick in flight has finished (each send is bounded by
   * its own timeout), so the store it records to is not closed under it: a digest or a repeat
   * answered during the close is kept as sent, and a restart does not send it again.
   */
  stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return this.inFlight ?? Promise.resolve();
  }

  private tick(): void {
    this.timer = null;
    this.inFlight = this.notifier
      .tick()
      .then(
        () => this.board.errors.set('notice tick', null),
        (err: unknown) => this.board.failed('notice tick', err, () => ({ source: 'notices', line: null, message: `The notices' periodic work failed: ${messageOf(err)}` })),
      )
      .finally(() => {
        this.inFlight = null;
        if (!this.running) return;
        this.board.publishIfChanged();
        this.schedule();
      });
  }
}
