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
});
