import type { LedgerRecord, LessonRecord, PendingLesson } from './ledger-records';

const DATE_TAG = /^(\d{4}-\d{2}-\d{2})(?:[ \t]{0,4}\(([^()]{0,160})\))?[ \t]{0,4}:/;
const RUN_IN = /- \d{4}-\d{2}-\d{2} \([^()]{0,160}\):/y;

/** Whether a line starts a list item at column 0 (`- `, `* `, `+ `): a lesson bullet in `## Lessons`. */
export function isBullet(text: string): boolean {
  const c = text.charAt(0);
  return (c === '-' || c === '*' || c === '+') && (text.charAt(1) === ' ' || text.charAt(1) === '\t');
}

/**
 * Cut a line where a dated bullet runs into the text before it on the same physical line, as in
 * the reference's `...sequentially.- 2026-08-27 (audit): ...`. Only the strict dated form with a
 * tag counts as a run-in, so prose with a dash and a date is not cut.
 */
export function splitRunIns(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let i = text.indexOf('- ', 1); i !== -1; i = text.indexOf('- ', i + 2)) {
    RUN_IN.lastIndex = i;
    if (!RUN_IN.test(text)) continue;
    parts.push(text.slice(from, i));
    from = i;
  }
  parts.push(text.slice(from));
  return parts;
}

/** A pending lesson from a bullet line: `- 2026-08-22 (audit): text` (date and tag optional). */
export function startLesson(bullet: string, line: number): PendingLesson {
  const body = bullet.slice(2).trimStart();
  const m = DATE_TAG.exec(body.length > 200 ? body.slice(0, 200) : body);
  if (!m) return { line, date: null, tag: null, text: body.trim() };
  const tag = m[2]?.trim() ?? '';
  return { line, date: m[1] ?? null, tag: tag === '' ? null : tag, text: body.slice(m[0].length).trim() };
}

/** The lesson with one more continuation line (trimmed, joined with a space). */
export function continueLesson(lesson: PendingLesson, text: string): PendingLesson {
  const more = text.trim();
  if (more === '') return lesson;
  return { ...lesson, text: lesson.text === '' ? more : `${lesson.text} ${more}` };
}

/** The record for a finished lesson. */
export function lessonRecord(lesson: PendingLesson): LessonRecord {
  return { kind: 'lesson', line: lesson.line, date: lesson.date, tag: lesson.tag, text: lesson.text };
}

/**
 * Feed one line of a Lessons section: a column-0 bullet finishes the pending lesson and starts a
 * new one, any other line continues it (indented or lazy continuation), and a run-in bullet
 * inside the line finishes and starts one more.
 */
export function lessonLine(pending: PendingLesson | null, text: string, line: number): { lesson: PendingLesson | null; records: LedgerRecord[] } {
  const records: LedgerRecord[] = [];
  const parts = text.includes('- ') ? splitRunIns(text) : [text];
  let lesson = pending;
  parts.forEach((part, i) => {
    if (i > 0 || isBullet(part)) {
      if (lesson) records.push(lessonRecord(lesson));
      lesson = startLesson(part, line);
    } else if (lesson) {
      lesson = continueLesson(lesson, part);
    }
  });
  return { lesson, records };
}
