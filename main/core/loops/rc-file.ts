import type { LineParser } from '../text/line-parser';
import { EMPTY_RESULT, cleanLine, quote } from '../text/lines';

/** Parser state for a stage rc file: none is needed (every line stands alone). Plain JSON. */
export type RcState = Readonly<Record<string, never>>;

// `name_rc=` or `name_rc=N`; the suffix is matched case-insensitively (`SUITE_RC=0`).
const ASSIGN = /^([A-Za-z0-9_.-]+?)_rc[ \t]*=[ \t]*(\S*)$/i;
const RC = /^[+-]?\d+$/;

/**
 * Parser for a stage's rc file `<phase>.<stage>.rc` (FORMATS.md §2.3). Step names are lower-cased
 * without the `_rc` suffix, so `SUITE_RC` and `suite_rc` name the same step.
 */
export const rcFileParser: LineParser<RcState> = {
  initial: () => ({}),
  line(state, raw, lineNo, source) {
    const text = cleanLine(raw, lineNo).trim();
    if (text === '') return { state, result: EMPTY_RESULT };
    if (text === 'DONE') return { state, result: { records: [{ kind: 'done', line: lineNo }], problems: [] } };
    const m = ASSIGN.exec(text);
    if (m) {
      const name = (m[1] ?? '').toLowerCase();
      const value = m[2] ?? '';
      if (value === '') return { state, result: { records: [{ kind: 'rc', line: lineNo, name, rc: null }], problems: [] } };
      const rc = Number(value) + 0; // + 0 turns -0 into 0
      if (RC.test(value) && Number.isSafeInteger(rc)) {
        return { state, result: { records: [{ kind: 'rc', line: lineNo, name, rc }], problems: [] } };
      }
      return { state, result: { records: [], problems: [{ source, line: lineNo, message: `step ${quote(name)} has rc ${quote(value)}, not a whole number; line skipped` }] } };
    }
    return {
      state,
      result: { records: [], problems: [{ source, line: lineNo, message: `expected "name_rc=", "name_rc=N" or "DONE", got ${quote(text)}; line skipped` }] },
    };
  },
};
