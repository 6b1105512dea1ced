import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  beyondBaseline, combineSuites, formatCount, learnedBaseline, MAX_SUITE_LINE, MAX_SUITE_RESULTS, phaseSuiteTotals, suiteLine, SuiteResultSchema, suiteSentence,
  type SuiteLine, type SuiteLineAt, type SuiteResult,
} from './suite-summary';

const E = '\u001b';
const sum = (runner: string, passed: number, failed: number, skipped: number, errors: number, durationMs: number | null) => ({ part: 'summary', runner, passed, failed, skipped, errors, durationMs });

/** Lines as the tools print them, and what each says. */
const REAL: readonly [string, string, unknown][] = [
  ['pytest', '===== 8 failed, 32821 passed, 2 skipped in 858.12s =====', sum('pytest', 32821, 8, 2, 0, 858120)],
  ['pytest', '= 3 passed in 0.12s =', sum('pytest', 3, 0, 0, 0, 120)],
  ['pytest', '== 1 failed, 2 passed, 1 error in 3.00s (0:00:03) ==', sum('pytest', 2, 1, 0, 1, 3000)],
  ['pytest', '=========== 1 failed, 5 passed, 3 warnings, 2 errors in 12.50s ============', sum('pytest', 5, 1, 0, 2, 12500)],
  ['pytest', '==== 4 passed, 1 xfailed, 2 xpassed, 7 deselected, 1 warning in 0.33s ====', sum('pytest', 6, 0, 1, 0, 330)],
  ['pytest (thousands)', '===== 8 failed, 32,821 passed in 858.12s =====', sum('pytest', 32821, 8, 0, 0, 858120)],
  ['pytest (-q)', '12 passed, 1 skipped in 0.44s', sum('pytest', 12, 0, 1, 0, 440)],
  ['pytest (old)', '========================== 3 passed in 0.05 seconds ==========================', sum('pytest', 3, 0, 0, 0, 50)],
  ['pytest (none)', '============================ no tests ran in 0.01s =============================', sum('pytest', 0, 0, 0, 0, 10)],
  ['pytest (ANSI)', `${E}[31m${E}[1m===== 1 failed, 2 passed in 0.10s =====${E}[0m`, sum('pytest', 2, 1, 0, 0, 100)],
  ['pytest (ANSI per item)', `${E}[31m===== ${E}[31m${E}[1m1 failed${E}[0m, ${E}[32m2 passed${E}[0m${E}[31m in 0.10s${E}[0m${E}[31m =====${E}[0m`, sum('pytest', 2, 1, 0, 0, 100)],
  ['pytest (CRLF, NUL)', '= 3 passed in 0.12s =\u0000\r', sum('pytest', 3, 0, 0, 0, 120)],
  ['pytest (progress \\r)', '[ 99%]\r= 3 passed in 0.12s =', sum('pytest', 3, 0, 0, 0, 120)],
  ['pytest (in a code block)', '    ===== 3 passed in 0.12s =====', sum('pytest', 3, 0, 0, 0, 120)],
  ['vitest', '      Tests  3 failed | 1740 passed (1743)', sum('vitest', 1740, 3, 0, 0, null)],
  ['vitest', '      Tests  1740 passed | 2 skipped | 1 todo (1743)', sum('vitest', 1740, 0, 3, 0, null)],
  ['vitest (ANSI)', `${E}[2m      Tests ${E}[22m ${E}[1m${E}[31m3 failed${E}[39m${E}[22m${E}[2m | ${E}[22m${E}[1m${E}[32m1740 passed${E}[39m${E}[22m${E}[90m (1743)${E}[39m`, sum('vitest', 1740, 3, 0, 0, null)],
  ['vitest 4 (ANSI, as printed)', `${E}[2m      Tests ${E}[22m ${E}[1m${E}[31m1 failed${E}[39m${E}[22m${E}[2m | ${E}[22m${E}[1m${E}[32m96 passed${E}[39m${E}[22m${E}[90m (97)${E}[39m`, sum('vitest', 96, 1, 0, 0, null)],
  ['vitest 4 duration (ANSI, as printed)', `${E}[2m   Duration ${E}[22m 4.30s${E}[2m (transform 395ms, setup 205ms, import 544ms, tests 400ms, environment 0ms)${E}[22m`, { part: 'duration', runner: 'vitest', durationMs: 4300 }],
  ['vitest duration', '   Duration  12.34s (transform 1.20s, setup 0ms, collect 3.40s, tests 8.10s, environment 1ms, prepare 400ms)', { part: 'duration', runner: 'vitest', durationMs: 12340 }],
  ['vitest duration (ANSI, ms)', `${E}[2m   Duration ${E}[22m 850ms${E}[2m (transform 20ms)${E}[22m`, { part: 'duration', runner: 'vitest', durationMs: 850 }],
  ['vitest errors', '     Errors  2 errors', { part: 'errors', runner: 'vitest', errors: 2 }],
  ['jest', 'Tests:       1 failed, 2 skipped, 40 passed, 43 total', sum('jest', 40, 1, 2, 0, null)],
  ['jest', 'Tests:       1 todo, 41 passed, 42 total', sum('jest', 41, 0, 1, 0, null)],
  ['jest time', 'Time:        5.123 s, estimated 6 s', { part: 'duration', runner: 'jest', durationMs: 5123 }],
  ['node TAP', '# pass 10', { part: 'counter', runner: 'node', key: 'pass', value: 10 }],
  ['node TAP', '# fail 2', { part: 'counter', runner: 'node', key: 'fail', value: 2 }],
  ['node TAP', '# duration_ms 123.4', { part: 'counter', runner: 'node', key: 'duration_ms', value: 123.4 }],
  ['node spec', '\u2139 pass 10', { part: 'counter', runner: 'node', key: 'pass', value: 10 }],
  ['node spec (ANSI)', `${E}[34m\u2139 fail 0${E}[39m`, { part: 'counter', runner: 'node', key: 'fail', value: 0 }],
  ['go ok', 'ok  \texample.com/pkg\t0.123s', { part: 'package', runner: 'go', ok: true, name: 'example.com/pkg', durationMs: 123 }],
  ['go ok (cached)', 'ok  \texample.com/pkg/sub\t(cached)', { part: 'package', runner: 'go', ok: true, name: 'example.com/pkg/sub', durationMs: null }],
  ['go ok (coverage)', 'ok  \tgithub.com/acme/crossbar/internal/proxy\t1.042s\tcoverage: 81.2% of statements', { part: 'package', runner: 'go', ok: true, name: 'github.com/acme/crossbar/internal/proxy', durationMs: 1042 }],
  ['go FAIL', 'FAIL\texample.com/pkg\t0.500s', { part: 'package', runner: 'go', ok: false, name: 'example.com/pkg', durationMs: 500 }],
  ['go FAIL (build)', 'FAIL\texample.com/pkg [build failed]', { part: 'package', runner: 'go', ok: false, name: 'example.com/pkg', durationMs: null }],
  ['go FAIL alone', 'FAIL', { part: 'marker', runner: 'go', marker: 'go-end' }],
  ['go test', '    --- FAIL: TestQueueFullIs503 (0.00s)', { part: 'marker', runner: 'go', marker: 'go-test', name: 'TestQueueFullIs503' }],
  ['cargo', 'test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.05s', sum('cargo', 12, 0, 1, 0, 50)],
  ['cargo', 'test result: FAILED. 10 passed; 2 failed; 0 ignored; 0 measured; 3 filtered out; finished in 1.20s', sum('cargo', 10, 2, 0, 0, 1200)],
  ['cargo (old)', 'test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out', sum('cargo', 3, 0, 0, 0, null)],
  ['cargo start', '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.12s', { part: 'marker', runner: 'cargo', marker: 'cargo-start' }],
  ['prose', '    • Full observed suite (kernel STARTED and gRPC-verified, so authoritative): 32,821 passed / 8 failed / 0 errors / 0 skipped, 1616/1618 modules, 858s. Solo-retry: 4 batch failures -> 2 recovered', sum('prose', 32821, 8, 0, 0, 858000)],
  ['prose', '  5. Clean full-suite verification at HEAD 5eb80769: 32857 passed / 0 failed — the first suite result that actually describes the delivered branch', sum('prose', 32857, 0, 0, 0, null)],
  ['prose (last wins)', 'red: 3 passed / 1 failed, then green: 4 passed / 0 failed / 1 skipped, in 2.5s.', sum('prose', 4, 0, 1, 0, 2500)],
  ['gates', 'ASTSYNC_RC=0, GATES_RC=0, SUITE_RC=2', { part: 'gates', runner: 'gates', gates: [{ name: 'astsync', rc: 0 }, { name: 'gates', rc: 0 }, { name: 'suite', rc: 2 }] }],
  ['gates', 'suite_rc=-1', { part: 'gates', runner: 'gates', gates: [{ name: 'suite', rc: -1 }] }],
  ['gates', 'A_RC=0 B_RC=1', { part: 'gates', runner: 'gates', gates: [{ name: 'a', rc: 0 }, { name: 'b', rc: 1 }] }],
];

