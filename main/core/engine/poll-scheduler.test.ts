import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGINE_WAKE_GAPS, PollScheduler, STREAM_AFTER_MS, STREAM_WAKE_GAP_MS, SUSTAINED_STREAK, SUSTAINED_WAKE_GAP_MS } from './poll-scheduler';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PollScheduler', () => {
  const schedulers: PollScheduler[] = [];
  afterEach(() => {
    for (const s of schedulers.splice(0)) void s.stop();
  });
  const make = (pollMs: number, intervalMs: number, minWakeGapMs: number) => {
    const polls: number[] = [];
    const s = new PollScheduler({
      intervalMs,
      minWakeGapMs,
      poll: async () => {
        polls.push(performance.now());
        await sleep(pollMs);
      },
    });
    schedulers.push(s);
    return { s, polls };
  };

  it('polls at once, then every interval when nothing wakes it', async () => {
    const { s, polls } = make(1, 60_000, 50);
    s.start();
    await sleep(100);
    expect(polls).toHaveLength(1);
  });

  it('runs a woken poll whose gap has passed in the same turn of the event loop as the wake, not in a timer\'s later turn', async () => {
    const { s, polls } = make(0, 60_000, 50);
    s.start();
    await sleep(80); // the first poll is done and its gap has passed
    expect(polls).toHaveLength(1);
    s.wake();
    // An immediate queued after the wake runs after the poll's (a timer of 0 ms would run only in the next turn).
    await new Promise((r) => setImmediate(r));
    expect(polls).toHaveLength(2);
  });

  it('polls soon after a wake, and keeps a wake that came during a poll', async () => {
    const { s, polls } = make(100, 60_000, 0);
    s.start(); // a 100 ms poll is in flight
    await sleep(20);
    s.wake(); // during it: kept
    await sleep(300);
    expect(polls).toHaveLength(2);
    expect((polls[1] ?? 0) - (polls[0] ?? 0)).toBeLessThan(250);
    const before = polls.length;
    const t0 = performance.now();
    s.wake(); // after a quiet spell: at once
    await sleep(150);
    expect(polls.length).toBe(before + 1);
    expect((polls[before] ?? Infinity) - t0).toBeLessThan(100);
  });

  it('coalesces a burst of wakes into a poll per gap', async () => {
    const { s, polls } = make(1, 60_000, 200);
    s.start();
    await sleep(50);
    const t0 = performance.now();
    for (let i = 0; i < 40; i++) {
      s.wake();
      await sleep(10); // 40 wakes over ~400 ms+
    }
    await sleep(250);
    const woken = polls.filter((t) => t >= t0);
    // One poll at once, then at most one per 200 ms: never one per wake.
    expect(woken.length).toBeGreaterThanOrEqual(2);
    expect(woken.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < woken.length; i++) expect((woken[i] ?? 0) - (woken[i - 1] ?? 0)).toBeGreaterThanOrEqual(195);
  });

  it('stops polling when stopped, and reports a failed poll without stopping', async () => {
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
    await sleep(100);
    expect(errors).toHaveLength(1);
    expect(n).toBeGreaterThan(2);
    await s.stop();
    const after = n;
    await sleep(100);
    expect(n).toBe(after);
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

