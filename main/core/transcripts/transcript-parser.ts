import type { Verdict } from '../../../shared/domain';
import { fenceChange, type OpenFence } from '../text/fences';
import type { LineParser, LineParseResult } from '../text/line-parser';
import { EMPTY_RESULT, cleanLine, quote } from '../text/lines';
import { isPrUrl } from '../prs/pr-url';
import { stripEscapes } from '../../../shared/transcript-text';
import { MAX_SUITE_LINE, suiteLine } from '../../../shared/suite-summary';

export type { OpenFence } from '../text/fences';

/** Parser state for `<phase>.log`: the code fence we are inside, if any, and whether a full disk was seen. Plain JSON. */
export interface TranscriptState {
  readonly fence: OpenFence | null;
  /** A line said the disk is full: only the first such line is a record (a failing loop repeats it). Absent in older saved states. */
  readonly diskFull?: true;
  /**
   * The last non-blank line so far was a verdict-shaped line: the next non-blank line withdraws it
   * (an `after-verdict` record). Absent otherwise, so most lines leave the state as it is.
   */
  readonly declared?: true;
  /** Suite and gate lines recorded so far (at most SUITE_RECORDS_MAX); absent before the first. */
  readonly suites?: number;
}

/**
 * The most suite and gate lines one transcript records: a phase shows its last MAX_SUITE_RESULTS
 * runs, and an agent printing `X_RC=0` in a loop must not grow the store without bound.
 */
