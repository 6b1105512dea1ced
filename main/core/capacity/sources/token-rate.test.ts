import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOKEN_RATE_WINDOW_MS, TokenCounters } from './token-rate';

describe('tokens a second from a generated-token counter', () => {
  it('averages bursts over the window: a counter that moves once a minute reads as its load', () => {
    const c = new TokenCounters();
    expect(c.observe('a', 0, 1000, true)).toEqual({ tokens: null, spanMs: 0, rate: null });
    // Polled every 10 s; a finished request adds 600 tokens at 30 s only.
    const seen = [10, 20, 30, 40, 50, 60].map((s) => c.observe('a', s * 1000, s >= 30 ? 1600 : 1000, true));
    expect(seen.map((o) => o.tokens)).toEqual([0, 0, 600, 0, 0, 0]);
    expect(seen.map((o) => o.spanMs)).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(seen.at(-1)?.rate).toBe(10);
    // Past the window the burst leaves it.
    expect(c.observe('a', 100_000, 1600, true).rate).toBe(0);
  });

  it('a counter that went down counts from zero at the previous poll; down or unknown forgets it', () => {
    const c = new TokenCounters();
    c.observe('a', 0, 50_000, true);
    expect(c.observe('a', 10_000, 100, true)).toEqual({ tokens: 100, spanMs: 10_000, rate: 10 });
    expect(c.observe('a', 20_000, 200, false)).toEqual({ tokens: null, spanMs: 0, rate: null });
    expect(c.observe('a', 30_000, 300, true).rate).toBeNull();
    expect(c.observe('a', 30_000, 400, true).rate).toBeNull(); // the same instant twice: no rate
  });

  it('keeps at most a window of observations, and the rate is never negative', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 250, max: 30_000 }), fc.integer({ min: 0, max: 1e9 })), { maxLength: 500 }), (steps) => {
        const c = new TokenCounters();
        let t = 0;
        for (const [dt, total] of steps) {
          t += dt;
          const o = c.observe('a', t, total, true);
          if (o.rate !== null) expect(o.rate).toBeGreaterThanOrEqual(0);
        }
        const kept = (c as unknown as { seen: Map<string, unknown[]> }).seen.get('a') ?? [];
        expect(kept.length).toBeLessThanOrEqual(TOKEN_RATE_WINDOW_MS / 250 + 2);
      }),
    );
  });
});
