import { describe, expect, it } from 'vitest';
import type { AuditMark, Lesson, Task } from '../../../../shared/domain';
import { auditLedgers, lessonsByLoop, newLessons, taskLines } from './ledgers';

function task(name: string, date: string | null, status: string, line: number, loop = 'proxy'): Task {
  return { loop, source: 'docs/implementer-log.md', task: name, date, status, gateRuns: '1', firstGate: 'pass', deviations: 'none', notes: null, model: null, line };
}
const mark = (loop: string, sha: string, date: string, newFindings: number | null, line: number): AuditMark => ({ loop, sha, date, newFindings, line });
const lesson = (loop: string, date: string | null, text: string, line: number): Lesson => ({ loop, source: 'RELIABILITY_AUDIT.md', date, tag: 'audit', text, line });

describe('taskLines', () => {
  it('shows each task once, at its latest row, stopped first then newest first', () => {
    const lines = taskLines([
      task('v2/01', '2026-09-24', 'done', 10),
      task('v2/02', '2026-09-25', 'stopped', 11),
      task('v2/03', '2026-09-25', 'done', 12),
      task('v2/02', '2026-09-24', 'done', 13),
      task('v1/09', '2026-09-20', 'stopped', 14),
      task('v1/09', '2026-09-21', 'done', 15),
    ]);
    expect(lines.map((l) => [l.task.task, l.task.status, l.rows])).toEqual([
      ['v2/02', 'stopped', 2],
      ['v2/03', 'done', 1],
      ['v2/01', 'done', 1],
      ['v1/09', 'done', 2],
    ]);
  });

  it('lets a done row of the same day win over a stopped one, and keeps loops apart', () => {
    const lines = taskLines([task('a', '2026-09-25', 'stopped', 1), task('a', '2026-09-25', 'done', 2), task('a', '2026-09-25', 'stopped', 3, 'gateway')]);
    expect(lines.map((l) => [l.task.loop, l.task.status])).toEqual([
      ['gateway', 'stopped'],
      ['proxy', 'done'],
    ]);
  });
});

describe('auditLedgers', () => {
  it('gives each loop its latest Audited-through line and its history, newest first', () => {
    const ledgers = auditLedgers([
      mark('reliability', 'c529c92a', '2026-08-16', 83, 5),
      mark('reliability', '19135691', '2026-08-23', 0, 7),
      mark('reliability', '4f9c2e1ab7', '2026-08-22', 56, 6),
      mark('gateway', 'aa11', '2026-08-20', null, 3),
    ]);
    expect(ledgers.map((l) => [l.loop, l.latest.sha, l.history.map((m) => m.sha)])).toEqual([
      ['gateway', 'aa11', ['aa11']],
      ['reliability', '19135691', ['19135691', '4f9c2e1ab7', 'c529c92a']],
    ]);
  });

  it('breaks a same-day tie by the later line', () => {
    expect(auditLedgers([mark('r', 'one', '2026-08-22', 1, 4), mark('r', 'two', '2026-08-22', 2, 9)])[0]?.latest.sha).toBe('two');
  });
});

describe('lessons', () => {
  const all = [
    lesson('reliability', '2026-08-22', 'check the remote branch first', 10),
    lesson('reliability', '2026-08-26', 'escape pipes at emission', 20),
    lesson('reliability', null, 'an undated bullet', 30),
    lesson('gateway', '2026-08-27', 'audit the test scope', 5),
  ];

  it('groups them per loop, newest first, undated last', () => {
    expect(lessonsByLoop(all).map((l) => [l.loop, l.lessons.map((x) => x.line)])).toEqual([
      ['gateway', [5]],
      ['reliability', [20, 10, 30]],
    ]);
  });

  it('counts a lesson dated on or after the review day as new', () => {
    expect(newLessons(all, '2026-08-26T18:00:00.000Z').map((l) => l.line)).toEqual([5, 20]);
    expect(newLessons(all, '2026-08-28T00:00:00.000Z')).toEqual([]);
    expect(newLessons(all, 'not a date')).toEqual([]);
  });
});
