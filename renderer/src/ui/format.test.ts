import { describe, expect, it } from 'vitest';
import type { Stage } from '../../../shared/domain';
import {
  failedStepText,
  formatAge,
  formatClock,
  formatDateTime,
  formatDuration,
  newestFirst,
  phaseSpan,
  phaseTimeLabel,
  stoppedAtText,
  weekdayOf,
} from './format';
import { phase } from './test-fixtures';

const NY = 'America/New_York';

describe('times', () => {
  it('formats clock times in the given zone, 24 h', () => {
    expect(formatClock('2026-08-23T09:12:40-04:00', NY)).toBe('09:12');
    expect(formatClock('2026-08-23T13:12:40Z', 'UTC')).toBe('13:12');
    expect(formatClock(null)).toBeNull();
    expect(formatClock('garbage')).toBeNull();
  });

  it('formats date-times with the weekday', () => {
    expect(formatDateTime('2026-08-23T00:00:04-04:00', NY)).toMatch(/Sun.*23.*Aug.*00:00:04/);
  });

  it('formats durations compactly', () => {
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(41 * 60_000 + 8_000)).toBe('41m');
    expect(formatDuration(125 * 60_000)).toBe('2h 05m');
    expect(formatDuration(-5)).toBe('0s');
  });

  it('names the weekday of a cycle date without a time zone shift', () => {
    expect(weekdayOf('2026-08-23')).toBe('Sun');
    expect(weekdayOf('nope')).toBeNull();
  });
});

describe('phaseTimeLabel', () => {
  it('shows the duration of a finished phase', () => {
    expect(phaseTimeLabel(phase('audit'), NY)).toBe('41m');
  });

  it('shows "since HH:MM" while running', () => {
    expect(phaseTimeLabel(phase('remediate', { status: 'running', startedAt: '2026-08-23T09:12:40-04:00', endedAt: null }), NY)).toBe(
      'since 09:12',
    );
  });

  it('marks times taken from files', () => {
    expect(phaseTimeLabel(phase('audit', { timesFrom: 'files' }), NY)).toBe('41m (file times)');
  });

  it('says when a phase has not started or has no times', () => {
    expect(phaseTimeLabel(phase('deliver', { status: 'pending', startedAt: null, endedAt: null, timesFrom: null }))).toBe('not started');
    expect(phaseTimeLabel(phase('deliver', { status: 'incomplete', startedAt: null, endedAt: null, timesFrom: null }))).toBe('no times');
  });

  it('spans start and end, or now while running', () => {
    expect(phaseSpan(phase('audit'), NY)).toBe('00:00 → 00:41');
    expect(phaseSpan(phase('audit', { status: 'running', endedAt: null }), NY)).toBe('00:00 → now');
  });
});

describe('stages', () => {
  const steps = [
    { name: 'ast_refresh', rc: 0 },
    { name: 'gates', rc: 2 },
    { name: 'suite', rc: null },
  ];
  it('says where an unfinished stage stopped', () => {
    const s: Stage = { name: 'tests', done: false, stoppedAt: 'suite', steps };
    expect(stoppedAtText(s)).toBe('stopped at suite');
    expect(stoppedAtText({ ...s, stoppedAt: null })).toBe('no DONE after last step');
    expect(stoppedAtText({ ...s, done: true, stoppedAt: null })).toBeNull();
  });

  it('names the first failing step', () => {
    expect(failedStepText({ name: 't', done: true, stoppedAt: null, steps })).toBe('gates rc 2');
    expect(failedStepText({ name: 't', done: true, stoppedAt: null, steps: [{ name: 'a', rc: 0 }] })).toBeNull();
  });
});

it('orders cycles newest first', () => {
  expect(newestFirst([{ date: '2026-08-21' }, { date: '2026-08-23' }, { date: '2026-08-22' }]).map((c) => c.date)).toEqual([
    '2026-08-23',
    '2026-08-22',
    '2026-08-21',
  ]);
});

it('formats ages compactly', () => {
  const now = Date.parse('2026-08-24T07:00:00Z');
  expect(formatAge('2026-08-24T06:59:30Z', now)).toBe('30s');
  expect(formatAge('2026-08-24T06:48:00Z', now)).toBe('12m');
  expect(formatAge('2026-08-24T04:00:00Z', now)).toBe('3h');
  expect(formatAge('2026-08-21T07:00:00Z', now)).toBe('3d');
  expect(formatAge('2026-08-24T08:00:00Z', now)).toBe('0s');
  expect(formatAge(null, now)).toBeNull();
});
