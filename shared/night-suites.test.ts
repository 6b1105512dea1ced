import { describe, expect, it } from 'vitest';
import { logClaims, nightSuiteTotals, suiteBaseline } from './night-suites';

const t = (failed: number) => ({ passed: 100, failed, skipped: 0, errors: 0 });

describe('a night\'s suites and a loop\'s baseline', () => {
  it('a night counts its last phase that ran a suite', () => {
    expect(nightSuiteTotals([{ suites: t(1) }, { suites: t(5) }, {}])).toEqual(t(5));
    expect(nightSuiteTotals([{}, {}])).toBeNull();
  });

  it('declared wins; learned is the lower median of the last green nights before the date, with three at least', () => {
    const nights = [
      { date: '2026-11-20', outcome: 'ok' as const, suites: t(30) },
      { date: '2026-11-21', outcome: 'ready' as const, suites: t(37) },
      { date: '2026-11-22', outcome: 'failed' as const, suites: t(90) },
      { date: '2026-11-23', outcome: 'ok' as const, suites: null },
      { date: '2026-11-24', outcome: 'ok' as const, suites: t(38) },
      { date: '2026-11-25', outcome: 'ok' as const, suites: t(39) },
    ];
    expect(suiteBaseline(12, nights)).toEqual({ failed: 12, from: 'declared', nights: 0 });
    expect(suiteBaseline(undefined, nights)).toEqual({ failed: 37, from: 'learned', nights: 4 });
    expect(suiteBaseline(undefined, nights, '2026-11-25')).toEqual({ failed: 37, from: 'learned', nights: 3 });
    expect(suiteBaseline(undefined, nights, '2026-11-24')).toBeNull();
  });

  it('the log\'s rows of a night: each item\'s outcome and red/green, summed; none of that date, null', () => {
    const backlog = [
      { id: 'REL-1', loop: 'reliability', outcomes: [{ date: '2026-11-29', outcome: 'DONE', red: 1, green: 1, note: null, line: 7 }] },
      { id: 'REL-2', loop: 'reliability', outcomes: [{ date: '2026-11-28', outcome: 'BLOCKED', red: null, green: null, note: 'no access', line: 5 }, { date: '2026-11-29', outcome: 'DONE', red: 2, green: 2, note: null, line: 6 }] },
      { id: 'REL-3', loop: 'other', outcomes: [{ date: '2026-11-29', outcome: 'DONE', red: 9, green: 9, note: null, line: 1 }] },
    ];
    expect(logClaims(backlog, 'reliability', '2026-11-29')).toEqual({
      rows: [
        { id: 'REL-2', outcome: 'DONE', red: 2, green: 2, line: 6 },
        { id: 'REL-1', outcome: 'DONE', red: 1, green: 1, line: 7 },
      ],
      red: 3,
      green: 3,
    });
    expect(logClaims(backlog, 'reliability', '2026-11-28')).toMatchObject({ red: null, green: null });
    expect(logClaims(backlog, 'reliability', '2026-11-27')).toBeNull();
  });
});
