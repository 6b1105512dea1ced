import type { Problem } from '../../../shared/domain';
import type { LineParser, LineParseResult } from '../text/line-parser';
import { EMPTY_RESULT, cleanLine, parseLines, quote, type ParsedLines, type ResumePoint } from '../text/lines';
import { classifyHeader } from './ledger-columns';
import { continueLesson, isBullet, lessonLine, lessonRecord } from './ledger-lessons';
import { fenceChange } from '../text/fences';
import { auditMarkText, headingOf, parseAuditMark } from './ledger-lines';
import type { LedgerRecord, LedgerState, LessonRecord } from './ledger-records';
import { rowRecord } from './ledger-rows';
import { MAX_HEADER_CHARS, headerName, isDelimiterRow, isTableLine, splitCells } from './table-cells';

type Out = { state: LedgerState; result: LineParseResult<LedgerRecord> };

const INITIAL: LedgerState = { headings: [null, null, null], lessonsLevel: null, fence: null, header: null, table: null, lesson: null };

// A `###` heading that only labels a table (`### Findings`, `### Backlog`) is not a section of
// its own: the records keep the dated `##` heading above it.
const TABLE_LABEL = /^(?:new |the )?(?:findings?|backlog)(?: table| items| rows)?\s*(?:\(.{0,40}\))?$/i;

/** The section a record is filed under: the nearest `###`/`##`/`#` heading, minus table labels. */
export function sectionOf(state: LedgerState): string {
  const [h1, h2, h3] = state.headings;
  if (h3 !== null && !(h2 !== null && h3.length < 80 && TABLE_LABEL.test(h3))) return h3;
  return h2 ?? h3 ?? h1 ?? '';
}

function emit(state: LedgerState, records: LedgerRecord[], problems: Problem[] = []): Out {
  return { state, result: records.length === 0 && problems.length === 0 ? EMPTY_RESULT : { records, problems } };
}

/** Finish the pending lesson (if any) into `records`, and forget any table or header candidate. */
function closeBlocks(state: LedgerState, records: LedgerRecord[]): LedgerState {
  if (state.lesson) records.push(lessonRecord(state.lesson));
  if (!state.lesson && !state.table && !state.header) return state;
  return { ...state, lesson: null, table: null, header: null };
}

function onHeading(state: LedgerState, level: number, text: string, records: LedgerRecord[]): LedgerState {
  const s = closeBlocks(state, records);
  const [h1, h2, h3] = s.headings;
  const headings: LedgerState['headings'] = level === 1 ? [text, null, null] : level === 2 ? [h1, text, null] : level === 3 ? [h1, h2, text] : [h1, h2, h3];
  let lessonsLevel = s.lessonsLevel;
  if (level <= 3 && text.toLowerCase().startsWith('lessons')) lessonsLevel = level;
  else if (lessonsLevel !== null && level <= lessonsLevel) lessonsLevel = null;
  return { ...s, headings, lessonsLevel };
}

/** A line outside fences, tables and lessons: a header candidate, an audit-ledger line, or prose. */
function onProse(state: LedgerState, text: string, lineNo: number, source: string): Out {
  const header = state.header;
  if (header !== null && isDelimiterRow(text)) {
    const names = splitCells(header.text).map(headerName);
    const { kind, cols } = classifyHeader(names);
    return emit({ ...state, header: null, table: { kind, width: names.length, cols } }, []);
  }
  const mark = text.includes(':') ? auditMarkText(text) : null;
  if (mark !== null) {
    const next = header === null ? state : { ...state, header: null };
    const r = parseAuditMark(mark, lineNo);
    if (typeof r !== 'string') return emit(next, [r]);
    return emit(next, [], [{ source, line: lineNo, message: `audit-ledger line ${r}; not read: ${quote(text)}` }]);
  }
  if (text.length <= MAX_HEADER_CHARS && isTableLine(text)) return emit({ ...state, header: { text, line: lineNo } }, []);
  return emit(header === null ? state : { ...state, header: null }, []);
}

