import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { DeadmanSchema } from '../../../shared/domain';
import type { Cycle, CycleStatus, Deadman, Phase, PhaseStatus } from '../../../shared/domain';
import { deadmanAt, deriveDeadman, fireTimes } from './deadman';
import { DeadmanClock } from './deadman-clock';
import type { DeadmanInput } from './deadman';
import type * as CronParser from 'cron-parser';

type CronParserModule = typeof CronParser;

const HOUR = 3_600_000;
const NY = 'America/New_York';

function phase(name: string, status: PhaseStatus, startedAt: string | null = null): Phase {
  return { name, status, startedAt, endedAt: null, timesFrom: startedAt ? 'stamps' : null, detail: [], stages: [], verdict: null, reason: 'test' };
}

/** A cycle whose first phase has `status` (and started at `startedAt`); the rest pending. */
function cycle(date: string, status: CycleStatus, startedAt: string | null = null, first: PhaseStatus = status): Cycle {
  return { date, status, phases: [phase('audit', first, startedAt), phase('remediate', 'pending'), phase('deliver', 'pending')] };
}

const pending = (date: string): Cycle => cycle(date, 'pending', null, 'pending');

function dm(over: Partial<Omit<DeadmanInput, 'now'>> & { now: string }): Deadman {
  const input: DeadmanInput = {
    schedule: '0 0 * * *',
    timezone: NY,
    graceMs: 2 * HOUR,
    capMs: 20 * HOUR,
    cycles: [],
    ...over,
    now: new Date(over.now),
  };
  return DeadmanSchema.parse(deriveDeadman(input));
}

