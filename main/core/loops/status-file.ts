import type { LineParser, LineParseResult } from '../text/line-parser';
import { EMPTY_RESULT, cleanLine, quote } from '../text/lines';
import { isPrUrl } from '../prs/pr-url';

/** Parser state for `<phase>.status`: whether a stamp has been seen (detail lines need one). */
export interface StatusState {
  readonly stamped: boolean;
}

// PHASE STAMP STATUS at column 0. The stamp is ISO-8601 with seconds and an offset; BSD `date +%z`
// writes `-0400`, so the colon is optional (and added back below so `new Date(at)` reads it).
const STAMP = /^(\S+)[ \t]+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(Z|[+-]\d{2}:?\d{2})(?:[ \t]+(.*))?$/;

/** Normalise a matched stamp to extended ISO form (`.` fractions, `±HH:MM` offsets). */
function isoStamp(clock: string, offset: string): string {
  const off = offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset;
  return `${clock.replace(',', '.')}${off}`;
}

/** A stamp whose fields are all in range (the regex accepts 2026-13-45T25:61:00). */
function validStamp(at: string): boolean {
  const t = Date.parse(at);
  if (Number.isNaN(t)) return false;
  // Date.parse rolls some out-of-range days over (Feb 30) instead of failing: compare the
  // wall-clock fields re-rendered in the stamp's own offset.
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(at);
  const off = /(Z|[+-]\d{2}:\d{2})$/.exec(at)?.[1] ?? 'Z';
  if (!m) return false;
  const offMin = off === 'Z' ? 0 : (off.startsWith('-') ? -1 : 1) * (Number(off.slice(1, 3)) * 60 + Number(off.slice(4, 6)));
  const local = new Date(t + offMin * 60_000);
  return (
    local.getUTCFullYear() === Number(m[1]) &&
    local.getUTCMonth() + 1 === Number(m[2]) &&
    local.getUTCDate() === Number(m[3]) &&
    local.getUTCHours() === Number(m[4]) &&
    local.getUTCMinutes() === Number(m[5])
  );
}

/**
 * Parser for the wrapper's `<phase>.status` (FORMATS.md §2.1): column-0 `PHASE STAMP STATUS` lines
 * become stamps, other lines under a stamp become detail. An indented stamp-shaped line is detail:
 * the wrapper writes stamps at column 0, and detail may quote one.
 */
export const statusFileParser: LineParser<StatusState> = {
  initial: () => ({ stamped: false }),
  line(state, raw, lineNo, source) {
    const text = cleanLine(raw, lineNo);
    if (text.trim() === '') return { state, result: EMPTY_RESULT };
    const m = STAMP.exec(text);
    if (m) {
      const [, phase = '', clock = '', offset = '', rest = ''] = m;
      const at = isoStamp(clock, offset);
      const status = rest.trim();
      if (!validStamp(at)) {
        return { state, result: problem(source, lineNo, `stamp ${quote(`${clock}${offset}`)} is not a real date and time; line skipped`) };
      }
      if (status === '') {
        return { state, result: problem(source, lineNo, `stamp for ${quote(phase)} has no STATUS after the time; line skipped`) };
      }
      // A green deliver stamp lists its PRs; only https URLs are PRs (the model skips the rest).
      const listed = /ready to merge:?(.*)$/i.exec(status)?.[1]?.trim().split(/\s+/).filter((u) => u !== '') ?? [];
      const problems = listed
        .filter((u) => !isPrUrl(u))
        .map((u) => ({ source, line: lineNo, message: `stamp names ${quote(u)}, not an https URL; not taken as a PR` }));
      return { state: state.stamped ? state : { stamped: true }, result: { records: [{ kind: 'stamp', line: lineNo, phase, at, status }], problems } };
    }
    if (!state.stamped) {
      return {
        state,
        result: problem(source, lineNo, `expected a stamp "PHASE STAMP STATUS" (e.g. "audit 2026-08-23T00:00:04-04:00 STARTED"), got ${quote(text)}`),
      };
    }
    return { state, result: { records: [{ kind: 'detail', line: lineNo, text: text.trim() }], problems: [] } };
  },
};

function problem(source: string, line: number, message: string): LineParseResult {
  return { records: [], problems: [{ source, line, message }] };
}
