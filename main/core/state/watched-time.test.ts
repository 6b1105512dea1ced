import { describe, expect, it } from 'vitest';
import { Store } from '../store/store';
import type { HostState } from '../../../shared/domain';
import { HostOutages, runnerUnwatched } from '../engine/host-outages';
import { PERSIST_MS, WATCH_GAP_MS, WatchedTime } from './watched-time';

const T0 = Date.parse('2026-08-23T07:00:00Z');
const MIN = 60_000;

describe('WatchedTime', () => {
  it('grows one stretch while polls keep coming, and opens another after a gap (Loopdeck closed or asleep)', () => {
    const w = new WatchedTime(Store.open(':memory:'));
    for (let t = T0; t <= T0 + 30 * MIN; t += 1000) w.tick(t);
    // The laptop closed 07:30, opened 08:30.
    for (let t = T0 + 90 * MIN; t <= T0 + 100 * MIN; t += 1000) w.tick(t);
    expect(w.unwatched(T0 - 10 * MIN, T0 + 120 * MIN)).toEqual([
      { since: T0 - 10 * MIN, until: T0 },
      { since: T0 + 30 * MIN, until: T0 + 90 * MIN },
      { since: T0 + 100 * MIN, until: T0 + 120 * MIN },
    ]);
    expect(w.unwatched(T0 + 5 * MIN, T0 + 25 * MIN)).toEqual([]);
    // A gap just under WATCH_GAP_MS is one stretch still.
    w.tick(T0 + 100 * MIN + WATCH_GAP_MS);
    expect(w.unwatched(T0 + 95 * MIN, T0 + 100 * MIN + WATCH_GAP_MS)).toEqual([]);
  });

  it('writes the store when a stretch opens and at most once a PERSIST_MS; a restart claims no more than was written', () => {
    const store = Store.open(':memory:');
    const w = new WatchedTime(store);
    let writes = 0;
    const set = store.setMeta.bind(store);
    store.setMeta = (k, v) => {
      writes += 1;
      set(k, v);
    };
    for (let t = T0; t < T0 + 10 * MIN; t += 1000) w.tick(t);
    expect(writes).toBeLessThanOrEqual(1 + (10 * MIN) / PERSIST_MS);
    // A restart reads what was written: watched up to the last write, not the last tick.
    const again = new WatchedTime(store);
    const gap = again.unwatched(T0, T0 + 10 * MIN);
    expect(gap.length).toBe(1);
    expect((gap[0]?.until ?? 0) - (gap[0]?.since ?? 0)).toBeLessThanOrEqual(PERSIST_MS);
    expect(gap[0]?.until).toBe(T0 + 10 * MIN);
  });

  it('a damaged stored value is no stretch: nothing is claimed', () => {
    const store = Store.open(':memory:');
    store.setMeta('engine.watched', '{"not":"a list"}');
    expect(new WatchedTime(store).unwatched(T0, T0 + MIN)).toEqual([{ since: T0, until: T0 + MIN }]);
  });

  it('a runner host in a state that shows nothing of it (its key not trusted, its login refused) is not watched, though Loopdeck ran', () => {
    const store = Store.open(':memory:');
    const w = new WatchedTime(store);
    w.add({ since: T0, until: T0 + 120 * MIN });
    const outages = new HostOutages(store);
    const state = (s: HostState['state'], since: number): HostState => ({ name: 'runner', kind: 'ssh', state: s, error: null, since: new Date(since).toISOString(), attempt: 0, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false });
    outages.note([state('untrusted', T0 + 10 * MIN)], T0 + 10 * MIN);
    outages.note([state('connected', T0 + 40 * MIN)], T0 + 40 * MIN);
    // Unreachable is seen (an outage), not blind.
    outages.note([state('unreachable', T0 + 50 * MIN)], T0 + 50 * MIN);
    outages.note([state('auth-failed', T0 + 100 * MIN)], T0 + 100 * MIN);
    expect(runnerUnwatched('runner', T0, T0 + 130 * MIN, outages, w)).toEqual([
      { since: T0 + 120 * MIN, until: T0 + 130 * MIN },
      { since: T0 + 10 * MIN, until: T0 + 40 * MIN },
      { since: T0 + 100 * MIN, until: T0 + 130 * MIN },
    ]);
    // Kept across a restart.
    expect(new HostOutages(store).blindOf('runner').map((b) => [b.since, b.until])).toEqual([
      [T0 + 10 * MIN, T0 + 40 * MIN],
      [T0 + 100 * MIN, null],
    ]);
  });
});