/** Lines that are not summaries. */
const NOT: readonly string[] = [
  'all tests passed',
  'the suite had 3 failed tests yesterday',
  'Module now 37 passed, rc=0.',
  'the 32853-passed figure quoted in the promotion report',
  'NIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range',
  'NIGHTLY DELIVER READY: loop=reliability prs=2 https://github.com/acme/radon/pull/88',
  'audit 2026-08-23T00:41:12-04:00 OK',
  '========== FAILURES ==========',
  '=========================== short test summary info ============================',
  'I ran it again, 3 passed in 0.12s',
  'the build finished in 3s',
  '= 3 passed in 0.12s', // a bar on one side only
  ' Test Files  1 failed | 50 passed (51)',
  'Test Suites: 1 failed, 3 passed, 4 total',
  'Snapshots:   0 total',
  'FAIL src/foo.test.js', // jest's failing file
  'FAIL src/foo.test.js (5.123 s)',
  ' FAIL  src/foo.test.ts > suite > test',
  'ok so the tests are fine 0.123s',
  '?   \texample.com/cmd\t[no test files]',
  '# pass',
  '# pass 1.5',
  '# Tests 12',
  'ASTSYNC_RC=0, GATES_RC=0, SUITE_RC=0. 32,857 passed', // gates inside prose are not a gate line
  'gates_rc=',
  'echo "GATES_RC=$?"',
  '1.32 passed / 2 failed',
  '',
  '   ',
  `${E}[0m`,
];

