import { describe, expect, it } from 'vitest';
import type { Drill, DrillRun } from './domain';
import { drillCadence } from './drill-due';
import { waitingKey, waitingOnYou } from './waiting';
import { waitingInput } from './waiting-fixtures';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-30T12:00:00.000Z');
const ago = (days: number): string => new Date(NOW - days * DAY).toISOString();

const drill = (over: Partial<Drill> = {}): Drill => ({ name: 'restore-db', host: 'mac', timeoutMs: 1_800_000, args: {}, everyMs: 30 * DAY, ...over });
const run = (id: string, status: DrillRun['status'], startedAt: string, name = 'restore-db'): DrillRun => ({
  id, drill: name, host: 'mac', args: {}, user: 'ops', startedAt, endedAt: startedAt, rc: status === 'ok' ? 0 : 1, status, override: false, logPath: '/x/out.log', durationMs: 1000,
});

describe('drillCadence', () => {
  it('is due when the drill never ran', () => {
    expect(drillCadence(drill(), [], NOW)).toMatchObject({ due: true, lastOkAt: null, dueAt: null, overdueMs: 0 });
  });

  it('is due (overdue by a day) when the last successful run is 31 days old with every: 30d', () => {
    expect(drillCadence(drill(), [run('r1', 'ok', ago(31))], NOW)).toMatchObject({ due: true, lastOkAt: ago(31), dueAt: ago(1), overdueMs: DAY });
  });

  it('is not due after a fresh success, and says when it next is', () => {
    const c = drillCadence(drill(), [run('r1', 'ok', ago(31)), run('r2', 'ok', ago(1))], NOW);
    expect(c).toMatchObject({ due: false, lastOkAt: ago(1), dueAt: ago(-29), overdueMs: 0 });
  });

  it('does not count a failed, timed-out, cancelled, lost or running run, nor another drill\'s success', () => {
    const runs = [run('f', 'failed', ago(1)), run('t', 'timeout', ago(1)), run('c', 'cancelled', ago(1)), run('l', 'lost', ago(1)), run('g', 'running', ago(0)), run('o', 'ok', ago(1), 'other'), run('r1', 'ok', ago(31))];
    expect(drillCadence(drill(), runs, NOW)).toMatchObject({ due: true, lastOkAt: ago(31) });
    expect(drillCadence(drill(), runs.slice(0, 6), NOW)).toMatchObject({ due: true, lastOkAt: null });
  });

  it('says nothing of a drill without every', () => {
    const { everyMs: _omit, ...plain } = drill();
    expect(drillCadence(plain, [], NOW)).toBeNull();
  });
});

describe('waitingOnYou: due drills', () => {
  it('lists a due drill as drill-due, id its name, asking to run it; not once it succeeded afresh', () => {
    const never = drill({ name: 'halt-drill', everyMs: 7 * DAY });
    const out = waitingOnYou(waitingInput({ drills: [drill(), never, drill({ name: 'fresh' })], drillRuns: [run('r1', 'ok', ago(31)), run('r2', 'ok', ago(2), 'fresh'), run('r3', 'failed', ago(1), 'halt-drill')] }), NOW);
    expect(out.map((w) => [w.kind, w.loop, w.id])).toEqual([
      ['drill-due', 'mac', 'halt-drill'],
      ['drill-due', 'mac', 'restore-db'],
    ]);
    expect(out[0]).toMatchObject({ action: 'Run drill halt-drill on mac: it is to run every 7d and has no successful run', since: null, href: '#/drills' });
    expect(out[1]).toMatchObject({
      action: `Run drill restore-db on mac: it is to run every 30d; the last successful run was ${ago(31)}, overdue by 1d`,
      since: ago(1),
    });
    expect(waitingKey(out[1]!)).toBe('waiting:drill-due:mac:restore-db');
    expect(waitingOnYou(waitingInput({ drills: [drill()], drillRuns: [run('r1', 'ok', ago(31)), run('r2', 'ok', ago(0.5))] }), NOW)).toEqual([]);
  });
});
