import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rcFileParser } from './rc-file';
import { chunkedParse, linesArb } from '../../../testing/chunked-parse';
import { parseLines } from '../text/lines';

const SRC = 'runs/2026-08-23/remediate.tests.rc';

// FORMATS.md §2.3, verbatim: a stage killed before suite ran.
const FORMATS_EXAMPLE = 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n';

describe('rcFileParser', () => {
  it('reads the FORMATS.md example', () => {
    const out = parseLines(rcFileParser, FORMATS_EXAMPLE, SRC);
    expect(out.problems).toEqual([]);
    expect(out.records).toEqual([
      { kind: 'rc', line: 1, name: 'ast_refresh', rc: null },
      { kind: 'rc', line: 2, name: 'gates', rc: null },
      { kind: 'rc', line: 3, name: 'suite', rc: null },
      { kind: 'rc', line: 4, name: 'ast_refresh', rc: 0 },
      { kind: 'rc', line: 5, name: 'gates', rc: 0 },
    ]);
  });

  it.each([
    ['SUITE_RC=0', { kind: 'rc', name: 'suite', rc: 0 }],
    ['Suite_Rc=1', { kind: 'rc', name: 'suite', rc: 1 }],
    ['suite_rc=-15', { kind: 'rc', name: 'suite', rc: -15 }],
    ['suite_rc=-0', { kind: 'rc', name: 'suite', rc: 0 }],
    ['suite_rc=+2', { kind: 'rc', name: 'suite', rc: 2 }],
    ['suite_rc=137', { kind: 'rc', name: 'suite', rc: 137 }],
    ['  suite_rc = 3  ', { kind: 'rc', name: 'suite', rc: 3 }],
    ['vitest.web_rc=', { kind: 'rc', name: 'vitest.web', rc: null }],
    ['fast_rc_rc=4', { kind: 'rc', name: 'fast_rc', rc: 4 }],
    ['DONE', { kind: 'done' }],
    [' DONE\t', { kind: 'done' }],
  ])('reads %j', (line, expected) => {
    const { records, problems } = parseLines(rcFileParser, `${line}\n`, SRC);
    expect(problems).toEqual([]);
    expect(records).toEqual([{ ...expected, line: 1 }]);
  });

  it('strips CRLF and a BOM on line 1; ignores blank lines', () => {
    const { records, problems } = parseLines(rcFileParser, '\uFEFFGATES_RC=\r\n\r\n   \r\nGATES_RC=0\r\nDONE\r\n', SRC);
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { kind: 'rc', line: 1, name: 'gates', rc: null },
      { kind: 'rc', line: 4, name: 'gates', rc: 0 },
      { kind: 'done', line: 5 },
    ]);
  });

  it.each([
    ['suite_rc=abc', 'not a whole number'],
    ['suite_rc=1.5', 'not a whole number'],
    ['suite_rc=99999999999999999999', 'not a whole number'],
    ['suite_rc=1 2', 'expected'],
    ['_rc=0', 'expected'],
    ['suite=0', 'expected'],
    ['done', 'expected'],
    ['DONE.', 'expected'],
    ['+ bash stage.sh', 'expected'],
  ])('reports %j', (line, why) => {
    const { records, problems } = parseLines(rcFileParser, `DONE\n${line}\n`, SRC);
    expect(records).toEqual([{ kind: 'done', line: 1 }]);
    expect(problems).toEqual([{ source: SRC, line: 2, message: expect.stringContaining(why) }]);
  });

  it('a torn last line is left for later', () => {
    const out = parseLines(rcFileParser, 'suite_rc=\nsuite_rc=1', SRC);
    expect(out.records).toEqual([{ kind: 'rc', line: 1, name: 'suite', rc: null }]);
    expect(out.consumedBytes).toBe(10);
  });

  it('property: any chunking gives the same records as parsing whole', () => {
    const pieces = [...FORMATS_EXAMPLE.split('\n'), 'SUITE_RC=0', 'suite_rc=2\r', 'DONE', 'junk', 'x_rc=-1'];
    fc.assert(
      fc.property(linesArb(pieces), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const whole = parseLines(rcFileParser, text, SRC);
        const chunked = chunkedParse(rcFileParser, text, cuts, SRC);
        expect(chunked).toEqual({ records: whole.records, problems: whole.problems, state: whole.state, consumedBytes: whole.consumedBytes });
      }),
    );
  });

  it('property: arbitrary strings never throw, and every non-blank line is a record or a problem', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }).filter((s) => !s.includes('\n')), (s) => {
        const { result } = rcFileParser.line(rcFileParser.initial(), s, 2, SRC);
        const blank = s.replace(/\r$/, '').trim() === '';
        expect(result.records.length + result.problems.length).toBe(blank ? 0 : 1);
      }),
    );
  });
});