describe('suiteLine', () => {
  it.each(REAL)('reads %s: %j', (_runner, line, expected) => {
    expect(suiteLine(line)).toEqual(expected);
  });

  it.each(NOT)('is not a summary: %j', (line) => {
    expect(suiteLine(line)).toBeNull();
  });

  it('ignores lines longer than MAX_SUITE_LINE, even a summary padded out, and a 1 MB line quickly', () => {
    expect(suiteLine(`= 3 passed in 0.12s =${' '.repeat(MAX_SUITE_LINE)}`)).toBeNull();
    const start = Date.now();
    expect(suiteLine(`===== 8 failed, 32821 passed in 858.12s =====${'x'.repeat(1 << 20)}`)).toBeNull();
    expect(suiteLine('1'.repeat(1 << 20))).toBeNull();
    expect(Date.now() - start).toBeLessThan(100);
  });

  it('stays fast on adversarial lines just under the limit', () => {
    const n = MAX_SUITE_LINE - 8;
    const lines = [
      '1'.repeat(n), '1,'.repeat(n / 2), '= '.repeat(n / 2), `=${' 1 passed,'.repeat(n / 10)}`, 'A_'.repeat(n / 2), `${'A_RC=0 '.repeat(n / 7)}x`,
      `ok  ${'a'.repeat(n)}`, `Tests  ${'1 passed | '.repeat(n / 11)}`, `${E}[`.repeat(n / 2), `${E}]`.repeat(n / 2), '1 passed / '.repeat(n / 11),
      `1 passed / 1 failed${', 1'.repeat(n / 4)}`, `test result: ok. ${'1 passed; '.repeat(n / 10)}`, `Duration  ${'1'.repeat(n)}`,
    ];
    for (const line of lines) {
      const start = Date.now();
      suiteLine(line);
      expect(Date.now() - start, line.slice(0, 20)).toBeLessThan(50);
    }
  });
});

/** The counts a parsed line carries must be non-negative integers (node's duration and a gate's rc aside). */
function checkCounts(p: SuiteLine | null): void {
  if (p === null) return;
  const counts: number[] = [];
  if (p.part === 'summary') counts.push(p.passed, p.failed, p.skipped, p.errors);
  if (p.part === 'errors') counts.push(p.errors);
  if (p.part === 'counter' && p.key !== 'duration_ms') counts.push(p.value);
  for (const n of counts) expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
  if (p.part === 'gates') for (const g of p.gates) expect(Number.isInteger(g.rc)).toBe(true);
  if ('durationMs' in p && p.durationMs !== null) expect(p.durationMs).toBeGreaterThanOrEqual(0);
}

