import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { statusFileParser } from './status-file';
import { chunkedParse, linesArb } from '../../../testing/chunked-parse';
import { parseLines } from '../text/lines';

const SRC = 'runs/2026-08-23/audit.status';

// FORMATS.md §2.1, verbatim.
const FORMATS_EXAMPLE = [
  'audit 2026-08-23T00:00:04-04:00 STARTED',
  'audit 2026-08-23T00:41:12-04:00 OK',
  'remediate 2026-08-23T09:12:40-04:00 INCOMPLETE',
  'agent exited 0 without committing to the nightly branch',
  'deliver 2026-08-23T10:02:11-04:00 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89',
  '',
].join('\n');

describe('statusFileParser', () => {
  it('reads the FORMATS.md example', () => {
    const out = parseLines(statusFileParser, FORMATS_EXAMPLE, SRC);
    expect(out.problems).toEqual([]);
    expect(out.records).toEqual([
      { kind: 'stamp', line: 1, phase: 'audit', at: '2026-08-23T00:00:04-04:00', status: 'STARTED' },
      { kind: 'stamp', line: 2, phase: 'audit', at: '2026-08-23T00:41:12-04:00', status: 'OK' },
      { kind: 'stamp', line: 3, phase: 'remediate', at: '2026-08-23T09:12:40-04:00', status: 'INCOMPLETE' },
      { kind: 'detail', line: 4, text: 'agent exited 0 without committing to the nightly branch' },
      {
        kind: 'stamp',
        line: 5,
        phase: 'deliver',
        at: '2026-08-23T10:02:11-04:00',
        status: '2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89',
      },
    ]);
    expect(out.state).toEqual({ stamped: true });
    expect(out.consumedBytes).toBe(Buffer.byteLength(FORMATS_EXAMPLE));
  });

  it.each([
    ['deliver 2026-08-23T10:02:11-04:00 0 PR(s), nothing to merge', 'deliver', '0 PR(s), nothing to merge'],
    ['deliver 2026-08-23T10:02:11-04:00 INCOMPLETE: ci/test', 'deliver', 'INCOMPLETE: ci/test'],
    ['remediate 2026-08-23T09:12:40-04:00 FAILED 2', 'remediate', 'FAILED 2'],
    ['remediate 2026-08-23T09:12:40-04:00 FAILED 75', 'remediate', 'FAILED 75'],
    ['audit 2026-08-23T04:00:04Z   NO-OP   ', 'audit', 'NO-OP'],
    ['audit\t2026-08-23T00:00:04-04:00\tSTARTED', 'audit', 'STARTED'],
  ])('stamp %j', (line, phase, status) => {
    const { records, problems } = parseLines(statusFileParser, `${line}\n`, SRC);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'stamp', phase, status });
  });

  it('normalises BSD offsets and comma fractions so new Date() reads them', () => {
    const { records } = parseLines(statusFileParser, 'audit 2026-08-23T00:00:04-0400 OK\naudit 2026-08-23T00:00:04,5+0530 OK\n', SRC);
    expect(records.map((r) => (r.kind === 'stamp' ? r.at : null))).toEqual(['2026-08-23T00:00:04-04:00', '2026-08-23T00:00:04.5+05:30']);
    expect(new Date('2026-08-23T00:00:04-04:00').toISOString()).toBe('2026-08-23T04:00:04.000Z');
  });

  it('strips CRLF, a line-1 BOM, indentation of detail, and ignores blank lines', () => {
    const text = '\uFEFFaudit 2026-08-23T00:00:04-04:00 FAILED 2\r\n\r\n    exit 2 in gates\r\n\t\r\n  second line  \r\n';
    const { records, problems } = parseLines(statusFileParser, text, SRC);
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { kind: 'stamp', line: 1, phase: 'audit', at: '2026-08-23T00:00:04-04:00', status: 'FAILED 2' },
      { kind: 'detail', line: 3, text: 'exit 2 in gates' },
      { kind: 'detail', line: 5, text: 'second line' },
    ]);
  });

  it('reports a line before any stamp, naming what was expected, and keeps going', () => {
    const { records, problems } = parseLines(statusFileParser, 'garbage here\naudit 2026-08-23T00:00:04-04:00 OK\n', SRC);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ source: SRC, line: 1 });
    expect(problems[0]?.message).toContain('PHASE STAMP STATUS');
    expect(problems[0]?.message).toContain('garbage here');
    expect(records).toHaveLength(1);
  });

  it('treats an indented stamp-shaped line as detail, not a stamp', () => {
    const { records } = parseLines(statusFileParser, 'audit 2026-08-23T00:00:04-04:00 STARTED\n  audit 2026-08-23T00:41:12-04:00 OK\n', SRC);
    expect(records[1]).toEqual({ kind: 'detail', line: 2, text: 'audit 2026-08-23T00:41:12-04:00 OK' });
  });

  it.each([
    ['audit 2026-13-45T00:00:04-04:00 OK', 'not a real date'],
    ['audit 2026-02-30T00:00:04Z OK', 'not a real date'],
    ['audit 2026-08-23T00:00:04-04:00', 'no STATUS'],
    ['audit 2026-08-23T00:00:04-04:00   ', 'no STATUS'],
  ])('reports a malformed stamp %j', (line, why) => {
    const { records, problems } = parseLines(statusFileParser, `${line}\n`, SRC);
    expect(records).toEqual([]);
    expect(problems[0]?.message).toContain(why);
  });

  it('reports a green stamp naming a PR URL that is not https, and keeps the stamp', () => {
    const line = 'deliver 2026-08-23T10:02:11-04:00 2 PR(s) green, ready to merge: https://github.com/a/b/pull/1 javascript:alert(1)';
    const { records, problems } = parseLines(statusFileParser, `${line}\n`, SRC);
    expect(records).toHaveLength(1);
    expect(problems).toEqual([{ source: SRC, line: 1, message: expect.stringContaining('"javascript:alert(1)", not an https URL') }]);
  });

  it('a stamp without an offset is not a stamp', () => {
    const { records, problems } = parseLines(statusFileParser, 'audit 2026-08-23T00:00:04 OK\n', SRC);
    expect(records).toEqual([]);
    expect(problems).toHaveLength(1);
  });

  it('does not parse a torn last line', () => {
    const out = parseLines(statusFileParser, 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41', SRC);
    expect(out.records).toHaveLength(1);
    expect(out.consumedBytes).toBe('audit 2026-08-23T00:00:04-04:00 STARTED\n'.length);
    expect(out.lines).toBe(1);
  });

  it('property: any chunking gives the same records as parsing whole', () => {
    const pieces = [
      ...FORMATS_EXAMPLE.split('\n'),
      '  indented detail',
      '\uFEFFaudit 2026-08-23T00:00:04Z OK\r',
      'deliver 2026-08-23T10:02:11-04:00 INCOMPLETE: ci/test',
      'x',
      '',
    ];
    fc.assert(
      fc.property(linesArb(pieces), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const whole = parseLines(statusFileParser, text, SRC);
        const chunked = chunkedParse(statusFileParser, text, cuts, SRC);
        expect(chunked).toEqual({ records: whole.records, problems: whole.problems, state: whole.state, consumedBytes: whole.consumedBytes });
      }),
    );
  });

  it('property: arbitrary strings never throw', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 3 }), (s, lineNo) => {
        const out = statusFileParser.line(statusFileParser.initial(), s, lineNo, SRC);
        expect(out.result.records.length + out.result.problems.length).toBeLessThanOrEqual(1);
        parseLines(statusFileParser, s, SRC);
      }),
    );
  });
});
