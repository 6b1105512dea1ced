import { latestTasks, taskStatus, type AuditMark, type Lesson, type Task } from '../../../../shared/domain';

// Pure rules of the Ledgers view (and the Review's lessons): the implementer tasks, the audit
// ledger's `Audited through` lines and the `## Lessons` bullets, as the ledgers wrote them.

/** One implementer task as the table shows it: its latest row, and how many rows it has. */
export interface TaskLine {
  readonly task: Task;
  /** Rows the log has for this task (a task resumed after a stop has several). */
  readonly rows: number;
}

const status = taskStatus;

/**
 * The latest row of each task of each loop, `stopped` first, then newest date first (ledger order
 * within a day). Implementer logs are not in time order, so "latest" is the newest date, and a
 * `done` row of that date wins over a `stopped` one: the rule "Waiting on you" applies.
 */
export function taskLines(tasks: readonly Task[]): TaskLine[] {
  const out: TaskLine[] = latestTasks(tasks);
  const stoppedFirst = (l: TaskLine): number => (status(l.task) === 'stopped' ? 0 : 1);
  return out.sort(
    (a, b) =>
      stoppedFirst(a) - stoppedFirst(b) ||
      (b.task.date ?? '').localeCompare(a.task.date ?? '') ||
      a.task.loop.localeCompare(b.task.loop) ||
      a.task.line - b.task.line,
  );
}

/** A loop's audit ledger: its latest `Audited through` line and every line, newest first. */
export interface AuditLedger {
  readonly loop: string;
  readonly latest: AuditMark;
  /** Every mark, newest first (by date, then by place in the ledger). */
  readonly history: readonly AuditMark[];
}

/** The audit ledger of each loop that has one, loops by name. */
export function auditLedgers(audits: readonly AuditMark[]): AuditLedger[] {
  const byLoop = new Map<string, AuditMark[]>();
  for (const a of audits) byLoop.set(a.loop, [...(byLoop.get(a.loop) ?? []), a]);
  return [...byLoop.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([loop, marks]) => {
      const history = [...marks].sort((a, b) => b.date.localeCompare(a.date) || b.line - a.line);
      return { loop, latest: history[0] as AuditMark, history };
    });
}

/** A loop's lessons, newest first (undated last, in ledger order). */
export interface LoopLessons {
  readonly loop: string;
  readonly lessons: readonly Lesson[];
}

function newestLessonsFirst(a: Lesson, b: Lesson): number {
  if (a.date === b.date) return a.line - b.line;
  if (a.date === null) return 1;
  if (b.date === null) return -1;
  return b.date.localeCompare(a.date);
}

/** The lessons of each loop, loops by name. */
export function lessonsByLoop(lessons: readonly Lesson[]): LoopLessons[] {
  const byLoop = new Map<string, Lesson[]>();
  for (const l of lessons) byLoop.set(l.loop, [...(byLoop.get(l.loop) ?? []), l]);
  return [...byLoop.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([loop, list]) => ({ loop, lessons: [...list].sort(newestLessonsFirst) }));
}

/**
 * Lessons new since the review window began (`since`, ISO): a lesson carries only its day, so one
 * dated on or after the window's first day (UTC) is new; an undated lesson never is.
 */
export function newLessons(lessons: readonly Lesson[], since: string): Lesson[] {
  const t = Date.parse(since);
  if (!Number.isFinite(t)) return [];
  const day = new Date(t).toISOString().slice(0, 10);
  return lessons.filter((l) => l.date !== null && l.date >= day).sort((a, b) => a.loop.localeCompare(b.loop) || newestLessonsFirst(a, b));
}
