import { describe, expect, it, vi } from 'vitest';
import { formatClock, formatDateTime } from './format';

// format.ts keeps one formatter per kind and time zone; these hold it to what a fresh one says.
const fresh = (iso: string, timeZone: string | undefined, options: Intl.DateTimeFormatOptions): string =>
  new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(new Date(iso));

const CLOCK: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
const DATE_TIME: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' };

describe('kept formatters', () => {
  it('answer per time zone, whatever zone was asked for first', () => {
    const iso = '2026-08-23T13:12:40Z';
    const zones = ['UTC', 'America/New_York', undefined, 'Asia/Kolkata', 'UTC', undefined, 'America/New_York'];
    for (const zone of zones) {
      expect(formatClock(iso, zone)).toBe(fresh(iso, zone, CLOCK));
      expect(formatDateTime(iso, zone)).toBe(fresh(iso, zone, DATE_TIME));
    }
    expect(formatClock(iso, 'UTC')).toBe('13:12');
    expect(formatClock(iso, 'America/New_York')).toBe('09:12');
    expect(formatClock(iso, 'Asia/Kolkata')).toBe('18:42');
  });

  it('a clock and a date-time in the same zone do not share a formatter', () => {
    const iso = '2026-08-23T00:00:04-04:00';
    expect(formatClock(iso, 'America/New_York')).toBe('00:00');
    expect(formatDateTime(iso, 'America/New_York')).toMatch(/Sun.*23.*Aug.*00:00:04/);
    expect(formatClock(iso, 'America/New_York')).toBe('00:00');
  });

  it('a bad zone still throws, every time, and is not kept', () => {
    expect(() => formatClock('2026-08-23T00:00:04Z', 'Not/AZone')).toThrow(RangeError);
    expect(() => formatClock('2026-08-23T00:00:04Z', 'Not/AZone')).toThrow(RangeError);
  });
});

describe('formatter construction', () => {
  it('builds one formatter per kind and zone, not one per call (a year of Review rows called it thousands of times)', async () => {
    const Real = Intl.DateTimeFormat;
    let built = 0;
    // Count constructions only: every instance is the real formatter.
    const Counting = function (this: unknown, ...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      built += 1;
      return new Real(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    vi.stubGlobal('Intl', { ...Intl, DateTimeFormat: Counting });
    try {
      vi.resetModules();
      const format = await import('./format');
      const before = built;
      for (let i = 0; i < 500; i++) {
        format.formatClock(`2026-08-23T13:${String(i % 60).padStart(2, '0')}:00Z`, 'UTC');
        format.formatDateTime(`2026-08-23T13:${String(i % 60).padStart(2, '0')}:00Z`, 'UTC');
        format.formatDateTime('2026-08-23T13:00:00Z', 'America/New_York');
        format.weekdayOf('2026-08-23');
      }
      expect(built - before).toBe(3);
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });
});
