import { describe, expect, it } from 'vitest';
import { until } from '../../../../testing/until';
import { Rounds } from './rounds';

describe("a GitHub reader's rounds", () => {
  it('goes on after a failed round: a scheduled one is logged and the next comes; a failed now() leaves the next now() free', async () => {
    const kinds: boolean[] = [];
    let fail = true;
    const rounds = new Rounds({
      round: async (scheduled) => {
        kinds.push(scheduled);
        if (fail) {
          fail = false;
          throw new Error('GitHub said no');
        }
      },
      next: () => 10,
      what: 'a test round',
    });
    try {
      // A round asked for now that fails rejects for its caller; the one after it still runs.
      await expect(rounds.now()).rejects.toThrow('GitHub said no');
      await rounds.now();
      expect(kinds).toEqual([false, false]);
      // Scheduled rounds: the first fails (logged), the schedule goes on.
      fail = true;
      rounds.start();
      await until(() => kinds.filter((k) => k).length >= 3, 10_000, 'three scheduled rounds');
      expect(rounds.active).toBe(true);
    } finally {
      await rounds.stop();
    }
    expect(rounds.active).toBe(false);
  });

  it('stop aborts the requests in flight and waits for the round to end; no round follows', async () => {
    let started = 0;
    let ended = 0;
    const rounds = new Rounds({
      round: (scheduled) =>
        new Promise<void>((ok) => {
          started += 1;
          if (!scheduled) return ok();
          // A round whose requests end only when aborted.
          rounds.signal.addEventListener('abort', () => {
            ended += 1;
            ok();
          });
        }),
      next: () => 5,
      what: 'a test round',
    });
    rounds.start();
    await until(() => started === 1, 10_000, 'the first round');
    await rounds.stop();
    expect(rounds.signal.aborted).toBe(true);
    expect(ended).toBe(1);
    rounds.soon();
    await rounds.now();
    // Only the round asked for with now(): nothing scheduled after the stop.
    expect(started).toBe(2);
  });
});
