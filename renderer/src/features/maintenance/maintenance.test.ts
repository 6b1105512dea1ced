import { describe, expect, it } from 'vitest';
import type { MaintenanceWindow } from '../../../../shared/maintenance';
import { MaintenanceWindowInputSchema } from '../../../../shared/maintenance';
import {
  DEFAULT_SPAN_MS,
  draftDefaults,
  isoFromLocalInput,
  localInputValue,
  scopeChoices,
  spanText,
  toggledName,
  windowInput,
  windowsInOrder,
  windowTime,
  windowWhen,
} from './maintenance';

// The tests run in whatever zone the machine has: each datetime-local value is compared with what
// the same wall clock means to `Date` there, never with a fixed UTC string.

const NOW = Date.parse('2026-11-28T21:17:42.345Z');
const minute = (ms: number): number => Math.floor(ms / 60_000) * 60_000;

function win(over: Partial<MaintenanceWindow> = {}): MaintenanceWindow {
  return { id: 'c1', source: 'console', reason: 'fleet upgrade', kind: 'once', current: null, next: null, ...over };
}

describe('datetime-local values and ISO times', () => {
  it('writes a moment as the browser wall clock to the minute, and reads it back as the same minute in UTC', () => {
    const value = localInputValue(NOW);
    expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    expect(isoFromLocalInput(value)).toBe(new Date(minute(NOW)).toISOString());
  });

  it('gives an ISO time with its offset, as a maintenance: entry needs', () => {
    expect(isoFromLocalInput('2026-11-29T01:00')).toMatch(/^2026-11-2\dT\d\d:\d\d:00\.000Z$/);
    expect(isoFromLocalInput('2026-11-29T01:00:30')).toBe(new Date(2026, 10, 29, 1, 0, 30).toISOString());
  });

  it.each(['', '2026-11-29', '29/11/2026 01:00', '2026-11-29T01:00Z', '2026-13-45T99:99'])('reads %j as no time', (value) => {
    expect(isoFromLocalInput(value)).toBeNull();
  });
});

describe('the form as a maintenance window', () => {
  it('defaults to a one-off from now until two hours later, everything in scope', () => {
    const d = draftDefaults(NOW, 'Europe/Berlin');
    expect(d).toMatchObject({ kind: 'once', reason: '', timezone: 'Europe/Berlin', scope: { loops: [], hosts: [], proxies: [] } });
    expect(isoFromLocalInput(d.from)).toBe(new Date(minute(NOW)).toISOString());
    expect(isoFromLocalInput(d.until)).toBe(new Date(minute(NOW + DEFAULT_SPAN_MS)).toISOString());
  });

  it('sends a one-off as start and end with their offset, the reason trimmed, only the kinds ticked', () => {
    const d = { ...draftDefaults(NOW, 'UTC'), reason: '  fleet upgrade ', scope: { loops: ['reliability'], hosts: [], proxies: [] } };
    const input = windowInput(d);
    expect(input).toEqual({ start: isoFromLocalInput(d.from), end: isoFromLocalInput(d.until), reason: 'fleet upgrade', loops: ['reliability'] });
    expect(MaintenanceWindowInputSchema.safeParse(input).success).toBe(true);
  });

  it('sends nothing ticked as no scope at all: everything', () => {
    const input = windowInput({ ...draftDefaults(NOW, 'UTC'), reason: 'x' });
    expect(Object.keys(input).sort()).toEqual(['end', 'reason', 'start']);
  });

  it('sends a time it cannot read as typed, for main to refuse naming the field', () => {
    expect(windowInput({ ...draftDefaults(NOW, 'UTC'), reason: 'x', from: '' })).toMatchObject({ start: '' });
  });

  it('sends a recurring window as its cron (spaces tidied), duration and time zone, and no times', () => {
    const d = { ...draftDefaults(NOW, 'UTC'), kind: 'every' as const, reason: 'backup', every: ' 0  3 * * 6 ', for: ' 2h ', timezone: 'Europe/Berlin', scope: { loops: [], hosts: ['runner'], proxies: ['crossbar'] } };
    expect(windowInput(d)).toEqual({ every: '0 3 * * 6', for: '2h', timezone: 'Europe/Berlin', reason: 'backup', hosts: ['runner'], proxies: ['crossbar'] });
    // An empty time zone is left to main's default (UTC), not sent empty.
    expect(windowInput({ ...d, timezone: ' ' })).not.toHaveProperty('timezone');
  });
});

