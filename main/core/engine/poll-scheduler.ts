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

/**
 * The idle interval once polls are quiet (ms): QUIET_AFTER timer polls in a row found every host
 * watched and nothing to publish (PollSchedulerOptions.quiet). What a timer poll is for then is
 * the clocks (a phase past its cap, a dead-man, the notices' clock rules, which the NoticeGate
 * derives every 5 s anyway), and minutes-long clocks seen 5 s late lose nothing; a console left in
 * the tray all night wakes twelve times a minute, not sixty. A wake (a watcher's report, a host
 * connecting) or a poll that published ends the quiet at once.
 */
export const QUIET_POLL_MS = 5000;

/**
 * How early the idle timer may fire and still run its poll (ms; a tenth of the interval at most).
 * Node sets a timer from the event loop's time as the turn began, so one set late in a long turn
 * fires by that much early against performance.now(): without this it set itself again for the
 * millisecond or ten left, a second wake of an idle process for each timer poll.
 */
export const IDLE_TIMER_EARLY_MS = 25;

/** Timer polls in a row that found nothing to do before the idle interval becomes QUIET_POLL_MS. */
export const QUIET_AFTER = 5;

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
   * Asked after each timer poll: whether it found nothing to do (every source watched, nothing
   * published). `quietAfter` such polls in a row make the idle interval `quietIntervalMs`, until a
   * wake or a poll that was not quiet. Without it the interval stays `intervalMs`.
   */
  readonly quiet?: () => boolean;
  /** The idle interval once polls are quiet (ms; QUIET_POLL_MS by default). */
  readonly quietIntervalMs?: number;
  /** Quiet timer polls in a row before it (QUIET_AFTER by default). */
  readonly quietAfter?: number;
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
 *
 * Two slots: the woken poll's (an immediate, or a timer for the rest of its gap) and the idle
 * interval's. The idle timer is not moved by every woken poll: when it fires after one, it sets
 * itself for the rest of the interval. A transcript line every 125 ms then costs one immediate,
 * not a clearTimeout and a setTimeout besides (which, in a process woken for each line, were a
 * fair part of what the line cost).
 */
