import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store';
import { NoticeTick } from './notice-tick';
import { ProblemBoard } from './problem-board';
import { until } from '../../../testing/until';

describe('NoticeTick', () => {
  const stores: Store[] = [];
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
  });

  it('stop() resolves only once the tick in flight has finished (its sends record what went), and no tick comes after it', async () => {
    const store = Store.open(':memory:');
    stores.push(store);
    const board = new ProblemBoard(store, () => [], () => undefined);
    let ticks = 0;
    let finish = (): void => undefined;
    const ticker = new NoticeTick({ tick: () => (ticks++, new Promise<void>((resolve) => (finish = resolve))) }, board, 1);
    ticker.start();
    await until(() => ticks === 1, 5000, 'the first tick');
    const order: string[] = [];
    const stopped = ticker.stop().then(() => order.push('stopped'));
    // The tick in flight ends only when its sends are answered: stop() resolves after it. A turn of
    // the event loop first, so a stop() that did not wait would have resolved by then.
    await new Promise((r) => setImmediate(r));
    finish();
    order.push('tick finished');
    await stopped;
    expect(order).toEqual(['tick finished', 'stopped']);
    expect(ticks).toBe(1);
  });

  it('stop() with no tick in flight resolves at once', async () => {
    const store = Store.open(':memory:');
    stores.push(store);
    const ticker = new NoticeTick({ tick: () => Promise.resolve() }, new ProblemBoard(store, () => [], () => undefined), 60_000);
    ticker.start();
    await ticker.stop();
  });

  it('runs a tick that is nearly due in the wake of a poll (ride), and then not again until the next is nearly due', async () => {
    const store = Store.open(':memory:');
    stores.push(store);
    const board = new ProblemBoard(store, () => [], () => undefined);
    let ticks = 0;
    // A tick a minute, ridden up to 10 s early, on a clock the test moves: its own timer is 70 s away throughout.
    let now = 0;
    const ticker = new NoticeTick({ tick: () => (ticks++, Promise.resolve()) }, board, 60_000, 10_000, () => now);
    ticker.start();
    try {
      now = 49_999;
      ticker.ride();
      expect(ticks, 'not within 10 s of its time').toBe(0);
      now = 50_000;
      ticker.ride();
      // At once, in the poll's wake: not on a timer.
      expect(ticks).toBe(1);
      // The tick's promise settles in microtasks: after them, the next is scheduled from `now`.
      await new Promise((r) => setImmediate(r));
      // The next tick is a whole interval away again.
      now = 50_001;
      ticker.ride();
      expect(ticks).toBe(1);
      now = 100_000;
      ticker.ride();
      expect(ticks).toBe(2);
    } finally {
      await ticker.stop();
    }
    // Without polls, its own timer ticks all the same.
    let alone = 0;
    const timed = new NoticeTick({ tick: () => (alone++, Promise.resolve()) }, board, 20, 5);
    timed.start();
    try {
      await until(() => alone >= 2, 10_000, 'two ticks on the timer');
    } finally {
      await timed.stop();
    }
  });
});
