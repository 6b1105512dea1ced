import type { RunOptions } from './engine-options';
import type { PollReason } from './poll-queue';
import { ENGINE_WAKE_GAPS, IDLE_POLL_MS, PollScheduler } from './poll-scheduler';

/** What the engine's own schedule is made from. */
export interface EngineScheduleParts {
  /** One poll, with who asked for it. */
  readonly poll: (reason: 'wake' | 'timer') => Promise<void>;
  /** Events published so far (EventBus.published): a poll that moved it published something. */
  readonly published: () => number;
  /**
   * Whether only the clock needs the timer now: every reachable host of the loops watches all it
   * reads (a host without a live watcher is seen only by the timer), no drill is in flight (the
   * polls follow its output) and no older nights wait to be read.
   */
  readonly settled: () => boolean;
}

/**
 * The engine polling on its own (`Engine.run`): a PollScheduler woken by the watchers, and whether
 * each poll was quiet — a timer poll that found the engine settled, caught up, and published
 * nothing. Quiet polls let the scheduler space its timer polls out (QUIET_POLL_MS); a watcher's
 * report or a host connecting wakes a poll at once all the same.
 */
export class EngineSchedule {
  private scheduler: PollScheduler | null = null;
  private publishedBefore = 0;
  private quiet = false;

  constructor(private readonly parts: EngineScheduleParts) {}

  /** Start polling every `intervalMs` (`quietIntervalMs` once quiet); false when it already runs. */
  run(options: RunOptions): boolean {
    if (this.scheduler) return false;
    this.scheduler = new PollScheduler({
      poll: (why) => this.parts.poll(why.timer ? 'timer' : 'wake'),
      intervalMs: options.intervalMs ?? IDLE_POLL_MS,
      quiet: () => this.quiet,
      ...(options.quietIntervalMs === undefined ? {} : { quietIntervalMs: options.quietIntervalMs }),
      ...ENGINE_WAKE_GAPS,
      onError: options.onError ?? (() => undefined),
    });
    this.scheduler.start();
    return true;
  }

  /** A watcher saw a change (on `host`), or a host connected: poll soon, if the engine runs on its own. */
  wake(host?: string): void {
    this.scheduler?.wake(host);
  }

  /** A poll begins. */
  began(): void {
    this.publishedBefore = this.parts.published();
  }

  /** A poll asked for by `reason` ended, with every follower `caughtUp` or not: was it quiet? */
  ended(reason: PollReason, caughtUp: boolean): void {
    this.quiet = reason === 'timer' && caughtUp && this.parts.published() === this.publishedBefore && this.parts.settled();
  }

  /** Stop polling (after the poll in flight, if any). */
  async stop(): Promise<void> {
    await this.scheduler?.stop();
  }
}
