import { describe, expect, it } from 'vitest';
import { linePath, maxValue, yAxis } from './chart-path';

describe('chart paths', () => {
  const x = (t: number) => t / 10;
  const y = (v: number) => 100 - v * 10;

  it('draws one path through the points in tenths of a pixel, lifting the pen at gaps', () => {
    const d = linePath([0, 10, 20, 30, 40], [1, 2, null, 3, 0.25], x, y);
    expect(d).toBe('M0,900L10,800M30,700L40,975');
    // A series whose values are shorter than its times draws the points it has.
    expect(linePath([0, 10, 20], [1, 2], x, y)).toBe('M0,900L10,800');
  });

  it('skips what the scale cannot place', () => {
    expect(linePath([0, 10, 20], [1, 2, 3], (t) => (t === 10 ? undefined : t), y)).toBe('M0,900M200,700');
    expect(linePath([], [], x, y)).toBe('');
  });

  it('takes the largest value over every line', () => {
    expect(maxValue([{ values: [1, null] }, { values: [6.5] }])).toBe(6.5);
    expect(maxValue([])).toBe(0);
  });

  it('puts y ticks at round steps from 0 to a top at or above the largest value', () => {
    expect(yAxis(6)).toEqual({ top: 6, ticks: [0, 2, 4, 6] });
    expect(yAxis(6.1)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
    expect(yAxis(4)).toEqual({ top: 4, ticks: [0, 1, 2, 3, 4] });
    expect(yAxis(3.2)).toEqual({ top: 4, ticks: [0, 1, 2, 3, 4] });
    expect(yAxis(0.3)).toEqual({ top: 0.3, ticks: [0, 0.1, 0.2, 0.3] });
    expect(yAxis(0.37)).toEqual({ top: 0.4, ticks: [0, 0.1, 0.2, 0.3, 0.4] });
    expect(yAxis(1234)).toEqual({ top: 1500, ticks: [0, 500, 1000, 1500] });
    expect(yAxis(0)).toEqual({ top: 1, ticks: [0, 1] });
  });
});