describe('deriveDeadman: states', () => {
  // 2026-11-30 00:00 America/New_York (EST) = 05:00Z.
  it('is ok when the new cycle has evidence', () => {
    const d = dm({ now: '2026-11-30T06:00:00Z', cycles: [cycle('2026-11-30', 'running', '2026-11-30T05:00:04Z'), cycle('2026-11-29', 'ok')] });
    expect(d).toMatchObject({ state: 'ok', lastFireAt: '2026-11-30T05:00:00.000Z', expectedAt: '2026-12-01T05:00:00.000Z' });
  });

  it('counts a phase with a start time as evidence even while it reads pending', () => {
    const c: Cycle = { date: '2026-11-30', status: 'pending', phases: [phase('audit', 'pending', '2026-11-30T05:00:04Z')] };
    expect(dm({ now: '2026-11-30T08:00:00Z', cycles: [c] }).state).toBe('ok');
  });

  it('is late within the grace period and missed after it', () => {
    const cycles = [pending('2026-11-30'), cycle('2026-11-29', 'ok')];
    expect(dm({ now: '2026-11-30T05:00:00Z', cycles }).state).toBe('late');
    expect(dm({ now: '2026-11-30T06:59:59.999Z', cycles }).state).toBe('late');
    const missed = dm({ now: '2026-11-30T07:00:00Z', cycles });
    expect(missed.state).toBe('missed');
    expect(missed.reason).toBe('no cycle for 2026-11-30 by 02:00 America/New_York (fired 00:00 America/New_York, grace 2h)');
  });

  it('is missed when there are no cycles at all', () => {
    expect(dm({ now: '2026-11-30T12:00:00Z' }).state).toBe('missed');
  });

  it('is overrun, not missed or late, while the previous cycle still runs', () => {
    const cycles = [cycle('2026-11-29', 'running', '2026-11-29T05:00:00Z'), cycle('2026-11-28', 'ok')];
    const d = dm({ now: '2026-11-30T09:00:00Z', cycles });
    expect(d.state).toBe('overrun');
    expect(d.reason).toContain('2026-11-29');
    expect(dm({ now: '2026-11-30T05:30:00Z', cycles }).state).toBe('overrun');
  });

  /** A finished cycle of `date` that ran from `start` to `end` (audit then remediate, by their stamps). */
  const ran = (date: string, status: CycleStatus, start: string, end: string): Cycle => ({
    date,
    status,
    phases: [
      { ...phase('audit', 'ok', start), endedAt: new Date(Date.parse(start) + HOUR).toISOString() },
      { ...phase('remediate', status, new Date(Date.parse(start) + HOUR).toISOString()), endedAt: end },
    ],
  });

  it('is overrun, naming the previous cycle, for a fire day it swallowed, also once that cycle has finished', () => {
    // 2026-11-29's cycle ran from its own 00:00 fire to 02:30 EST on 11-30, past the 00:00 fire (05:00Z): no 11-30 cycle.
    const cycles = [ran('2026-11-29', 'ok', '2026-11-29T05:00:04Z', '2026-11-30T07:30:00Z')];
    for (const now of ['2026-11-30T09:00:00Z', '2026-11-30T20:00:00Z']) {
      const d = dm({ now, cycles });
      expect(d.state).toBe('overrun');
      expect(d.reason).toBe('cycle 2026-11-29 was still running at the 00:00 America/New_York fire (it ended 2026-11-30 02:30, ok), so 2026-11-30 had no cycle');
    }
    // A folder for the swallowed day without evidence is no cycle either.
    expect(dm({ now: '2026-11-30T09:00:00Z', cycles: [pending('2026-11-30'), ...cycles] }).state).toBe('overrun');
    // However it ended.
    expect(dm({ now: '2026-11-30T09:00:00Z', cycles: [ran('2026-11-29', 'incomplete', '2026-11-29T05:00:04Z', '2026-11-30T05:00:01Z')] }).state).toBe('overrun');
  });

  it('is missed when the previous cycle ended before the fire, or ran after it without running at it', () => {
    const before = dm({ now: '2026-11-30T09:00:00Z', cycles: [ran('2026-11-29', 'ok', '2026-11-29T05:00:04Z', '2026-11-30T04:59:59Z')] });
    expect(before.state).toBe('missed');
    expect(before.reason).toBe('no cycle for 2026-11-30 by 02:00 America/New_York (fired 00:00 America/New_York, grace 2h)');
    // An end after now is not believed until the clock reaches it, and the state is looked at again then.
    const ahead = [ran('2026-11-29', 'ok', '2026-11-29T05:00:04Z', '2026-11-30T09:00:05Z')];
    const early = deadmanAt({ schedule: '0 0 * * *', timezone: NY, graceMs: 2 * HOUR, capMs: 20 * HOUR, cycles: ahead, now: new Date('2026-11-30T09:00:00Z') });
    expect(early).toMatchObject({ deadman: { state: 'missed' }, until: Date.parse('2026-11-30T09:00:05Z') });
    expect(dm({ now: '2026-11-30T09:00:05Z', cycles: ahead }).state).toBe('overrun');
    // Started by hand after the fire: it did not hold the fire up.
    expect(dm({ now: '2026-11-30T09:00:00Z', cycles: [ran('2026-11-29', 'ok', '2026-11-30T05:10:00Z', '2026-11-30T07:00:00Z')] }).state).toBe('missed');
  });

  it('is missed when the previous cycle finished, even if badly', () => {
    expect(dm({ now: '2026-11-30T09:00:00Z', cycles: [cycle('2026-11-29', 'incomplete')] }).state).toBe('missed');
  });

  it('is stalled when the new cycle still runs past the cap, ok up to it', () => {
    const cycles = [cycle('2026-11-30', 'running', '2026-11-30T05:00:00Z')];
    expect(dm({ now: '2026-12-01T01:00:00Z', cycles }).state).toBe('ok'); // exactly 20h
    const d = dm({ now: '2026-12-01T01:00:01Z', cycles });
    expect(d.state).toBe('stalled');
    expect(d.reason).toBe('cycle 2026-11-30 is still running after 20h (cap 20h)');
  });

  it('measures a running cycle without start times from the fire time', () => {
    const c: Cycle = { date: '2026-11-30', status: 'running', phases: [phase('audit', 'running')] };
    expect(dm({ now: '2026-12-01T02:00:00Z', capMs: 20 * HOUR, cycles: [c] }).state).toBe('stalled');
    expect(dm({ now: '2026-11-30T20:00:00Z', capMs: 20 * HOUR, cycles: [c] }).state).toBe('ok');
  });

  it('holds a running phase named under caps to its own cap, from its own start', () => {
    const c: Cycle = {
      date: '2026-11-30',
      status: 'running',
      phases: [phase('audit', 'ok', '2026-11-30T05:00:00Z'), phase('remediate', 'ok', '2026-11-30T06:00:00Z'), phase('deliver', 'running', '2026-11-30T08:00:00Z')],
    };
    const capsMs = { deliver: 3 * HOUR };
    expect(dm({ now: '2026-11-30T11:00:00Z', capsMs, cycles: [c] }).state).toBe('ok'); // exactly 3h
    const d = dm({ now: '2026-11-30T11:30:00Z', capsMs, cycles: [c] });
    expect(d.state).toBe('stalled');
    expect(d.reason).toBe('cycle 2026-11-30 deliver is still running after 3h 30m (its cap 3h)');
    // Without caps the loop's 20 h cap still holds the same cycle.
    expect(dm({ now: '2026-11-30T11:30:00Z', cycles: [c] }).state).toBe('ok');
    // Another phase keeps the loop's cap: audit running 10 h is not stalled by deliver's 3 h.
    const audit: Cycle = { date: '2026-11-30', status: 'running', phases: [phase('audit', 'running', '2026-11-30T05:00:00Z'), phase('deliver', 'pending')] };
    expect(dm({ now: '2026-11-30T15:00:00Z', capsMs, cycles: [audit] }).state).toBe('ok');
    expect(dm({ now: '2026-12-01T01:00:01Z', capsMs, cycles: [audit] }).state).toBe('stalled');
  });

  it('does not call a finished cycle stalled', () => {
    expect(dm({ now: '2026-12-01T04:00:00Z', cycles: [cycle('2026-11-30', 'incomplete', '2026-11-30T05:00:00Z')] }).state).toBe('ok');
  });

  it('ignores cycles dated after the fire date', () => {
    expect(dm({ now: '2026-11-30T09:00:00Z', cycles: [cycle('2026-12-01', 'ok')] }).state).toBe('missed');
  });
});

