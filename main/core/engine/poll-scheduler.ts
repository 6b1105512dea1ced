/**
 * The engine's wake gap (ms): a burst of appends on a busy transcript becomes at most 20 polls a
 * second, each reading everything appended so far, while a line after a quiet spell is read at once.
 */
export const WAKE_GAP_MS = 50;

/**
 * The wake gap while a file streams (ms): once two wakes in a row came sooner than
 * STREAM_AFTER_MS after the woken poll before them, polls are spaced this far apart until a
 * quiet spell. A transcript writing 20 lines a second is then read two lines a poll, at ten
 * updates a second (about half the CPU), while a line after a pause is still read at once.
 */
export const STREAM_WAKE_GAP_MS = 100;

/** A wake this soon after the previous woken poll began counts towards a stream (ms). */
export const STREAM_AFTER_MS = 75;

/**
 * The wake gap once a stream has gone on for SUSTAINED_STREAK polls in a row (about a second):
 * a transcript that keeps writing 20 lines a second is read four lines a poll, five updates a
 * second, which is what a person can follow, at about half the CPU of ten. A short burst still
 * gets the 100-ms gap and a line after a pause is still read at once.
 */
export const SUSTAINED_WAKE_GAP_MS = 200;

/** Wakes in a row, each sooner than STREAM_AFTER_MS after the woken poll before it, that make a stream sustained. */
export const SUSTAINED_STREAK = 10;

/**
 * How often sources are polled when nothing wakes a poll (ms). Watchers (fs.watch locally, the
 * watcher channel over SSH) wake a poll the moment a hot folder or file changes; the timer is for
 * what they do not see (the ledgers, an old night edited late, the clock moving the dead-man), so
 * a console left in the tray all day does one cheap poll a second, not four.
 */
export const IDLE_POLL_MS = 1000;

/** The engine's wake gaps, as every scheduler of the engine's polls uses them. */
export const ENGINE_WAKE_GAPS = {
  minWakeGapMs: WAKE_GAP_MS,
  streamWakeGapMs: STREAM_WAKE_GAP_MS,
  sustainedWakeGapMs: SUSTAINED_WAKE_GAP_MS,
} as const;

/** How a PollScheduler runs. */
export interface PollSchedulerOptions {
  /**
   * One poll; a failure goes to `onError` and the schedule goes on. `timer` says the timer started
   * it and nothing woke it (the engine may then skip what its watchers say did not change).
   */
  readonly poll: (why: { readonly timer: boolean }) => Promise<void>;
  /** Poll this often when nothing wakes it (ms). */
  readonly intervalMs: number;
  /**
   * A wake sooner than this after the previous woken poll began waits for it (ms): a burst of
   * appends costs one poll, not one each, and an append after a quiet spell is read at once.
   */
  readonly minWakeGapMs: number;
  /**
   * The gap while wakes stream (two in a row sooner than `streamAfterMs` after the woken poll
   * before them); `minWakeGapMs` when not given.
   */
  readonly streamWakeGapMs?: number;
  /** See `streamWakeGapMs` (STREAM_AFTER_MS by default). */
  readonly streamAfterMs?: number;
  /** The gap once a stream is sustained (SUSTAINED_STREAK wakes in a row); `streamWakeGapMs` when not given. */
  readonly sustainedWakeGapMs?: number;
  readonly onError?: (err: unknown) => void;
}

/**
 * Runs polls one at a time: every `intervalMs`, and soon after `wake()` (a watched folder
 * changed). A wake during a poll is kept for right after it; wakes are coalesced.
 */
export class PollScheduler {
  private timer: NodeJS.Timeout | null = null;
  /** The pending timer is a woken poll's (not the idle interval's): more wakes need not touch it. */
  private timerWoken = false;
  private running = false;
  private polling: Promise<void> | null = null;
  private woken = false;
  /** When the last poll started by a wake began (ms, performance clock). */
  private lastWokenAt = -Infinity;
  /** Wakes in a row that came sooner than `streamAfterMs` after the woken poll before them. */
  private streak = 0;

  constructor(private readonly options: PollSchedulerOptions) {}

  /** Poll now, then on schedule. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.run(false);
  }

  /** Stop polling; resolves once the poll in flight, if any, has finished. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.polling;
  }

  /** Something changed: poll soon (right after the poll in flight, if any). */
  wake(): void {
    if (!this.running) return;
    // The first wake a poll has not taken yet says whether changes stream; later ones join it.
    if (!this.woken) {
      const soon = performance.now() - this.lastWokenAt < (this.options.streamAfterMs ?? STREAM_AFTER_MS);
      this.streak = soon ? this.streak + 1 : 0;
    }
    this.woken = true;
    // A poll in flight takes the wake right after it; a woken poll already due takes it too.
    if (this.polling || (this.timer && this.timerWoken)) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const woken = this.woken;
    const gap = this.gap();
    const delay = woken ? Math.max(0, this.lastWokenAt + gap - performance.now()) : this.options.intervalMs;
    this.timerWoken = woken;
    this.timer = setTimeout(() => this.run(woken), delay);
  }

  /** The wake gap for the current streak: the plain gap, the stream's, or the sustained stream's. */
  private gap(): number {
    const { minWakeGapMs, streamWakeGapMs = minWakeGapMs, sustainedWakeGapMs = streamWakeGapMs } = this.options;
    if (this.streak >= SUSTAINED_STREAK) return sustainedWakeGapMs;
    return this.streak >= 2 ? streamWakeGapMs : minWakeGapMs;
  }

  private run(woken: boolean): void {
    this.timer = null;
    if (!this.running) return;
    if (woken) this.lastWokenAt = performance.now();
    this.woken = false;
    this.polling = this.options
      .poll({ timer: !woken })
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.polling = null;
        if (this.running) this.schedule();
      });
  }
}
