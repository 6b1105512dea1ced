import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lttb, lttbIndices } from './lttb';

describe('lttb', () => {
  it('keeps the first and last points, at most maxPoints, in increasing order', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { nil: null }), { minLength: 0, maxLength: 400 }), fc.integer({ min: 3, max: 500 }), (ys, max) => {
        const xs = ys.map((_, i) => i * 10);
        const idx = lttbIndices(xs, ys, max);
        expect(idx.length).toBeLessThanOrEqual(Math.max(max, 0));
        expect(idx.length).toBe(Math.min(max, ys.length));
        if (ys.length > 0) {
          expect(idx[0]).toBe(0);
          expect(idx.at(-1)).toBe(ys.length - 1);
        }
        for (let i = 1; i < idx.length; i++) expect(idx[i] ?? 0).toBeGreaterThan(idx[i - 1] ?? 0);
      }),
    );
  });

  it('keeps a spike that averaging would flatten', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const ys = xs.map((i) => (i === 537 ? 100 : 1));
    const out = lttb(xs, ys, 50);
    expect(out.x).toHaveLength(50);
    expect(out.y).toContain(100);
    expect(out.x).toContain(537);
  });

  it('returns short series whole', () => {
    expect(lttb([1, 2, 3], [5, null, 7], 10)).toEqual({ x: [1, 2, 3], y: [5, null, 7] });
  });
});
