import { describe, expect, it } from 'vitest';
import { BACKOFF_MAX_MS, backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('starts at 250 ms and doubles, before jitter', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4].map((a) => backoffDelay(a, mid))).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it('never exceeds 5 s, however many attempts', () => {
    for (const r of [0, 0.5, 0.999]) {
      for (const a of [5, 6, 10, 50, 1000]) expect(backoffDelay(a, () => r)).toBeLessThanOrEqual(BACKOFF_MAX_MS);
    }
    expect(backoffDelay(20, () => 0.5)).toBe(5000);
  });

  it('jitters within ±25 %', () => {
    expect(backoffDelay(2, () => 0)).toBe(750);
    expect(backoffDelay(2, () => 0.999)).toBeGreaterThan(1240);
    expect(backoffDelay(2, () => 0.999)).toBeLessThanOrEqual(1250);
  });
});
