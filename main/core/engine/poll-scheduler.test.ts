import { afterEach, describe, expect, it } from 'vitest';
import { PollScheduler } from './poll-scheduler';

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
});
