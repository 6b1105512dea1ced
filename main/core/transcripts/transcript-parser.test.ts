import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EVIDENCE_LINE_MAX, parseVerdict, SUITE_RECORDS_MAX, transcriptParser } from './transcript-parser';
import { combineSuites } from '../../../shared/suite-summary';
import { chunkedParse, linesArb } from '../../../testing/chunked-parse';
import { parseLines } from '../text/lines';
import { referenceManual } from '../../../testing/reference-manual';

const SRC = 'runs/2026-08-23/deliver.log';

// Lines from reference/reliability-loop-skill.txt and FORMATS.md §2.2, verbatim.
const NOOP_AUDIT = 'NIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range';
const NOOP_REMEDIATE = 'NIGHTLY PHASE NO-OP: loop=reliability phase=remediate 0 source-actionable P0/P1 items';
const MANUAL_NOOP = 'NIGHTLY PHASE NO-OP: loop=reliability phase=<audit|remediate> <one-line reason>';
const MANUAL_READY = 'NIGHTLY DELIVER READY: loop=reliability prs=<n> <urls> becomes the operator';
const MANUAL_INLINE = 'dead-man comment); NIGHTLY DELIVER INCOMPLETE: loop=reliability check=<name> pr=<url> becomes "INCOMPLETE: ", the phase exits 75, and the next';
const READY = 'NIGHTLY DELIVER READY: loop=reliability prs=2 https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89';
const INCOMPLETE = 'NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/test pr=https://github.com/acme/radon/pull/88';

const verdictsOf = (text: string) => parseLines(transcriptParser, text, SRC).records.flatMap((r) => (r.kind === 'verdict' ? [r.verdict] : []));
/** The records that are verdicts (a verdict followed by more output also makes an `after-verdict` record). */
const verdictRecords = (text: string) => parseLines(transcriptParser, text, SRC).records.filter((r) => r.kind === 'verdict');