function onRow(state: LedgerState, text: string, lineNo: number, source: string): Out {
  const table = state.table;
  if (table === null || table.kind === 'other') return emit(state, []);
  const r = rowRecord(table, splitCells(text), lineNo, sectionOf(state));
  if (r === null) return emit(state, []);
  if (typeof r === 'string') return emit(state, [], [{ source, line: lineNo, message: `${table.kind} ${r}: ${quote(text)}` }]);
  return emit(state, [r]);
}

/**
 * The incremental parser for every markdown ledger (FORMATS.md §3): RELIABILITY_AUDIT.md
 * (findings, backlog, audit-ledger lines), RELIABILITY_LOG.md (outcome rows), `## Lessons`
 * bullets, and implementer logs (task and review tables). Tables are found by their header row
 * followed by a delimiter row; the header's column names say which kind of table it is.
 *
 * A lesson is emitted when it is complete: when a blank line, a heading, a fence, or the next
 * bullet arrives. The follower feeds only complete lines, so a lesson at the end of the file stays
 * pending (in the state) until more arrives; `flushLedger` returns it for whole-document parses.
 */
export const ledgerParser: LineParser<LedgerState, LedgerRecord> = {
  initial: () => INITIAL,
  line(state, raw, lineNo, source) {
    const text = cleanLine(raw, lineNo);
    const records: LedgerRecord[] = [];
    const fence = fenceChange(state.fence, text);
    if (state.fence !== null) {
      // Inside a fence nothing is a table or a heading; fenced lines in a lesson belong to it.
      const lesson = state.lesson ? continueLesson(state.lesson, text) : null;
      return emit({ ...state, fence: fence === undefined ? state.fence : fence, lesson }, records);
    }
    if (fence !== undefined) {
      const indented = text.charCodeAt(0) === 32 || text.charCodeAt(0) === 9;
      if (state.lesson && indented) return emit({ ...state, fence, lesson: continueLesson(state.lesson, text) }, records);
      return emit({ ...closeBlocks(state, records), fence }, records);
    }
    if (text.trim() === '') return emit(closeBlocks(state, records), records);
    const heading = headingOf(text);
    if (heading) return emit(onHeading(state, heading.level, heading.text, records), records);
    if (state.lesson || (state.lessonsLevel !== null && isBullet(text))) {
      const { lesson, records: done } = lessonLine(state.lesson, text, lineNo);
      return emit({ ...state, lesson, table: null, header: null }, done);
    }
    if (state.table !== null) {
      if (isTableLine(text)) return onRow(state, text, lineNo, source);
      return onProse({ ...state, table: null }, text, lineNo, source);
    }
    return onProse(state, text, lineNo, source);
  },
};

/**
 * The record still pending at the end of what was read (a lesson whose end has not been seen), for
 * whole-document parses. The follower does not call it: a pending lesson completes when more arrives.
 */
export function flushLedger(state: LedgerState): LessonRecord | null {
  return state.lesson ? lessonRecord(state.lesson) : null;
}

/** What `parseLedger` returns: `parseLines` over the ledger parser. */
export type ParsedLedger = ParsedLines<LedgerState, LedgerRecord>;

/**
 * Parse the complete lines of a ledger text, like `parseLines` (text after the last newline is a
 * torn line left for the next read), resuming from `from` when given. Line numbers are 1-based.
 */
export function parseLedger(text: string, source: string, from: ResumePoint<LedgerState> = {}): ParsedLedger {
  return parseLines(ledgerParser, text, source, from);
}

/** Parse a whole ledger document: every line (an unterminated last one too), then flush the pending lesson. */
export function parseLedgerDocument(text: string, source: string): { records: readonly LedgerRecord[]; problems: readonly Problem[] } {
  const whole = parseLedger(text.endsWith('\n') || text === '' ? text : `${text}\n`, source);
  const last = flushLedger(whole.state);
  return { records: last ? [...whole.records, last] : whole.records, problems: whole.problems };
}