const utf8 = new (globalThis as unknown as { TextDecoder: new () => { decode(b: Uint8Array): string } }).TextDecoder();
const latin1 = (b: Uint8Array): string => Array.from(b, (c) => String.fromCharCode(c)).join('');
/** Fragments of real lines, so generated text often comes near a form. */
const piece = fc.constantFrom('=====', ' ', '1', '32,821', ' passed', ' failed', ', ', ' in ', '0.12s', ' | ', 'Tests ', 'Tests: ', ' total', '# pass ', '\u2139 ', 'ok  \t', 'FAIL\t', '\t', 'test result: ok. ', '; ', ' / ', '_RC=', 'A', '-', '\u0000', '\r', '\u001b[31m', '\ufffd', '\ud800');

describe('suiteLine on arbitrary text', () => {
  it('never throws, and counts are non-negative integers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 100 }), fc.array(piece, { maxLength: 30 }).map((a) => a.join(''))), (s) => {
        checkCounts(suiteLine(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on bytes decoded as latin1 or utf8 (NULs included)', () => {
    const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => b.map((c, i) => (i % 17 === 0 ? 0 : c)));
    fc.assert(fc.property(bytes, (b) => {
      checkCounts(suiteLine(latin1(b)));
      checkCounts(suiteLine(utf8.decode(b)));
    }), { numRuns: 1000 });
  });

  const n = fc.integer({ min: 0, max: 9_999_999 });
  const grouped = (v: number, sep: boolean): string => (sep ? formatCount(v) : String(v));

  it('recovers the counts of a generated pytest summary (any order, bars or -q, colours)', () => {
    const words = [['passed', 'passed'], ['failed', 'failed'], ['skipped', 'skipped'], ['errors', 'errors'], ['warnings', null], ['deselected', null]] as const;
    fc.assert(fc.property(fc.array(n, { minLength: 6, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), fc.boolean(), fc.boolean(), fc.boolean(), (counts, shown, bars, sep, colour) => {
      const items = words.map(([w], i) => `${grouped(counts[i] ?? 0, sep)} ${w}`).filter((_, i) => i === 0 || shown[i]);
      const body = `${items.reverse().join(', ')} in 12.34s`;
      const line = bars ? `==== ${body} ====` : body;
      const want = { passed: 0, failed: 0, skipped: 0, errors: 0 };
      words.forEach(([, k], i) => { if (k && (i === 0 || shown[i])) want[k] += counts[i] ?? 0; });
      expect(suiteLine(colour ? `${E}[32m${line}${E}[0m` : line)).toEqual({ part: 'summary', runner: 'pytest', ...want, durationMs: 12340 });
    }));
  });

  it('recovers the counts of a generated cargo test result', () => {
    fc.assert(fc.property(n, n, n, n, fc.boolean(), (passed, failed, ignored, filtered, finished) => {
      const line = `test result: ${failed ? 'FAILED' : 'ok'}. ${passed} passed; ${failed} failed; ${ignored} ignored; 0 measured; ${filtered} filtered out${finished ? '; finished in 1.50s' : ''}`;
      expect(suiteLine(line)).toEqual(sum('cargo', passed, failed, ignored, 0, finished ? 1500 : null));
    }));
  });

  it('recovers the counts of generated prose and vitest summaries', () => {
    fc.assert(fc.property(n, n, n, fc.boolean(), (passed, failed, skipped, sep) => {
      expect(suiteLine(`Suite: ${grouped(passed, sep)} passed / ${grouped(failed, sep)} failed / 0 errors / ${skipped} skipped, 858s`)).toEqual(sum('prose', passed, failed, skipped, 0, 858000));
      expect(suiteLine(`      Tests  ${failed} failed | ${passed} passed | ${skipped} skipped (${passed + failed + skipped})`)).toEqual(sum('vitest', passed, failed, skipped, 0, null));
    }));
  });
});

/** Recognised lines of a transcript (numbered from 1), as a caller gathers them. */
function recognised(text: string): SuiteLineAt[] {
  return text.split('\n').flatMap((line, i) => {
    const parsed = suiteLine(line);
    return parsed ? [{ line: i + 1, parsed }] : [];
  });
}

const valid = (results: readonly SuiteResult[]): void => {
  for (const r of results) expect(SuiteResultSchema.parse(r)).toEqual(r);
};

describe('combineSuites', () => {
  it("folds node's counters into one run, and a second block into another", () => {
    const tap = ['TAP version 13', 'ok 1 - a', '1..12', '# tests 12', '# suites 2', '# pass 10', '# fail 1', '# cancelled 1', '# skipped 1', '# todo 1', '# duration_ms 123.4'];
    const spec = ['\u2139 tests 3', '\u2139 pass 3', '\u2139 fail 0', '\u2139 duration_ms 3.2'];
    const results = combineSuites(recognised([...tap, 'some output', ...spec].join('\n')));
    expect(results).toEqual([
      { runner: 'node', passed: 10, failed: 1, skipped: 2, errors: 1, durationMs: 123.4, line: 11, failedNames: [] },
      { runner: 'node', passed: 3, failed: 0, skipped: 0, errors: 0, durationMs: 3.2, line: 16, failedNames: [] },
    ]);
    valid(results);
  });

  it('splits node counters further apart than NEAR_LINES, and needs a pass or fail counter', () => {
    const far = ['# pass 4', ...Array<string>(13).fill('x'), '# fail 1'];
    expect(combineSuites(recognised(far.join('\n'))).map((r) => [r.passed, r.failed])).toEqual([[4, 0], [0, 1]]);
    expect(combineSuites(recognised('# tests 12\n# suites 1'))).toEqual([]);
  });

  it('makes consecutive go packages one result naming the failing ones; FAIL alone ends it', () => {
    const run = [
      '--- FAIL: TestQueueFullIs503 (0.00s)', '    proxy_test.go:88: want 503', 'FAIL', 'FAIL\texample.com/crossbar/internal/proxy\t0.512s',
      'ok  \texample.com/crossbar/internal/lease\t0.020s', '?   \texample.com/crossbar/cmd\t[no test files]', 'ok  \texample.com/crossbar/internal/store\t(cached)', 'FAIL',
      'ok  \texample.com/crossbar/internal/lease\t0.020s',
    ];
    const results = combineSuites(recognised(run.join('\n')));
    expect(results).toEqual([
      { runner: 'go', passed: 2, failed: 1, skipped: 0, errors: 0, durationMs: null, line: 7, failedNames: ['example.com/crossbar/internal/proxy'] },
      { runner: 'go', passed: 1, failed: 0, skipped: 0, errors: 0, durationMs: null, line: 9, failedNames: [] },
    ]);
    valid(results);
  });

  it('ends a go group at any other suite line', () => {
    const lines = ['ok  \ta/b\t0.100s', '= 1 passed in 0.10s =', 'ok  \ta/c\t0.100s'];
    expect(combineSuites(recognised(lines.join('\n'))).map((r) => `${r.runner}:${r.passed}`)).toEqual(['go:1', 'pytest:1', 'go:1']);
  });

  it("sums a cargo run's test binaries, and a new build starts a new run", () => {
    const run = (failed: number) => [
      '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.12s', '     Running unittests src/lib.rs (target/debug/deps/x-1)',
      `test result: ${failed ? 'FAILED' : 'ok'}. 12 passed; ${failed} failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.05s`,
      '   Doc-tests x', 'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.50s',
    ];
    const results = combineSuites(recognised([...run(1), ...run(0)].join('\n')));
    expect(results.map((r) => [r.runner, r.passed, r.failed, r.skipped, r.durationMs, r.line])).toEqual([['cargo', 14, 1, 1, 550, 5], ['cargo', 14, 0, 1, 550, 10]]);
    expect(phaseSuiteTotals(results)).toEqual({ passed: 14, failed: 0, skipped: 1, errors: 0 });
  });

  it("attaches vitest's Duration and Errors, and jest's Time, to the result just before", () => {
    const lines = [
      ' Test Files  1 failed | 50 passed (51)', '      Tests  3 failed | 1740 passed (1743)', '     Errors  1 error', '   Start at  02:00:01', '   Duration  12.34s (transform 1.20s)',
      'Tests:       1 failed, 40 passed, 41 total', 'Snapshots:   0 total', 'Time:        5.123 s',
    ];
    const results = combineSuites(recognised(lines.join('\n')));
    expect(results).toEqual([
      { runner: 'vitest', passed: 1740, failed: 3, skipped: 0, errors: 1, durationMs: 12340, line: 5, failedNames: [] },
      { runner: 'jest', passed: 40, failed: 1, skipped: 0, errors: 0, durationMs: 5123, line: 8, failedNames: [] },
    ]);
    valid(results);
  });

  it('does not attach a duration to another runner, or from too far away', () => {
    expect(combineSuites(recognised('= 1 passed in 0.10s =\n   Duration  12.34s'))[0]?.durationMs).toBe(100);
    const far = ['      Tests  1 passed (1)', ...Array<string>(20).fill('x'), '   Duration  12.34s'];
    expect(combineSuites(recognised(far.join('\n')))[0]?.durationMs).toBeNull();
  });

  it("makes all of a phase's gates one result, the last assignment of a name winning (any case)", () => {
    const lines = ['GATES_RC=1', '= 1 passed in 0.10s =', 'ASTSYNC_RC=0, GATES_RC=0, SUITE_RC=2', 'lint_rc=3', 'LINT_RC=0'];
    const results = combineSuites(recognised(lines.join('\n')));
    expect(results).toEqual([
      { runner: 'pytest', passed: 1, failed: 0, skipped: 0, errors: 0, durationMs: 100, line: 2, failedNames: [] },
      { runner: 'gates', passed: 3, failed: 1, skipped: 0, errors: 0, durationMs: null, line: 5, failedNames: ['suite'] },
    ]);
    valid(results);
    expect(phaseSuiteTotals(results)).toEqual({ passed: 1, failed: 0, skipped: 0, errors: 0 });
  });

  it('keeps the last MAX_SUITE_RESULTS of 60 results, in transcript order', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `= ${i} passed in 0.10s =`);
    const results = combineSuites(recognised(lines.join('\n')));
    expect(results).toHaveLength(MAX_SUITE_RESULTS);
    expect(results.map((r) => r.passed)).toEqual(Array.from({ length: 50 }, (_, i) => i + 10));
  });

  it('names at most 20 failing packages, each at most 120 characters', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `FAIL\texample.com/${i}/${'p'.repeat(200)}\t0.100s`);
    const [go] = combineSuites(recognised([...lines, lines[0]].join('\n')));
    expect(go?.failed).toBe(31);
    expect(go?.failedNames).toEqual(Array.from({ length: 20 }, (_, i) => `example.com/${i}/${'p'.repeat(200)}`.slice(0, 120)));
    valid(go ? [go] : []);
  });
});

