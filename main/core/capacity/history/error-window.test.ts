import { describe, expect, it } from 'vitest';
import { Store } from '../../store/store';
import { ErrorWindow } from './error-window';
import { CapacityHistory, type StoredSample } from './history-store';

const T0 = Date.parse('2026-05-22T14:00:00Z');
const WINDOW = 15 * 60_000;
const sample = (t: number, requests: number | null, errors: Record<string, number> | null): StoredSample => ({
  proxy: 'gw', host: 'gw', t, up: true, slotsTotal: null, slotsBusy: null, inflight: 12, queued: null, spanMs: requests === null ? 0 : 10_000, requests, errors,
});

describe('the error window', () => {
  it('sums server failures over the last window as polls come, dropping what slid out, from stored samples after a restart', () => {
    const store = Store.open(':memory:');
    const hist = new CapacityHistory(store.sql);
    const seeds: number[] = [];
    const seed = (proxy: string, host: string, from: number, to: number) => (seeds.push(to), hist.counterRows(proxy, host, from, to));
    const win = new ErrorWindow(seed);
    const poll = (w: ErrorWindow, s: StoredSample) => {
      hist.record([s]);
      return w.observe(s.proxy, s.host, s.t, s.requests, s.errors, WINDOW);
    };
    // The first sample has no delta yet: nothing is known.
    expect(poll(win, sample(T0, null, null))).toBeNull();
    // A poll every 10 s for 20 minutes: 10 requests each, 2 of them 504 and 1 a 400 (not counted) from minute 5 on.
    let last = null;
    for (let i = 1; i <= 120; i++) last = poll(win, sample(T0 + i * 10_000, 10, i > 30 ? { '504': 2, '400': 1 } : {}));
    // The window (T0 + 5 min, T0 + 20 min] holds samples 31..120: 90 samples, all failing.
    expect(last).toEqual({ errors: 180, requests: 900, windowMs: WINDOW });
    // Only the first sight of the series read the store; every later poll used the running sums.
    expect(seeds).toEqual([T0]);

    // A restart: a new window starts from the stored samples of its window, this poll's included.
    const again = new ErrorWindow(seed);
    expect(poll(again, sample(T0 + 121 * 10_000, 10, {}))).toEqual({ errors: 178, requests: 900, windowMs: WINDOW });
    // Quiet for a whole window: nothing counted is left.
    expect(again.observe('gw', 'gw', T0 + 121 * 10_000 + WINDOW, null, null, WINDOW)).toBeNull();
    store.close();
  });
});