export class PollScheduler {
  /** The woken poll scheduled next: an immediate, or a timer for the rest of its gap. */
  private woke: { cancel(): void } | null = null;
  /** The idle interval's timer (see the class comment), and when it is due (ms, performance clock). */
  private idle: NodeJS.Timeout | null = null;
  private idleDueAt = Infinity;
  /** Timer polls in a row that were quiet (see PollSchedulerOptions.quiet). */
  private quietStreak = 0;
  private running = false;
  private polling: Promise<void> | null = null;
  private woken = false;
  /** When the last poll started by a wake began (ms, performance clock). */
  private lastWokenAt = -Infinity;
  /** When the last poll ended (ms, performance clock): the idle interval runs from there. */
  private lastPollEndedAt = -Infinity;
  /**
   * Per source of wakes (a host's watcher; '' for the rest): wakes in a row that came sooner than
   * `streamAfterMs` after the woken poll that took its wake before, and when that poll began.
   */
  private readonly streams = new Map<string, { streak: number; lastTakenAt: number }>();
  /** The sources that woke since the last poll began. */
  private readonly pending = new Set<string>();

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
    this.woke?.cancel();
    this.woke = null;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.idleDueAt = Infinity;
    await this.polling;
  }

  /**
   * Something changed: poll soon (right after the poll in flight, if any). `source` names what
   * woke it (a host): whether wakes stream is judged per source, so a hundred hosts each writing a
   * line now and then do not make a stream that spaces every host's polls 200 ms apart.
   */
  wake(source = ''): void {
    if (!this.running) return;
    // A source's first wake a poll has not taken yet says whether it streams; later ones join it.
    let joined = false;
    if (!this.pending.has(source)) {
      const s = this.streams.get(source) ?? { streak: 0, lastTakenAt: -Infinity };
      const soon = performance.now() - s.lastTakenAt < (this.options.streamAfterMs ?? STREAM_AFTER_MS);
      s.streak = soon ? s.streak + 1 : 0;
      this.streams.set(source, s);
      this.pending.add(source);
      joined = true;
    }
    this.woken = true;
    this.quietStreak = 0;
    // A poll in flight takes the wake right after it; a woken poll already due takes it too,
    // sooner when this source's gap is shorter than the one it was set for.
    if (this.polling) return;
    if (this.woke) {
      if (!joined) return;
      this.woke.cancel();
    }
    this.scheduleWoken();
  }

  /** The woken poll: in this turn of the event loop once its gap has passed, else when it has. */
  private scheduleWoken(): void {
    const delay = Math.max(0, this.lastWokenAt + this.gap() - performance.now());
    if (delay === 0) {
      // In the same turn as the wake (a watcher's event), not in a timer's turn a millisecond later:
      // an idle process woken once per line, not twice.
      const immediate = setImmediate(() => this.run(true));
      this.woke = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(() => this.run(true), delay);
      this.woke = { cancel: () => clearTimeout(timeout) };
    }
  }

  /** The idle interval: `intervalMs`, or `quietIntervalMs` once enough timer polls in a row were quiet. */
  private interval(): number {
    const { intervalMs, quietIntervalMs = QUIET_POLL_MS, quietAfter = QUIET_AFTER } = this.options;
    return this.options.quiet && this.quietStreak >= quietAfter ? Math.max(intervalMs, quietIntervalMs) : intervalMs;
  }

  /**
   * The idle timer, set for what is left of the interval since the last poll ended. A timer already
   * set is kept unless it is due later than the interval now asks (the quiet ended): a woken poll
   * does not move it.
   */
  private scheduleIdle(): void {
    const dueAt = this.lastPollEndedAt + this.interval();
    if (this.idle) {
      if (this.idleDueAt <= dueAt) return;
      clearTimeout(this.idle);
    }
    this.idleDueAt = dueAt;
    this.idle = setTimeout(() => {
      this.idle = null;
      this.idleDueAt = Infinity;
      if (!this.running) return;
      // A poll is running or due: its end sets the timer again. One ran since it was set: the
      // interval runs from that one.
      if (this.polling || this.woke) return;
      const interval = this.interval();
      if (performance.now() - this.lastPollEndedAt < interval - Math.min(IDLE_TIMER_EARLY_MS, interval / 10)) return this.scheduleIdle();
      this.run(false);
    }, Math.max(0, dueAt - performance.now()));
  }

  /** The wake gap: the shortest a waking source's streak allows (the plain gap, the stream's, or the sustained stream's). */
  private gap(): number {
    const { minWakeGapMs, streamWakeGapMs = minWakeGapMs, sustainedWakeGapMs = streamWakeGapMs } = this.options;
    let streak = Infinity;
    for (const source of this.pending) streak = Math.min(streak, this.streams.get(source)?.streak ?? 0);
    if (streak === Infinity) streak = 0;
    if (streak >= SUSTAINED_STREAK) return sustainedWakeGapMs;
    return streak >= 2 ? streamWakeGapMs : minWakeGapMs;
  }

  private run(woken: boolean): void {
    if (woken) this.woke = null;
    if (!this.running || this.polling) return;
    if (woken) {
      this.lastWokenAt = performance.now();
      for (const source of this.pending) {
        const s = this.streams.get(source);
        if (s) s.lastTakenAt = this.lastWokenAt;
      }
    }
    this.pending.clear();
    this.woken = false;
    this.polling = this.options
      .poll({ timer: !woken })
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.polling = null;
        this.lastPollEndedAt = performance.now();
        // A wake while it ran is news the poll did not see: the quiet ends.
        this.quietStreak = !woken && !this.woken && this.options.quiet?.() ? this.quietStreak + 1 : 0;
        if (!this.running) return;
        if (this.woken) this.scheduleWoken();
        this.scheduleIdle();
      });
  }
}