export const SUITE_RECORDS_MAX = 2000;
/** What every suite or gate form of FORMATS.md §2.8 contains: most lines are rejected by this one scan. */
const MAY_BE_SUITE = /pass|fail|_rc=|duration|time:|^\s*ok\s|^\s*(?:#|ℹ) |test result|finished|errors/i;
/** A quoted, tabled or inline-code line is prose about a run, not a run's summary. */
const SUITE_PROSE = /^[>|`]/;

/** What a full disk prints (the kernel's strerror, Node's and Python's errno name). */
const DISK_FULL = ['No space left on device', 'ENOSPC'];
/** At most this much of a disk-full line is kept. */
const DISK_FULL_TEXT_MAX = 300;
/**
 * The longest line that is evidence (a verdict, a disk-full error): a verdict names a loop, a
 * phase or check and a few PR URLs; a longer line is output that happens to contain the words.
 */
export const EVIDENCE_LINE_MAX = 2000;
/** How prose starts: a quote, a list item, a heading, a table row, inline code. Such a line is never evidence. */
const PROSE_START = /^[\s>*\-#|`]/;

const NO_OP = 'NIGHTLY PHASE NO-OP:';
const READY = 'NIGHTLY DELIVER READY:';
const INCOMPLETE = 'NIGHTLY DELIVER INCOMPLETE:';
const KEY_VALUE = /^([A-Za-z_][\w-]*)=(.*)$/;
const INT = /^\d+$/;
/** A loop, phase or check name as a verdict gives it: a word, never a placeholder like `<name>`. */
const NAME = /^[\w][\w.:/@+-]*$/;

/** The fence state after a line, or the same object when the line changes nothing. */
function nextFence(state: TranscriptState, text: string): TranscriptState {
  const next = fenceChange(state.fence, text);
  return next === undefined ? state : { ...state, fence: next };
}

/** Leading `key=value` tokens of a verdict body, and the text after them. */
function fields(body: string): { keys: Map<string, string>; rest: string } {
  const keys = new Map<string, string>();
  let s = body.trimStart();
  for (;;) {
    const end = s.search(/\s/);
    const token = end === -1 ? s : s.slice(0, end);
    const kv = token === '' ? null : KEY_VALUE.exec(token);
    if (!kv) break;
    keys.set((kv[1] ?? '').toLowerCase(), kv[2] ?? '');
    s = end === -1 ? '' : s.slice(end).trimStart();
  }
  return { keys, rest: s.trim() };
}

/** Parse a column-0 verdict line; a string is the reason it could not be read. */
export function parseVerdict(line: string): Verdict | string | null {
  let kind: Verdict['kind'];
  let body: string;
  if (line.startsWith(NO_OP)) [kind, body] = ['no-op', line.slice(NO_OP.length)];
  else if (line.startsWith(READY)) [kind, body] = ['deliver-ready', line.slice(READY.length)];
  else if (line.startsWith(INCOMPLETE)) [kind, body] = ['deliver-incomplete', line.slice(INCOMPLETE.length)];
  else return null;
  if (line.length > EVIDENCE_LINE_MAX) return `is ${line.length} characters long (a verdict is at most ${EVIDENCE_LINE_MAX})`;
  const { keys, rest } = fields(body);
  const loop = keys.get('loop') ?? '';
  if (loop === '') return 'has no loop=';
  if (!NAME.test(loop)) return `has loop=${loop}, not a loop name`;
  const base = { kind, loop, phase: null, prs: null, urls: [], check: null, reason: null, line };
  if (kind === 'no-op') {
    const phase = keys.get('phase') ?? '';
    if (phase === '') return 'has no phase=';
    if (!NAME.test(phase)) return `has phase=${phase}, not a phase name`;
    return { ...base, phase, reason: rest === '' ? null : rest };
  }
  if (kind === 'deliver-ready') {
    const prs = keys.get('prs');
    if (prs !== undefined && !INT.test(prs)) return `has prs=${prs}, not a whole number`;
    const urls = rest === '' ? [] : rest.split(/\s+/);
    return { ...base, prs: prs === undefined ? null : Number(prs), urls };
  }
  const check = keys.get('check') ?? '';
  if (check !== '' && !NAME.test(check)) return `has check=${check}, not a check name`;
  const pr = keys.get('pr') ?? '';
  return { ...base, check: check === '' ? null : check, urls: pr === '' ? [] : [pr] };
}

/** Whether a line holds nothing but spaces and escape sequences (a terminal reset after a verdict is still its last line). */
function isBlank(text: string): boolean {
  if (text.trim() === '') return true;
  return text.length < 200 && stripEscapes(text).trim() === '';
}

/** Whether a line can be a disk-full error: the words, at column 0 outside prose, of a bounded length. */
function saysDiskFull(text: string): boolean {
  return text.length <= EVIDENCE_LINE_MAX && !PROSE_START.test(text) && DISK_FULL.some((s) => text.includes(s));
}

/**
 * Parser for a phase transcript `<phase>.log` (FORMATS.md §2.2). A verdict is a line in the exact
 * shape, at column 0, outside a code fence and of bounded length; the loop prints its own manual,
 * so indented, quoted, fenced and placeholder copies are prose. A verdict declares only as the
 * transcript's last non-blank line (the manual: "the last thing you emit"): the first non-blank
 * line after one is an `after-verdict` record that withdraws it, and the model counts only a
 * verdict no such record follows. A NIGHTLY line not in the shape is a `not-verdict` record, said
 * only if it is the last line (then it was a declaration that failed; else it is prose). Verdicts
 * are not filtered by loop or phase here: the model does that.
 */
export const transcriptParser: LineParser<TranscriptState> = {
  initial: () => ({ fence: null }),
  line(state, raw, lineNo, source) {
    // Cheap checks first: most transcript lines are neither fences nor verdicts, and fenceAt
    // looks at no more than the first four characters of a line that is not a fence.
    const text = lineNo === 1 ? cleanLine(raw, lineNo) : raw;
    if (state.declared && !isBlank(text)) {
      // Output after a verdict-shaped line: it was not the last thing emitted.
      const { declared: _withdrawn, ...rest } = state;
      const out = parseLine(rest, text, lineNo, source);
      return { state: out.state, result: { records: [{ kind: 'after-verdict', line: lineNo }, ...out.result.records], problems: out.result.problems } };
    }
    return parseLine(state, text, lineNo, source);
  },
};

/** One line of a transcript, given that it does not withdraw an earlier verdict. */
function parseLine(state: TranscriptState, text: string, lineNo: number, source: string): { state: TranscriptState; result: LineParseResult } {
  const next = nextFence(state, text);
  if (next !== state || state.fence !== null) return { state: next, result: EMPTY_RESULT };
  if (state.diskFull === undefined && saysDiskFull(text)) {
    const said = stripEscapes(cleanLine(text, lineNo)).slice(0, DISK_FULL_TEXT_MAX);
    return { state: { ...state, diskFull: true }, result: { records: [{ kind: 'disk-full', line: lineNo, text: said }], problems: [] } };
  }
  if (text.charCodeAt(0) !== 78 /* N */ || !text.startsWith('NIGHTLY ')) return suite(state, text, lineNo);
  const line = cleanLine(text, lineNo);
  const v = parseVerdict(line);
  if (v === null) return { state, result: EMPTY_RESULT };
  const declared: TranscriptState = state.declared ? state : { ...state, declared: true };
  if (typeof v === 'string') return { state: declared, result: { records: [{ kind: 'not-verdict', line: lineNo, why: v, text: quote(line) }], problems: [] } };
  // Only https URLs make a PR; anything else is reported and left out of the verdict.
  const bad = v.urls.filter((u) => !isPrUrl(u));
  const verdict = { ...v, urls: bad.length === 0 ? v.urls : v.urls.filter(isPrUrl), lineNumber: lineNo };
  const problems = bad.map((u) => ({ source, line: lineNo, message: `verdict line names ${quote(u)}, not an https URL; not taken as a PR` }));
  return { state: declared, result: { records: [{ kind: 'verdict', line: lineNo, verdict }], problems } };
}

/** A test runner's summary or a gate battery's `NAME_RC=N` line (shared/suite-summary.ts) as a record, up to SUITE_RECORDS_MAX. */
function suite(state: TranscriptState, text: string, lineNo: number): { state: TranscriptState; result: LineParseResult } {
  const seen = state.suites ?? 0;
  if (seen >= SUITE_RECORDS_MAX || text.length > MAX_SUITE_LINE || SUITE_PROSE.test(text) || !MAY_BE_SUITE.test(text)) return { state, result: EMPTY_RESULT };
  const parsed = suiteLine(text);
  if (parsed === null) return { state, result: EMPTY_RESULT };
  return { state: { ...state, suites: seen + 1 }, result: { records: [{ kind: 'suite', line: lineNo, suite: parsed }], problems: [] } };
}
