import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGINE_WAKE_GAPS, PollScheduler, QUIET_AFTER, QUIET_POLL_MS, STREAM_AFTER_MS, STREAM_WAKE_GAP_MS, SUSTAINED_STREAK, SUSTAINED_WAKE_GAP_MS } from './poll-scheduler';

/**
 * The scheduler's clock and timers, faked: the gaps are the subject, and a busy machine must not
 * move them. Immediates stay real (a fake one set while the clock runs is put off by a millisecond).
 */
const fakeClock = (): void => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
};

/** Let the immediates queued so far run (a woken poll whose gap has passed), the fake clock standing still. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('PollScheduler', () => {
  const schedulers: PollScheduler[] = [];
  afterEach(async () => {
    const stopping = schedulers.splice(0).map((s) => s.stop());
    // A poll in flight on the fake clock ends only when the clock runs.
    if (vi.isFakeTimers()) await vi.runOnlyPendingTimersAsync();
    vi.useRealTimers();
    await Promise.all(stopping);
  });
  /** A scheduler whose polls each take `pollMs` on the fake clock; `polls` holds when each began. */
  const make = (pollMs: number, intervalMs: number, minWakeGapMs: number) => {
    fakeClock();
    const polls: number[] = [];
    const s = new PollScheduler({
      intervalMs,
      minWakeGapMs,
      poll: async () => {
        polls.push(performance.now());
        await new Promise((r) => setTimeout(r, pollMs));
      },
    });
    schedulers.push(s);
    return { s, polls, t: performance.now() };
  };

  it('polls at once, then every interval when nothing wakes it', async () => {
    const { s, polls, t } = make(1, 1000, 50);
    s.start();
    expect(polls).toEqual([t]);
    // The interval runs from the end of the poll before (1 ms long).
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls).toEqual([t]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(1001);
    expect(polls.map((p) => p - t)).toEqual([0, 1001, 2002]);
  });

  it('runs the timer poll when its timer fires a little early against performance.now(), instead of setting the timer again', async () => {
    const { s, polls, t } = make(7, 1000, 50);
    // Node sets a timer from the loop's time as the turn began: one set late in a long turn fires
    // early against performance.now(). Here the performance clock runs 1 % slow, so each timer of
    // the interval fires 10 ms early by it.
    const fake = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => t + (fake() - t) * 0.99);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    s.start();
    await vi.advanceTimersByTimeAsync(10_200);
    // Ten timer polls, and no timer set but the interval's and the polls' own 7 ms.
    expect(polls).toHaveLength(11);
    expect(timers.mock.calls.map((c) => Math.round(Number(c[1]))).filter((ms) => ms !== 7 && ms < 900)).toEqual([]);
  });

  it("runs a woken poll whose gap has passed in the same turn of the event loop as the wake, not in a timer's later turn", async () => {
    // Real timers: the subject is which turn of Node's event loop runs the poll.
    const polls: number[] = [];
    const s = new PollScheduler({ intervalMs: 60_000, minWakeGapMs: 50, poll: () => (polls.push(performance.now()), Promise.resolve()) });
    schedulers.push(s);
    s.start(); // a timer's poll, not a woken one: the wake gap has passed already
    // In a timer's turn, once the first poll (already resolved) is done.
    await new Promise((r) => setTimeout(r, 0));
    expect(polls).toHaveLength(1);
    s.wake();
    // An immediate queued after the wake runs after the poll's, in this turn's check phase; a timer
    // of 0 ms set by the wake would run only in the next turn's timer phase, after it.
    await new Promise((r) => setImmediate(r));
    expect(polls).toHaveLength(2);
  });

  it('polls soon after a wake, and keeps a wake that came during a poll', async () => {
    const { s, polls, t } = make(100, 60_000, 0);
    s.start(); // a 100 ms poll is in flight
    await vi.advanceTimersByTimeAsync(20);
    s.wake(); // during it: kept, not run beside it
    await vi.advanceTimersByTimeAsync(79);
    expect(polls).toEqual([t]);
    await vi.advanceTimersByTimeAsync(1); // the first poll ends: the kept wake's poll begins then
    await settle();
    expect(polls.map((p) => p - t)).toEqual([0, 100]);
    await vi.advanceTimersByTimeAsync(300);
    expect(polls).toHaveLength(2);
    const t0 = performance.now();
    s.wake(); // after a quiet spell: at once
    await settle();
    expect(polls.map((p) => p - t)).toEqual([0, 100, t0 - t]);
  });

  it('coalesces a burst of wakes into a poll per gap', async () => {
    const { s, polls } = make(1, 60_000, 200);
    s.start();
    await vi.advanceTimersByTimeAsync(50);
    const t0 = performance.now();
    for (let i = 0; i < 40; i++) {
      s.wake();
      await vi.advanceTimersByTimeAsync(10); // 40 wakes over 400 ms
    }
    await vi.advanceTimersByTimeAsync(250);
    // One poll at once, then one per 200 ms, the last taking the last wakes: never one per wake.
    expect(polls.filter((p) => p >= t0).map((p) => p - t0)).toEqual([0, 200, 400]);
  });

  it('stops polling when stopped, and reports a failed poll without stopping', async () => {
    fakeClock();
    const errors: unknown[] = [];
    let n = 0;
    const s = new PollScheduler({
      intervalMs: 20,
      minWakeGapMs: 0,
      poll: async () => {
        n += 1;
        if (n === 1) throw new Error('boom');
      },
      onError: (e) => errors.push(e),
    });
    schedulers.push(s);
    s.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toHaveLength(1);
    expect(n).toBe(6); // at 0, 20, ... 100
    await s.stop();
    s.wake();
    // Nothing is left to run it: no timer is set, and none fires however long the clock runs.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(n).toBe(6);
  });

  it('keeps its idle timer through woken polls: no timer set or cleared per woken poll, and the idle poll an interval after the last', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const polls: { at: number; timer: boolean }[] = [];
      const s = new PollScheduler({ intervalMs: 1000, minWakeGapMs: 50, poll: ({ timer }) => (polls.push({ at: performance.now(), timer }), Promise.resolve()) });
      schedulers.push(s);
      s.start();
      await vi.advanceTimersByTimeAsync(10);
      const set = vi.spyOn(globalThis, 'setTimeout');
      const cleared = vi.spyOn(globalThis, 'clearTimeout');
      for (let i = 0; i < 8; i++) {
        s.wake(); // a line every 125 ms: each a woken poll of its own
        await vi.advanceTimersByTimeAsync(125);
      }
      expect(polls.filter((p) => !p.timer)).toHaveLength(8);
      expect(set.mock.calls.length).toBeLessThanOrEqual(2); // the idle timer, set again once for the rest of its interval
      expect(cleared).not.toHaveBeenCalled();
      const last = polls.at(-1)?.at ?? 0;
      await vi.advanceTimersByTimeAsync(1100);
      const idle = polls.filter((p) => p.timer && p.at > last);
      expect(idle).toHaveLength(1);
      expect((idle[0]?.at ?? 0) - last).toBeGreaterThanOrEqual(1000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('spaces timer polls QUIET_POLL_MS apart once QUIET_AFTER in a row were quiet, and a wake or a poll that was not ends it at once', async () => {
    fakeClock();
    try {
      const polls: { at: number; timer: boolean }[] = [];
      let quiet = true;
      const s = new PollScheduler({ intervalMs: 1000, minWakeGapMs: 50, quiet: () => quiet, poll: ({ timer }) => (polls.push({ at: performance.now(), timer }), Promise.resolve()) });
      schedulers.push(s);
      s.start(); // a first poll at once (not a timer's: it counts for nothing)
      const timerGaps = (): number[] => {
        const t = polls.filter((p) => p.timer).map((p) => p.at);
        return t.slice(1).map((x, i) => Math.round(x - (t[i] ?? 0)));
      };
      await vi.advanceTimersByTimeAsync(QUIET_AFTER * 1000 + 3 * QUIET_POLL_MS + 10);
      // QUIET_AFTER polls a second apart, then QUIET_POLL_MS apart.
      expect(timerGaps()).toEqual([...Array<number>(QUIET_AFTER - 1).fill(1000), ...Array<number>(3).fill(QUIET_POLL_MS)]);
      // A wake: its poll at once, and the next timer poll a second after it, not five.
      polls.length = 0;
      s.wake();
      await settle();
      expect(polls).toEqual([{ at: expect.any(Number), timer: false }]);
      const woken = polls[0]?.at ?? 0;
      await vi.advanceTimersByTimeAsync(1000);
      expect(polls.filter((p) => p.timer).map((p) => Math.round(p.at - woken))).toEqual([1000]);
      // Quiet again after QUIET_AFTER timer polls; then one that is not (it published) ends it.
      await vi.advanceTimersByTimeAsync((QUIET_AFTER - 1) * 1000 + QUIET_POLL_MS);
      polls.length = 0;
      quiet = false;
      await vi.advanceTimersByTimeAsync(QUIET_POLL_MS + 2 * 1000 + 10);
      expect(timerGaps()).toEqual([1000, 1000]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a second between timer polls without a quiet check, however long nothing happens', async () => {
    fakeClock();
    try {
      const polls: number[] = [];
      const s = new PollScheduler({ intervalMs: 1000, minWakeGapMs: 50, poll: () => (polls.push(performance.now()), Promise.resolve()) });
      schedulers.push(s);
      s.start();
      await vi.advanceTimersByTimeAsync(20_000 + 10);
      expect(polls).toHaveLength(21);
    } finally {
      vi.useRealTimers();
    }
  });

  describe('while changes stream', () => {
    // The clock is the test's: the gaps are the subject, and a busy machine must not move them.
    afterEach(() => vi.useRealTimers());
    const make = (): { s: PollScheduler; polls: number[] } => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const polls: number[] = [];
      const s = new PollScheduler({
        intervalMs: 60_000,
        ...ENGINE_WAKE_GAPS,
        poll: () => {
          polls.push(performance.now());
          return Promise.resolve();
        },
      });
      schedulers.push(s);
      s.start();
      return { s, polls };
    };
    /** Wake `wakes` times `everyMs` apart from `at`; the polls from `at` on, relative to it. */
    const stream = async (s: PollScheduler, polls: number[], everyMs: number, wakes: number, source?: string): Promise<number[]> => {
      const at = performance.now();
      for (let i = 0; i < wakes; i++) {
        s.wake(source);
        await vi.advanceTimersByTimeAsync(everyMs);
      }
      await vi.advanceTimersByTimeAsync(STREAM_WAKE_GAP_MS);
      return polls.filter((t) => t >= at).map((t) => t - at);
    };

    it('spaces polls STREAM_WAKE_GAP_MS apart once two wakes in a row came sooner than STREAM_AFTER_MS, then SUSTAINED_WAKE_GAP_MS', async () => {
      const { s, polls } = make();
      await vi.advanceTimersByTimeAsync(1000);
      const woken = await stream(s, polls, 50, 60); // 20 lines a second for 3 s
      expect(woken.slice(0, 3)).toEqual([0, 50, 150]);
      const gaps = woken.slice(1).map((t, i) => t - (woken[i] ?? 0));
      // Two quick wakes make a stream (100-ms gaps); SUSTAINED_STREAK polls in a row make it sustained (200 ms).
      const tier = SUSTAINED_STREAK - 1;
      expect(gaps.slice(1, tier)).toEqual(Array.from({ length: tier - 1 }, () => STREAM_WAKE_GAP_MS));
      expect(gaps.slice(tier).every((g) => g === SUSTAINED_WAKE_GAP_MS)).toBe(true);
      expect(gaps.slice(tier).length).toBeGreaterThan(5);
      expect(woken.length).toBeLessThanOrEqual(22); // not 60
      expect(woken.at(-1)).toBeGreaterThanOrEqual(2950 - SUSTAINED_WAKE_GAP_MS); // the last wakes are still read
    });

    it('reads the last wake of a sustained stream, and the first after it at once', async () => {
      const { s, polls } = make();
      await vi.advanceTimersByTimeAsync(1000);
      const woken = await stream(s, polls, 50, 40);
      await vi.advanceTimersByTimeAsync(SUSTAINED_WAKE_GAP_MS);
      expect(polls.filter((t) => t >= (polls.at(-1) ?? 0)).length).toBe(1);
      expect(woken.at(-1)).toBeGreaterThanOrEqual(39 * 50); // the 40th wake (at 1950 ms) was read
      await vi.advanceTimersByTimeAsync(500);
      expect(await stream(s, polls, 1, 1)).toEqual([0]);
    });

    it("judges streams per source: a host's line a second is read within the plain gap beside another host's sustained stream", async () => {
      const { s, polls } = make();
      await vi.advanceTimersByTimeAsync(1000);
      const quietWakes: number[] = [];
      for (let i = 0; i < 60; i++) {
        s.wake('busy'); // 20 lines a second on one host
        if (i > 20 && i % 7 === 0) {
          s.wake(`quiet-${i % 3}`);
          quietWakes.push(performance.now());
        }
        await vi.advanceTimersByTimeAsync(50);
      }
      // With one streak for every source these waited up to SUSTAINED_WAKE_GAP_MS (200 ms).
      const waits = quietWakes.map((t) => (polls.find((p) => p >= t) ?? Infinity) - t);
      expect(waits.every((w) => w <= ENGINE_WAKE_GAPS.minWakeGapMs)).toBe(true);
      // The busy host alone still streams: far fewer polls than wakes.
      const alone = await stream(s, polls, 50, 30, 'busy');
      expect(alone.length).toBeLessThanOrEqual(12);
    });

    it('reads every wake at once when they come further apart, and the first wake after a stream at once', async () => {
      const { s, polls } = make();
      await vi.advanceTimersByTimeAsync(1000);
      const apart = STREAM_AFTER_MS + 5;
      expect(await stream(s, polls, apart, 10)).toEqual(Array.from({ length: 10 }, (_, i) => i * apart));
      expect((await stream(s, polls, 50, 10)).length).toBeLessThan(10);
      await vi.advanceTimersByTimeAsync(500);
      expect(await stream(s, polls, 1, 1)).toEqual([0]);
    });
  });
});