describe('phaseSuiteTotals', () => {
  it("sums each runner's last result, gates left out; null with none", () => {
    const lines = ['= 5 passed, 2 failed in 1.00s =', '      Tests  3 passed (3)', '= 7 passed in 1.00s =', 'SUITE_RC=1'];
    expect(phaseSuiteTotals(combineSuites(recognised(lines.join('\n'))))).toEqual({ passed: 10, failed: 0, skipped: 0, errors: 0 });
    expect(phaseSuiteTotals(combineSuites(recognised('SUITE_RC=1')))).toBeNull();
    expect(phaseSuiteTotals([])).toBeNull();
  });
});

describe('baseline', () => {
  it('is the lower median of the last 7 green nights, null with fewer than 3', () => {
    expect(learnedBaseline([])).toBeNull();
    expect(learnedBaseline([37, 37])).toBeNull();
    expect(learnedBaseline([37, 40, 36])).toBe(37);
    expect(learnedBaseline([36, 40, 37, 39])).toBe(37);
    expect(learnedBaseline([0, 0, 0, 90, 37, 37, 38, 36, 37, 40])).toBe(37);
    expect(learnedBaseline([37, Number.NaN, -1, 38, 36.9])).toBe(37);
  });

  it('says how many failures are beyond it', () => {
    expect(beyondBaseline(40, 37)).toEqual({ beyond: 3, baseline: 37 });
    expect(beyondBaseline(30, 37)).toEqual({ beyond: 0, baseline: 37 });
    expect(beyondBaseline(40, null)).toBeNull();
  });

  it('puts totals in a few words', () => {
    const t = (passed: number, failed: number, errors = 0) => ({ passed, failed, skipped: 4, errors });
    expect(suiteSentence(t(32821, 40), 37)).toBe('40 failed — 3 beyond the baseline of 37');
    expect(suiteSentence(t(32821, 37), 37)).toBe('37 failed — within the baseline of 37');
    expect(suiteSentence(t(32821, 8), null)).toBe('32,821 passed, 8 failed');
    expect(suiteSentence(t(12, 0), 37)).toBe('12 passed');
    expect(suiteSentence(t(12, 0, 1), null)).toBe('12 passed, 1 error');
    expect(suiteSentence(t(1234567, 2, 3), 1000)).toBe('2 failed, 3 errors — within the baseline of 1,000');
  });

  it('formats counts with thousands separators', () => {
    expect([0, 7, 999, 1000, 32821, 1234567, -4200].map(formatCount)).toEqual(['0', '7', '999', '1,000', '32,821', '1,234,567', '-4,200']);
  });
});
