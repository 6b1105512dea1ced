import type { Notifier } from '../notices/notifier';
import type { ProblemBoard } from './problem-board';
import { messageOf } from '../../../shared/errors';

/**
 * The notices' periodic work (emergency repeats, receipt polls) on its own timer, every `everyMs`
 * from `start` until `stop`. From a timer: a failure (a full disk under a repeat's write) is noted
 * on the problem board, never thrown, and what it did not do is done by a later tick.
 */
export class NoticeTick {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** The tick in flight: its sends record what went only once they are answered. */
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly notifier: Pick<Notifier, 'tick'>,
    private readonly board: ProblemBoard,
    private readonly everyMs: number,
  ) {}

  /** Tick every `everyMs` from now on. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setTimeout(() => this.tick(), this.everyMs);
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
        this.timer = setTimeout(() => this.tick(), this.everyMs);
      });
  }
}
