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

  it('writes negative, zero and far coordinates as integers, the far ones held at ±1e9 units', () => {
    expect(linePath([0, 10, 20], [1, 1, 1], (t) => t - 10, () => 0)).toBe('M-100,0L0,0L100,0');
    expect(linePath([0, 1], [1, 1], (t) => (t === 0 ? -1e300 : 123.456), (v) => v * 1e12)).toBe('M-1000000000,1000000000L1235,1000000000');
    // 100,000 points in one path, as long as a 7-day view of many hosts needs.
    const times = Array.from({ length: 100_000 }, (_, i) => i);
    const d = linePath(times, times.map((i) => i % 7), (t) => t, (v) => 100 - v);
    expect(d.startsWith('M0,1000L10,990L20,980')).toBe(true);
    expect((d.match(/[ML]/g) ?? []).length).toBe(100_000);
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