describe('deriveDeadman: schedules and time zones', () => {
  it('reads a UTC schedule', () => {
    const d = dm({ schedule: '30 4 * * *', timezone: 'UTC', now: '2026-06-10T05:00:00Z', cycles: [pending('2026-06-10')] });
    expect(d).toMatchObject({ state: 'late', lastFireAt: '2026-06-10T04:30:00.000Z', expectedAt: '2026-06-11T04:30:00.000Z' });
  });

  it('names the cycle by the date in the loop time zone, not UTC', () => {
    // 23:30 in New York on 2026-06-09 is 03:30Z on 2026-06-10.
    const d = dm({ schedule: '30 23 * * *', now: '2026-06-10T04:00:00Z', cycles: [cycle('2026-06-09', 'running', '2026-06-10T03:30:00Z')] });
    expect(d).toMatchObject({ state: 'ok', lastFireAt: '2026-06-10T03:30:00.000Z' });
  });

  it('reads a weekly schedule', () => {
    // Mondays at 00:00 UTC; 2026-11-02 and 2026-11-09 are Mondays.
    const base = { schedule: '0 0 * * 1', timezone: 'UTC' };
    const d = dm({ ...base, now: '2026-11-04T12:00:00Z', cycles: [cycle('2026-11-02', 'ok')] });
    expect(d).toMatchObject({ state: 'ok', lastFireAt: '2026-11-02T00:00:00.000Z', expectedAt: '2026-11-09T00:00:00.000Z' });
    const m = dm({ ...base, now: '2026-11-04T12:00:00Z', cycles: [cycle('2026-10-26', 'ok')] });
    expect(m.state).toBe('missed');
    expect(m.reason).toContain('2026-11-02');
  });

  it('reads Europe/London across both DST changes', () => {
    const base = { schedule: '0 1 * * *', timezone: 'Europe/London' };
    // Winter: 01:00 GMT = 01:00Z. Summer: 01:00 BST = 00:00Z.
    expect(dm({ ...base, now: '2026-01-15T12:00:00Z', cycles: [cycle('2026-01-15', 'ok')] })).toMatchObject({
      state: 'ok',
      lastFireAt: '2026-01-15T01:00:00.000Z',
    });
    expect(dm({ ...base, now: '2026-07-15T00:30:00Z', cycles: [pending('2026-07-15')] })).toMatchObject({
      state: 'late',
      lastFireAt: '2026-07-15T00:00:00.000Z',
    });
    // Spring forward 2026-03-29 01:00 GMT -> 02:00 BST: 01:30 does not exist and fires at 02:30 BST.
    const gap = dm({ schedule: '30 1 * * *', timezone: 'Europe/London', now: '2026-03-29T03:00:00Z', cycles: [pending('2026-03-29')] });
    expect(gap).toMatchObject({ state: 'late', lastFireAt: '2026-03-29T01:30:00.000Z', expectedAt: '2026-03-30T00:30:00.000Z' });
    // Fall back 2026-10-25 02:00 BST -> 01:00 GMT: 01:30 happens twice, the first (00:30Z) counts.
    expect(dm({ schedule: '30 1 * * *', timezone: 'Europe/London', now: '2026-10-25T01:45:00Z', cycles: [pending('2026-10-25')] })).toMatchObject({
      state: 'late',
      lastFireAt: '2026-10-25T00:30:00.000Z',
      expectedAt: '2026-10-26T01:30:00.000Z',
    });
  });
});

