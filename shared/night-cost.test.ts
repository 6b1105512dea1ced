import { describe, expect, it } from 'vitest';
import { formatAmount, monthDays, monthPace } from './night-cost';

describe('monthPace', () => {
  it('projects what was spent over the month and says whether it passes the budget', () => {
    // 10 days, 300 spent: 30 a day, 900 over 30 days.
    expect(monthPace(300, 10, 30, 1000)).toEqual({ spent: 300, projected: 900, budget: 1000, passes: false });
    expect(monthPace(300, 10, 30, 800)).toEqual({ spent: 300, projected: 900, budget: 800, passes: true });
    // Exactly at the budget is within it.
    expect(monthPace(300, 10, 30, 900).passes).toBe(false);
    // The first night of a 31-day month, and the last day: the projection is what was spent.
    expect(monthPace(5, 1, 31, 150)).toMatchObject({ projected: 155, passes: true });
    expect(monthPace(140, 28, 28, 150)).toMatchObject({ projected: 140, passes: false });
    // Nothing spent passes no budget, but any spending passes a budget of 0.
    expect(monthPace(0, 3, 30, 0).passes).toBe(false);
    expect(monthPace(0.01, 3, 30, 0).passes).toBe(true);
    expect(monthPace(1, 3, 30, 10).projected).toBe(10);
  });

  it('refuses impossible days and negative amounts', () => {
    expect(() => monthPace(1, 0, 30, 10)).toThrow(RangeError);
    expect(() => monthPace(1, 31, 30, 10)).toThrow(RangeError);
    expect(() => monthPace(1, 2.5, 30, 10)).toThrow(RangeError);
    expect(() => monthPace(-1, 2, 30, 10)).toThrow(RangeError);
    expect(() => monthPace(1, 2, 30, Number.NaN)).toThrow(RangeError);
  });
});

describe('monthDays', () => {
  it.each([
    ['2026-11-12', { month: '2026-11', dayOfMonth: 12, daysInMonth: 30 }],
    ['2026-12-31', { month: '2026-12', dayOfMonth: 31, daysInMonth: 31 }],
    ['2028-02-29', { month: '2028-02', dayOfMonth: 29, daysInMonth: 29 }],
    ['2026-02-01', { month: '2026-02', dayOfMonth: 1, daysInMonth: 28 }],
    ['2026-02-29', null],
    ['2026-13-01', null],
    ['2026-11-00', null],
    ['yesterday', null],
  ])('%s', (date, expected) => expect(monthDays(date)).toEqual(expected));
});

describe('formatAmount', () => {
  it('groups thousands, shows cents, and more digits below 1', () => {
    expect(formatAmount(1031.25, 'USD')).toBe('1,031.25 USD');
    expect(formatAmount(3, 'EUR')).toBe('3.00 EUR');
    expect(formatAmount(0.0042, 'USD')).toBe('0.0042 USD');
    expect(formatAmount(0, 'USD')).toBe('0.00 USD');
  });
});