describe('the scope', () => {
  it('offers the loops, hosts and the capacity rows\' proxies, each once', () => {
    expect(scopeChoices(['reliability', 'nightly'], [{ name: 'runner' }, { name: 'gpu-1' }], [{ proxy: 'crossbar' }, { proxy: 'crossbar' }, { proxy: 'vl' }])).toEqual({
      loops: ['reliability', 'nightly'],
      hosts: ['runner', 'gpu-1'],
      proxies: ['crossbar', 'vl'],
    });
  });

  it('keeps the names ticked in the console\'s order', () => {
    const order = ['a', 'b', 'c'];
    expect(toggledName(['c'], 'a', true, order)).toEqual(['a', 'c']);
    expect(toggledName(['a', 'c'], 'a', false, order)).toEqual(['c']);
    expect(toggledName(['a'], 'a', true, order)).toEqual(['a']);
  });
});

describe('how a window is said', () => {
  it('says a window in force until its end, to the minute', () => {
    expect(windowWhen(win({ current: { start: '2026-11-28T21:00:00.000Z', end: '2026-11-28T23:00:00.000Z' } }), 'UTC')).toEqual({ current: 'in force until Sat 28 Nov, 23:00', next: null });
  });

  it('says a planned one from its start to its end, the end by its clock alone on the same day', () => {
    const next = { start: '2026-11-29T03:00:00.000Z', end: '2026-11-29T04:30:00.000Z' };
    expect(windowWhen(win({ next }), 'UTC')).toEqual({ current: null, next: 'from Sun 29 Nov, 03:00 to 04:30' });
    // The same moments in New York are on two days.
    expect(windowWhen(win({ next: { start: '2026-11-29T04:30:00.000Z', end: '2026-11-29T06:00:00.000Z' } }), 'America/New_York').next).toBe('from Sat 28 Nov, 23:30 to Sun 29 Nov, 01:00');
  });

  it('says a recurring one in force, and its next occurrence too', () => {
    const next = { start: '2026-11-29T03:00:00.000Z', end: '2026-11-29T04:00:00.000Z' };
    const both = win({ kind: 'every', every: '0 3 * * *', forMs: 3_600_000, timezone: 'UTC', current: { start: '2026-11-28T03:00:00.000Z', end: '2026-11-28T04:00:00.000Z' }, next });
    expect(windowWhen(both, 'UTC')).toEqual({ current: 'in force until Sat 28 Nov, 04:00', next: 'next from Sun 29 Nov, 03:00 to 04:00' });
  });

  it('says a time it cannot read as given', () => {
    expect(windowTime('soon', 'UTC')).toBe('soon');
  });

  it.each([
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [45 * 60_000, '45m'],
    [30_000, '30s'],
    [0, '0s'],
  ])('writes %i ms as %j', (ms, text) => {
    expect(spanText(ms)).toBe(text);
  });

  it('lists the windows in force first, then by when they begin', () => {
    const at = (h: number) => ({ start: `2026-11-29T${String(h).padStart(2, '0')}:00:00.000Z`, end: `2026-11-29T${String(h + 1).padStart(2, '0')}:00:00.000Z` });
    const list = [win({ id: 'late', next: at(9) }), win({ id: 'now', current: at(1) }), win({ id: 'soon', next: at(3) })];
    expect(windowsInOrder(list).map((w) => w.id)).toEqual(['now', 'soon', 'late']);
  });
});
