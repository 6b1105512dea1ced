import type { Problem } from '../../../shared/domain';
import type { LineParser, PhaseRecord } from './line-parser';

/** What `parseLines` returns: everything parsed from the complete lines of a text. */
export interface ParsedLines<S, R = PhaseRecord> {
  readonly records: readonly R[];
  readonly problems: readonly Problem[];
  /** The parser's state after the last complete line (feed it back to resume). */
  readonly state: S;
  /** UTF-8 bytes up to and including the last newline; a torn last line is not consumed. */
  readonly consumedBytes: number;
  /** How many complete lines were parsed. */
  readonly lines: number;
}

/** Where `parseLines` resumes: the parser state and the 1-based number of the first line. */
export interface ResumePoint<S> {
  readonly state?: S;
  readonly firstLine?: number;
}

/**
 * Parse the complete lines of `text` (split on `\n`); text after the last newline is a torn line
 * the writer has not finished, so it is left for the next read. Line numbers are 1-based.
 */
export function parseLines<S, R = PhaseRecord>(
  parser: LineParser<S, R>,
  text: string,
  source: string,
  from: ResumePoint<S> = {},
): ParsedLines<S, R> {
  const records: R[] = [];
  const problems: Problem[] = [];
  let state = from.state ?? parser.initial();
  let lineNo = from.firstLine ?? 1;
  let start = 0;
  let lines = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    const out = parser.line(state, text.slice(start, nl), lineNo, source);
    state = out.state;
    for (const r of out.result.records) records.push(r);
    for (const p of out.result.problems) problems.push(p);
    start = nl + 1;
    lineNo += 1;
    lines += 1;
  }
  const consumedBytes = start === 0 ? 0 : Buffer.byteLength(text.slice(0, start), 'utf8');
  return { records, problems, state, consumedBytes, lines };
}

/** A line as the parsers read it: without a trailing `\r`, and without a BOM on line 1. */
export function cleanLine(text: string, lineNo: number): string {
  let s = text;
  if (s.endsWith('\r')) s = s.slice(0, -1);
  if (lineNo === 1 && s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  return s;
}

/** A short quote of a line for a problem message (long lines are cut). */
export function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/** A parse result with nothing in it (shared so hot paths do not allocate). */
export const EMPTY_RESULT = { records: [], problems: [] } as const;