describe('deriveDeadman: America/New_York DST', () => {
  // Spring forward: 2026-03-08 02:00 EST -> 03:00 EDT.
  it('fires a 02:30 schedule once on the spring-forward day, at 03:30 EDT', () => {
    const base = { schedule: '30 2 * * *' };
    expect(dm({ ...base, now: '2026-03-08T06:00:00Z', cycles: [cycle('2026-03-07', 'ok')] })).toMatchObject({
      state: 'ok',
      lastFireAt: '2026-03-07T07:30:00.000Z',
      expectedAt: '2026-03-08T07:30:00.000Z',
    });
    expect(dm({ ...base, now: '2026-03-08T08:00:00Z', cycles: [cycle('2026-03-07', 'ok')] })).toMatchObject({
      state: 'late',
      lastFireAt: '2026-03-08T07:30:00.000Z',
      expectedAt: '2026-03-09T06:30:00.000Z',
    });
    const missed = dm({ ...base, now: '2026-03-08T09:30:00Z', cycles: [cycle('2026-03-07', 'ok')] });
    expect(missed.state).toBe('missed');
    expect(missed.reason).toContain('2026-03-08');
    expect(dm({ ...base, now: '2026-03-08T09:30:00Z', cycles: [cycle('2026-03-08', 'ok', '2026-03-08T07:00:02Z')] }).state).toBe('ok');
  });

  it('fires a midnight schedule at midnight either side of spring forward', () => {
    const base = { schedule: '0 0 * * *' };
    expect(dm({ ...base, now: '2026-03-08T12:00:00Z', cycles: [cycle('2026-03-08', 'ok')] })).toMatchObject({
      state: 'ok',
      lastFireAt: '2026-03-08T05:00:00.000Z',
      expectedAt: '2026-03-09T04:00:00.000Z',
    });
    expect(dm({ ...base, now: '2026-03-09T05:00:00Z', cycles: [pending('2026-03-09'), cycle('2026-03-08', 'ok')] })).toMatchObject({
      state: 'late',
      lastFireAt: '2026-03-09T04:00:00.000Z',
    });
    expect(dm({ ...base, now: '2026-03-09T06:00:00Z', cycles: [cycle('2026-03-08', 'ok')] }).state).toBe('missed');
  });

  // Fall back: 2026-11-01 02:00 EDT -> 01:00 EST; 01:30 is 05:30Z and again 06:30Z.
  it('fires a 01:30 schedule once on the fall-back day, at the first 01:30', () => {
    const base = { schedule: '30 1 * * *' };
    const fired = [cycle('2026-11-01', 'running', '2026-11-01T05:30:03Z'), cycle('2026-10-31', 'ok')];
    for (const now of ['2026-11-01T05:31:00Z', '2026-11-01T06:45:00Z', '2026-11-01T09:00:00Z']) {
      expect(dm({ ...base, now, cycles: fired })).toMatchObject({
        state: 'ok',
        lastFireAt: '2026-11-01T05:30:00.000Z',
        expectedAt: '2026-11-02T06:30:00.000Z',
      });
    }
    // Between the two 01:30s the next fire is tomorrow, not the repeated 01:30.
    expect(dm({ ...base, now: '2026-11-01T06:00:00Z', cycles: fired }).expectedAt).toBe('2026-11-02T06:30:00.000Z');
    expect(dm({ ...base, now: '2026-11-01T05:00:00Z', cycles: [cycle('2026-10-31', 'ok')] }).expectedAt).toBe('2026-11-01T05:30:00.000Z');
    // Without evidence the grace runs from the first 01:30.
    const none = [cycle('2026-10-31', 'ok')];
    expect(dm({ ...base, now: '2026-11-01T06:45:00Z', cycles: none }).state).toBe('late');
    expect(dm({ ...base, now: '2026-11-01T07:30:00Z', cycles: none }).state).toBe('missed');
  });

  it('fires a midnight schedule at midnight either side of fall back', () => {
    expect(dm({ now: '2026-11-01T12:00:00Z', cycles: [cycle('2026-11-01', 'ok')] })).toMatchObject({
      state: 'ok',
      lastFireAt: '2026-11-01T04:00:00.000Z',
      expectedAt: '2026-11-02T05:00:00.000Z',
    });
  });
});

