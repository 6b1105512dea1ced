import { describe, expect, it } from 'vitest';
import { MAX_SPACER_PX, ROW_PX, rowsIn, scrollTopFor, spacerPx, topLineAt } from './scroll-map';

describe('the transcript scroll map', () => {
  const viewport = 40 * ROW_PX;

  it('is exact for small files: a row a row height', () => {
    expect(spacerPx(1000, viewport)).toBe(1000 * ROW_PX);
    expect(topLineAt(0, 1000, viewport)).toBe(1);
    expect(topLineAt(scrollTopFor(500, 1000, viewport), 1000, viewport)).toBe(500);
    expect(topLineAt(spacerPx(1000, viewport) - viewport, 1000, viewport)).toBe(1000 - rowsIn(viewport) + 1);
  });

  it('caps the spacer for a file of 50 million lines, and every line is still reachable both ways', () => {
    const lines = 50_000_000;
    expect(spacerPx(lines, viewport)).toBe(MAX_SPACER_PX);
    for (const line of [1, 2, 5_000_000, 25_000_000, lines - rowsIn(viewport) + 1]) {
      expect(topLineAt(scrollTopFor(line, lines, viewport), lines, viewport)).toBe(line);
    }
    // Half way down the bar is half way through the file.
    expect(Math.abs(topLineAt((MAX_SPACER_PX - viewport) / 2, lines, viewport) - lines / 2)).toBeLessThan(50);
  });

  it('shows a file shorter than the viewport from its first line', () => {
    expect(topLineAt(0, 5, viewport)).toBe(1);
    expect(scrollTopFor(3, 5, viewport)).toBe(0);
  });
});