describe('transcriptParser', () => {
  it.each([
    [NOOP_AUDIT, { kind: 'no-op', loop: 'reliability', phase: 'audit', prs: null, urls: [], check: null, reason: 'no new findings in the delta range' }],
    [NOOP_REMEDIATE, { kind: 'no-op', loop: 'reliability', phase: 'remediate', reason: '0 source-actionable P0/P1 items' }],
    [
      READY,
      {
        kind: 'deliver-ready',
        loop: 'reliability',
        phase: null,
        prs: 2,
        urls: ['https://github.com/acme/radon/pull/88', 'https://github.com/acme/radon/pull/89'],
        check: null,
        reason: null,
      },
    ],
    ['NIGHTLY DELIVER READY: loop=reliability prs=0', { kind: 'deliver-ready', prs: 0, urls: [] }],
    [INCOMPLETE, { kind: 'deliver-incomplete', loop: 'reliability', check: 'ci/test', urls: ['https://github.com/acme/radon/pull/88'], prs: null }],
    ['NIGHTLY DELIVER INCOMPLETE: loop=testing', { kind: 'deliver-incomplete', loop: 'testing', check: null, urls: [] }],
    ['NIGHTLY PHASE NO-OP: loop=testing phase=audit', { kind: 'no-op', loop: 'testing', phase: 'audit', reason: null }],
  ])('reads %j', (line, expected) => {
    const { records, problems } = parseLines(transcriptParser, `${line}\n`, SRC);
    expect(problems).toEqual([]);
    expect(records).toEqual([{ kind: 'verdict', line: 1, verdict: expect.objectContaining({ ...expected, line }) }]);
  });

  it.each([
    ['javascript:alert(1)'],
    ['file:///etc/passwd'],
    ['data:text/html,<script>x</script>'],
    ['http://github.com/acme/radon/pull/7'],
    ['https://'],
  ])('takes only https URLs as PRs: %s is a problem, not a PR', (bad) => {
    const good = 'https://github.com/acme/radon/pull/88';
    const ready = `NIGHTLY DELIVER READY: loop=reliability prs=2 ${good} ${bad}`;
    const incomplete = `NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci pr=${bad}`;
    const { records, problems } = parseLines(transcriptParser, `${ready}\n${incomplete}\n`, SRC);
    expect(records.flatMap((r) => (r.kind === 'verdict' ? [r.verdict.urls] : []))).toEqual([[good], []]);
    expect(problems).toEqual([
      { source: SRC, line: 1, message: expect.stringContaining('not an https URL') },
      { source: SRC, line: 2, message: expect.stringContaining('not an https URL') },
    ]);
    expect(problems[0]?.message).toContain(bad);
  });

  it('records the first line saying the disk is full (not every one), without its escapes', () => {
    const text = 'gate\n\x1b[31mOSError: [Errno 28] No space left on device\x1b[0m\nENOSPC again\nNo space left on device\n';
    const { records } = parseLines(transcriptParser, text, SRC);
    expect(records).toEqual([{ kind: 'disk-full', line: 2, text: 'OSError: [Errno 28] No space left on device' }]);
  });

  it('says which line of the transcript the verdict is on, for a link to it', () => {
    const records = verdictRecords(`working\n\n${READY}\nmore\n${NOOP_AUDIT}\n`);
    expect(records.map((r) => (r.kind === 'verdict' ? [r.line, r.verdict.lineNumber] : null))).toEqual([
      [3, 3],
      [5, 5],
    ]);
  });

  it('keeps the line verbatim without its \\r, and strips a BOM on line 1', () => {
    const records = verdictRecords(`\uFEFF${NOOP_AUDIT}\r\n${READY}\r\n`);
    expect(records.map((r) => (r.kind === 'verdict' ? r.verdict.line : null))).toEqual([NOOP_AUDIT, READY]);
  });

  it.each([
    ['indented', `    ${NOOP_AUDIT}`],
    ['one space', ` ${READY}`],
    ['tab', `\t${INCOMPLETE}`],
    ['quoted', `> ${NOOP_AUDIT}`],
    ['mid-line', MANUAL_INLINE],
    ['lower case', NOOP_AUDIT.toLowerCase()],
  ])('a %s verdict is prose', (_what, line) => {
    expect(parseLines(transcriptParser, `${line}\n`, SRC)).toMatchObject({ records: [], problems: [] });
  });

  it('a verdict inside a ``` or ~~~ fence is prose; after the fence it counts', () => {
    const text = [
      'cat SKILL.md',
      '```markdown',
      NOOP_AUDIT,
      '~~~',
      READY,
      '```',
      '~~~~ text',
      INCOMPLETE,
      '~~~', // too short to close a ~~~~ fence
      NOOP_REMEDIATE,
      '~~~~~',
      READY,
      '',
    ].join('\n');
    const out = parseLines(transcriptParser, text, SRC);
    expect(out.problems).toEqual([]);
    expect(out.records).toEqual([{ kind: 'verdict', line: 12, verdict: expect.objectContaining({ kind: 'deliver-ready', line: READY }) }]);
    expect(out.state).toEqual({ fence: null, declared: true });
  });

  it('tracks an open fence in plain JSON state; an indented fence (up to 3 spaces) counts', () => {
    const out = parseLines(transcriptParser, '   ```bash\n', SRC);
    expect(JSON.parse(JSON.stringify(out.state))).toEqual({ fence: { char: '`', len: 3 } });
    expect(verdictsOf('    ```\nNIGHTLY DELIVER READY: loop=x prs=1 u\n')).toHaveLength(1); // 4 spaces: not a fence
    expect(verdictsOf('```js `x`\nNIGHTLY DELIVER READY: loop=x prs=1 u\n')).toHaveLength(1); // inline code, not a fence
    expect(verdictsOf('> ```\nNIGHTLY DELIVER READY: loop=x prs=1 u\n')).toHaveLength(1); // quoted fences are not tracked
    const resumed = parseLines(transcriptParser, `${READY}\n\`\`\`\n${READY}\n`, SRC, { state: out.state, firstLine: 2 });
    expect(resumed.records.filter((r) => r.kind === 'verdict')).toHaveLength(1);
    expect(resumed.records.find((r) => r.kind === 'verdict')?.line).toBe(4);
  });

  it.each([
    ['NIGHTLY PHASE NO-OP: phase=audit nothing to do', 'no loop='],
    ['NIGHTLY PHASE NO-OP: loop= phase=audit nothing', 'no loop='],
    ['NIGHTLY PHASE NO-OP: loop=reliability nothing to do', 'no phase='],
    ['NIGHTLY DELIVER READY: prs=1 https://x/pull/1', 'no loop='],
    [MANUAL_READY, 'prs=<n>'],
    [MANUAL_NOOP, 'phase=<audit|remediate>, not a phase name'],
    ['NIGHTLY PHASE NO-OP: loop=<loop> phase=audit x', 'loop=<loop>, not a loop name'],
    ['NIGHTLY DELIVER INCOMPLETE: loop=reliability check=<name> pr=<url>', 'check=<name>, not a check name'],
    ['NIGHTLY DELIVER INCOMPLETE: check=ci pr=https://x/pull/1', 'no loop='],
    [`NIGHTLY PHASE NO-OP: loop=reliability phase=audit ${'x'.repeat(EVIDENCE_LINE_MAX)}`, `at most ${EVIDENCE_LINE_MAX}`],
  ])('a line not in the exact shape %j is no verdict: a not-verdict record (said only if it is the last line), no problem', (line, why) => {
    const { records, problems } = parseLines(transcriptParser, `ok\n${line}\n`, SRC);
    expect(problems).toEqual([]);
    expect(records).toEqual([{ kind: 'not-verdict', line: 2, why: expect.stringContaining(why) as unknown as string, text: expect.any(String) as unknown as string }]);
  });

  it('marks the first non-blank line after a verdict-shaped line (its declaration withdrawn), once; blank and escape-only lines do not', () => {
    const text = [NOOP_AUDIT, '', '   ', '\x1b[0m', 'tool_use Read SKILL.md', 'more prose', READY, '', ''].join('\n');
    const { records } = parseLines(transcriptParser, text, SRC);
    expect(records.map((r) => [r.kind, r.line])).toEqual([
      ['verdict', 1],
      ['after-verdict', 5],
      ['verdict', 7],
    ]);
    // A fence line and a disk-full line are output too.
    expect(parseLines(transcriptParser, `${READY}\n\`\`\`\n`, SRC).records.map((r) => r.kind)).toEqual(['verdict', 'after-verdict']);
    expect(parseLines(transcriptParser, `${READY}\nENOSPC\n`, SRC).records.map((r) => r.kind)).toEqual(['verdict', 'after-verdict', 'disk-full']);
  });

  it('a disk-full line is evidence only outside prose: not indented, quoted, listed, fenced or huge', () => {
    for (const prose of ['  OSError: No space left on device', '> ENOSPC', '- a write failed with ENOSPC', '```\nENOSPC\n```', `ENOSPC ${'x'.repeat(EVIDENCE_LINE_MAX)}`]) {
      expect(parseLines(transcriptParser, `${prose}\n`, SRC).records).toEqual([]);
    }
  });

  it('does not filter by loop or phase', () => {
    const lines = ['NIGHTLY PHASE NO-OP: loop=testing phase=audit quiet', 'NIGHTLY PHASE NO-OP: loop=reliability phase=deliver quiet'];
    expect(verdictsOf(lines.join('\n') + '\n').map((v) => [v?.loop, v?.phase])).toEqual([
      ['testing', 'audit'],
      ['reliability', 'deliver'],
    ]);
  });

  it('ignores other NIGHTLY lines', () => {
    expect(parseVerdict('NIGHTLY PHASE OK: loop=x')).toBeNull();
    expect(verdictsOf('NIGHTLY DELIVER: loop=x\nNIGHTLY\n')).toEqual([]);
  });

  it('finds the one verdict in a big transcript', () => {
    const prose = 'tool call: rg -n "placeOrder|place_order" web/ scripts/ -- 42 matches in 17 files\n';
    const text = prose.repeat(200_000) + `${READY}\n`;
    const out = parseLines(transcriptParser, text, SRC);
    expect(out.records).toHaveLength(1);
  });

  it('the loop\'s own manual, read into a transcript, leaves no verdict to count: every verdict-shaped line has output after it', () => {
    const manual = referenceManual();
    const { records, problems } = parseLines(transcriptParser, manual, SRC);
    const shaped = records.filter((r) => r.kind === 'verdict' || r.kind === 'not-verdict' || r.kind === 'after-verdict');
    // The manual's column-0 example declarations are read (it is their exact shape) and withdrawn.
    expect(records.some((r) => r.kind === 'verdict')).toBe(true);
    expect(shaped.at(-1)?.kind).toBe('after-verdict');
    expect(problems).toEqual([]);
    expect(records.some((r) => r.kind === 'disk-full')).toBe(false);
  });

  it('suite summaries and gate lines become suite records, and the phase\'s results combine them; prose about a run does not', () => {
    const text = [
      'running the suite',
      '\x1b[31m===== 8 failed, 32821 passed, 2 skipped in 858.12s =====\x1b[0m',
      '      Tests  3 failed | 1740 passed (1743)',
      '   Duration  12.34s (transform 1.2s)',
      'test result: FAILED. 12 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.05s',
      'ok  \texample.com/pool\t0.123s',
      'FAIL\texample.com/api\t0.500s',
      'FAIL',
      '# pass 10',
      '# fail 2',
      '# duration_ms 123.4',
      '32,821 passed / 8 failed / 0 errors / 0 skipped, 1616/1618 modules, 858s',
      'GATES_RC=0',
      'SUITE_RC=1',
      '> ===== 1 failed, 2 passed in 0.10s =====',
      '| 3 passed | 1 failed |',
      '```',
      '===== 9 failed, 1 passed in 1.00s =====',
      '```',
      'all tests passed yesterday, 3 failed the day before',
    ].join('\n');
    const { records, problems } = parseLines(transcriptParser, text, SRC);
    expect(problems).toEqual([]);
    const suites = records.flatMap((r) => (r.kind === 'suite' ? [{ line: r.line, parsed: r.suite }] : []));
    // Quoted, tabled and fenced copies are prose: lines 15–19 make no record.
    expect(suites.every((x) => x.line < 15)).toBe(true);
    const results = combineSuites(suites);
    expect(results.map((r) => [r.runner, r.passed, r.failed, r.skipped])).toEqual([
      ['pytest', 32821, 8, 2],
      ['vitest', 1740, 3, 0],
      ['cargo', 12, 1, 0],
      ['go', 1, 1, 0],
      ['node', 10, 2, 0],
      ['prose', 32821, 8, 0],
      ['gates', 1, 1, 0],
    ]);
    expect(results.find((r) => r.runner === 'gates')?.failedNames).toEqual(['suite']);
    expect(results.find((r) => r.runner === 'vitest')?.durationMs).toBe(12_340);
  });

  it(`a transcript records at most ${SUITE_RECORDS_MAX} suite lines: an agent printing a gate line in a loop does not grow the store without bound`, () => {
    const text = Array.from({ length: SUITE_RECORDS_MAX + 50 }, (_, i) => `STEP${i}_RC=0`).join('\n');
    const { records } = parseLines(transcriptParser, text, SRC);
    expect(records.filter((r) => r.kind === 'suite')).toHaveLength(SUITE_RECORDS_MAX);
  });

  it('property: any chunking gives the same records as parsing whole', () => {
    const pieces = [NOOP_AUDIT, READY, INCOMPLETE, MANUAL_READY, MANUAL_NOOP, `  ${READY}`, '```', '~~~', '````', '```js', `${NOOP_REMEDIATE}\r`, '', 'prose', '===== 1 failed, 2 passed in 0.10s =====', 'SUITE_RC=1', '# pass 3', '      Tests  3 failed | 1740 passed (1743)', 'ok  \texample.com/pool\t0.123s'];
    fc.assert(
      fc.property(linesArb(pieces), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const whole = parseLines(transcriptParser, text, SRC);
        const chunked = chunkedParse(transcriptParser, text, cuts, SRC);
        expect(chunked).toEqual({ records: whole.records, problems: whole.problems, state: whole.state, consumedBytes: whole.consumedBytes });
      }),
    );
  });

  it('property: arbitrary strings never throw', () => {
    const nightly = fc.string({ unit: 'binary' }).map((s) => `NIGHTLY DELIVER READY:${s}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), nightly), fc.integer({ min: 1, max: 3 }), (s, lineNo) => {
        transcriptParser.line(transcriptParser.initial(), s, lineNo, SRC);
        transcriptParser.line({ fence: { char: '~', len: 3 } }, s, lineNo, SRC);
        parseLines(transcriptParser, s, SRC);
      }),
    );
  });
});
