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

  /** No tick after this one (a tick in flight finishes, and schedules none). */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    void this.notifier
      .tick()
      .then(
        () => this.board.errors.set('notice tick', null),
        (err: unknown) => this.board.failed('notice tick', err, () => ({ source: 'notices', line: null, message: `The notices' periodic work failed: ${messageOf(err)}` })),
      )
      .finally(() => {
        if (!this.running) return;
        this.board.publishIfChanged();
        this.timer = setTimeout(() => this.tick(), this.everyMs);
      });
  }
}
