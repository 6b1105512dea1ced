import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';

const mid = (): number => 0.5;

describe('backoffDelay', () => {
  it('doubles from the base per attempt and stops at the cap', () => {
    const policy = { baseMs: 100, maxMs: 1000, random: mid };
    expect([0, 1, 2, 3, 4, 5, 40].map((a) => backoffDelay(a, policy))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('spreads by ±jitter around the exponential figure, and not at all with jitter 0', () => {
    expect(backoffDelay(2, { baseMs: 250, maxMs: 5000, random: () => 0 })).toBe(750);
    expect(backoffDelay(2, { baseMs: 250, maxMs: 5000, random: () => 0.999 })).toBeGreaterThan(1240);
    expect(backoffDelay(2, { baseMs: 250, maxMs: 5000, jitter: 0.5, random: () => 0 })).toBe(500);
    expect(backoffDelay(3, { baseMs: 50, maxMs: 500, jitter: 0, random: () => 0.9 })).toBe(400);
  });

  it('is never negative, never above the cap and always finite, whatever the attempt or the random draw', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: false }), fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true }), fc.double()), fc.integer({ min: 1, max: 60_000 }), (attempt, r, base) => {
        const d = backoffDelay(attempt, { baseMs: base, maxMs: 60_000, random: () => r });
        expect(Number.isFinite(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(60_000);
      }),
    );
  });
});