describe('fireTimes', () => {
  it('brackets now for any instant and common zones', () => {
    const zones = ['UTC', NY, 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata'];
    const schedules = ['0 0 * * *', '30 2 * * *', '30 1 * * *', '15 */6 * * *', '0 0 * * 1'];
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2028-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom(...zones),
        fc.constantFrom(...schedules),
        (now, tz, schedule) => {
          const { last, next } = fireTimes(schedule, tz, now);
          expect(last).not.toBeNull();
          expect(next).not.toBeNull();
          expect(last!).toBeLessThanOrEqual(now.getTime());
          expect(next!).toBeGreaterThan(now.getTime());
          // The fire after `last` is `next`: nothing was skipped in between.
          expect(fireTimes(schedule, tz, new Date(last!)).next).toBe(next);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('counts a fire at exactly now as the last one', () => {
    expect(fireTimes('0 0 * * *', 'UTC', new Date('2026-05-01T00:00:00Z')).last).toBe(Date.parse('2026-05-01T00:00:00Z'));
  });
});

describe('deriveDeadman: guards', () => {
  afterEach(() => {
    vi.doUnmock('cron-parser');
    vi.resetModules();
  });

  it('throws naming an invalid cron', () => {
    expect(() => dm({ schedule: 'bogus * * * *', now: '2026-11-30T06:00:00Z' })).toThrow(/"bogus \* \* \* \*"/);
    expect(() => dm({ schedule: '0 0 0 * * *', now: '2026-11-30T06:00:00Z' })).toThrow(/"0 0 0 \* \* \*"/);
    expect(() => dm({ schedule: '0 0 31 2 *', now: '2026-11-30T06:00:00Z' })).toThrow(/0 0 31 2/);
  });

  it('throws naming an invalid time zone', () => {
    expect(() => dm({ timezone: 'Mars/Olympus', now: '2026-11-30T06:00:00Z' })).toThrow(/Mars\/Olympus/);
  });

  it('is ok when the schedule has never fired', async () => {
    vi.resetModules();
    vi.doMock('cron-parser', async (importOriginal) => {
      const real = await importOriginal<CronParserModule>();
      const parse: typeof real.CronExpressionParser.parse = (expr, opts) => {
        const e = real.CronExpressionParser.parse(expr, opts);
        return Object.assign(Object.create(Object.getPrototypeOf(e) as object) as typeof e, e, {
          prev: () => {
            throw new Error('Invalid expression, loop limit exceeded');
          },
          next: () => e.next(),
        });
      };
      return { ...real, CronExpressionParser: { parse } };
    });
    const mod = await import('./deadman');
    const d = mod.deriveDeadman({ schedule: '0 0 * * *', timezone: 'UTC', graceMs: HOUR, capMs: 20 * HOUR, cycles: [], now: new Date('2026-11-30T06:00:00Z') });
    expect(d).toMatchObject({ state: 'ok', lastFireAt: null, expectedAt: '2026-12-01T00:00:00.000Z' });
  });
});

describe('deadmanAt: until when the clock leaves the state as it is', () => {
  const base = { schedule: '0 0 * * *', timezone: NY, graceMs: 2 * HOUR, capMs: 20 * HOUR };
  const at = (iso: string, cycles: Cycle[]) => deadmanAt({ ...base, cycles, now: new Date(iso) });
  const unchangedUntil = (iso: string, cycles: Cycle[]) => {
    const first = at(iso, cycles);
    const before = deadmanAt({ ...base, cycles, now: new Date(first.until - 1) });
    const after = deadmanAt({ ...base, cycles, now: new Date(first.until) });
    return { first, before: before.deadman, after: after.deadman };
  };

  it('a late loop holds until the grace ends, then is missed', () => {
    const { first, before, after } = unchangedUntil('2026-11-30T05:30:00Z', [pending('2026-11-30')]);
    expect(first.until).toBe(Date.parse('2026-11-30T07:00:00Z'));
    expect(before).toEqual(first.deadman);
    expect(after.state).toBe('missed');
  });

  it('a running cycle holds until its cap passes, then is stalled', () => {
    const { first, before, after } = unchangedUntil('2026-11-30T06:00:00Z', [cycle('2026-11-30', 'running', '2026-11-30T05:00:04Z')]);
    expect(first.until).toBe(Date.parse('2026-11-30T05:00:04Z') + 20 * HOUR + 1);
    expect(before).toEqual(first.deadman);
    expect(after.state).toBe('stalled');
  });

  it('a stalled loop holds until its reason\'s minutes move, not a second', () => {
    const running = [cycle('2026-11-30', 'running', '2026-11-30T05:00:04Z')];
    const { first, before, after } = unchangedUntil('2026-12-01T01:30:00Z', running);
    expect(first.deadman.state).toBe('stalled');
    expect(first.deadman.reason).toContain('still running after 20h 30m');
    // 20 h 30 m rounds to the next minute 30 s past 20 h 30 m 04 s.
    expect(first.until).toBe(Date.parse('2026-11-30T05:00:04Z') + (20 * 60 + 30.5) * 60_000);
    expect(before).toEqual(first.deadman);
    expect(after.reason).toContain('still running after 20h 31m');
  });

  it('a finished or missed night holds until the next fire', () => {
    expect(at('2026-11-30T12:00:00Z', [cycle('2026-11-30', 'ok')]).until).toBe(Date.parse('2026-12-01T05:00:00Z'));
    expect(at('2026-11-30T12:00:00Z', []).until).toBe(Date.parse('2026-12-01T05:00:00Z'));
  });

  it('the clock keeps a swallowed fire day overrun when the cycle that ran over it finishes', () => {
    const clock = new DeadmanClock();
    const cfg = { schedule: base.schedule, timezone: NY, grace: base.graceMs, cap: base.capMs, caps: {} } as unknown as Parameters<DeadmanClock['derive']>[1];
    const running = [cycle('2026-11-29', 'running', '2026-11-29T05:00:04Z')];
    expect(clock.derive('l', cfg, running, new Date('2026-11-30T06:00:00Z'), true)?.state).toBe('overrun');
    const finished: Cycle[] = [{ date: '2026-11-29', status: 'ok', phases: [{ ...phase('audit', 'ok', '2026-11-29T05:00:04Z'), endedAt: '2026-11-30T07:30:00Z' }] }];
    const after = clock.derive('l', cfg, finished, new Date('2026-11-30T07:31:00Z'), true);
    expect(after).toMatchObject({ state: 'overrun', reason: expect.stringContaining('cycle 2026-11-29 was still running at the 00:00 America/New_York fire') as unknown as string });
    expect(clock.derive('l', cfg, finished, new Date('2026-11-30T12:00:00Z'), false)).toBeUndefined();
  });

  it('the clock of a loop derives it again only when it is due, its cycles moved, or the clock went back', () => {
    const clock = new DeadmanClock();
    const cfg = { schedule: base.schedule, timezone: NY, grace: base.graceMs, cap: base.capMs, caps: {} } as unknown as Parameters<DeadmanClock['derive']>[1];
    const cycles = [pending('2026-11-30')];
    expect(clock.derive('l', cfg, cycles, new Date('2026-11-30T05:30:00Z'), false)?.state).toBe('late');
    expect(clock.derive('l', cfg, cycles, new Date('2026-11-30T06:59:59Z'), false)).toBeUndefined();
    expect(clock.derive('l', cfg, cycles, new Date('2026-11-30T06:59:59Z'), true)?.state).toBe('late');
    expect(clock.derive('l', cfg, cycles, new Date('2026-11-30T07:00:00Z'), false)?.state).toBe('missed');
    expect(clock.derive('l', cfg, cycles, new Date('2026-11-30T08:00:00Z'), false)).toBeUndefined();
    expect(clock.derive('l', cfg, cycles, new Date('2026-11-30T05:30:00Z'), false)?.state).toBe('late');
  });
});
