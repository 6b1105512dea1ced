import { describe, expect, it } from 'vitest';
import { firstDivergence, keptLine, normalizeLine, NightComparisonSchema, suiteDeltas, COMPARE_LINE_CHARS } from './night-compare';
import type { SuiteResult } from './suite-summary';

describe('normalizeLine', () => {
  it.each([
    // Timestamps and dates, as stamps and loggers print them.
    ['audit 2026-08-23T00:41:12-04:00 OK', 'audit <time> OK'],
    ['[2026-08-23 00:41:12,517] INFO collected', '[<time>] INFO collected'],
    ['2026-08-23T04:41:12.123456Z worker ready', '<time> worker ready'],
    ['Delta audit 2026-08-23 (second pass)', 'Delta audit <date> (second pass)'],
    ['started at 00:41:12 and again at 9:02:03.5', 'started at <time> and again at <time>'],
    // Durations.
    ['===== 8 failed, 32821 passed, 2 skipped in 858.12s =====', '===== # failed, # passed, # skipped in <dur> ====='],
    ['took 858s', 'took <dur>'],
    ['elapsed 1m2s (12.3s in gates)', 'elapsed <dur> (<dur> in gates)'],
    ['ttfb 250ms', 'ttfb <dur>'],
    // SHAs, UUIDs, hex.
    ['HEAD is now at 3f2c1ab REL-050: shrink the pool', 'HEAD is now at <sha> REL-#: shrink the pool'],
    ['commit 3f2c1ab9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3', 'commit <sha>'],
    ['request 123e4567-e89b-12d3-a456-426614174000 failed', 'request <uuid> failed'],
    ['pointer 0xdeadbeef', 'pointer <hex>'],
    // Words made of hex letters only are words.
    ['the defaced facade', 'the defaced facade'],
    // Every other digit run.
    ['Tests  3 failed | 1740 passed (1743)', 'Tests  # failed | # passed (#)'],
    ['slot 12 of 16, queue 4', 'slot # of #, queue #'],
    // Temporary paths.
    ['wrote /tmp/pytest-of-ops/pytest-12/test_fsync0/out.json', 'wrote <tmp>'],
    ["opened '/var/folders/x1/abc_123/T/tmp.XYZ' for writing", "opened '<tmp>' for writing"],
    // Escape sequences and trailing space.
    ['\u001b[31mFAILED\u001b[0m tests/test_orders.py::test_fsync   ', 'FAILED tests/test_orders.py::test_fsync'],
    ['\u001b]0;title\u0007plain', 'plain'],
    ['', ''],
  ])('%j → %j', (raw, want) => {
    expect(normalizeLine(raw)).toBe(want);
  });

  it('makes two nights of the same line equal, and keeps what differs', () => {
    const a = '[2026-08-23 01:02:03] PASSED tests/test_pool.py::test_shrink (0.31s) sha=3f2c1ab';
    const b = '[2026-08-24 04:05:06] PASSED tests/test_pool.py::test_shrink (0.29s) sha=9e8d7c6';
    expect(normalizeLine(a)).toBe(normalizeLine(b));
    expect(normalizeLine(a.replace('PASSED', 'FAILED'))).not.toBe(normalizeLine(b));
  });

  it('is linear on long hostile lines', () => {
    const start = Date.now();
    for (const line of ['1'.repeat(100_000), 'a1'.repeat(50_000), '1.'.repeat(50_000), '\u001b['.repeat(50_000), 'f'.repeat(100_000)]) normalizeLine(line);
    expect(Date.now() - start).toBeLessThan(2000);
  });
});

describe('firstDivergence', () => {
  const night = (date: string, sec: number, extra: string[] = []): string[] => [
    `remediate ${date}T01:00:00-04:00 STARTED`,
    `[${date} 01:00:0${sec}] collected 32829 items in ${sec}.5s`,
    ...extra,
    `===== 8 failed, 32821 passed in 85${sec}.12s =====`,
    `NIGHTLY PHASE NO-OP: loop=reliability phase=remediate nothing to do`,
  ];

  it('is null when two nights differ only in timestamps, durations and numbers', async () => {
    expect(await firstDivergence(night('2026-08-23', 1), night('2026-08-24', 7), { maxLines: 1000 })).toBeNull();
  });

  it('finds a real difference at its line', async () => {
    const a = night('2026-08-24', 7, ['FAILED tests/test_orders.py::test_fsync - AssertionError']);
    const b = night('2026-08-23', 1, []);
    expect(await firstDivergence(a, b, { maxLines: 1000 })).toEqual({
      kind: 'differ',
      index: 2,
      a: 'FAILED tests/test_orders.py::test_fsync - AssertionError',
      b: '===== 8 failed, 32821 passed in 851.12s =====',
    });
  });

  it('says which side ended first', async () => {
    const a = night('2026-08-24', 7);
    const b = a.slice(0, 3);
    expect(await firstDivergence(a, b, { maxLines: 1000 })).toEqual({ kind: 'ended', index: 3, ended: 'b', a: a[3], b: null });
    expect(await firstDivergence([], ['x'], { maxLines: 1000 })).toEqual({ kind: 'ended', index: 0, ended: 'a', a: null, b: 'x' });
  });

  it('stops at the bound and says so, reading no further than it', async () => {
    let read = 0;
    async function* endless(): AsyncGenerator<string> {
      for (let i = 0; ; i++) {
        read += 1;
        yield `line ${i}`;
      }
    }
    expect(await firstDivergence(endless(), endless(), { maxLines: 500 })).toEqual({ kind: 'bound', index: 500 });
    expect(read).toBe(1000);
  });

  it('closes an async stream it stops reading early', async () => {
    let closed = false;
    async function* lines(): AsyncGenerator<string> {
      try {
        yield 'same';
        yield 'this one differs';
        yield 'never read';
      } finally {
        closed = true;
      }
    }
    expect(await firstDivergence(lines(), ['same', 'other'], { maxLines: 10 })).toMatchObject({ kind: 'differ', index: 1 });
    expect(closed).toBe(true);
  });
});

describe('suiteDeltas and the result shape', () => {
  const run = (runner: SuiteResult['runner'], passed: number, failed: number, line: number): SuiteResult => ({ runner, passed, failed, skipped: 0, errors: 0, durationMs: null, line, failedNames: [] });

  it("compares each runner's last run, a − b", () => {
    expect(suiteDeltas([run('pytest', 10, 5, 3), run('pytest', 32820, 9, 90), run('gates', 4, 0, 95)], [run('pytest', 32821, 8, 80)])).toEqual([
      { runner: 'pytest', a: { passed: 32820, failed: 9, skipped: 0, errors: 0 }, b: { passed: 32821, failed: 8, skipped: 0, errors: 0 }, passed: -1, failed: 1 },
      { runner: 'gates', a: { passed: 4, failed: 0, skipped: 0, errors: 0 }, b: null, passed: null, failed: null },
    ]);
    expect(suiteDeltas([], [])).toEqual([]);
  });

  it('keeps a long diverging line bounded, and a comparison parses', () => {
    expect(keptLine('x'.repeat(COMPARE_LINE_CHARS + 10))).toHaveLength(COMPARE_LINE_CHARS + 1);
    expect(keptLine(null)).toBeNull();
    const parsed = NightComparisonSchema.safeParse({
      loop: 'reliability',
      host: 'runner',
      a: { date: '2026-08-24', status: 'failed' },
      b: { date: '2026-08-23', status: 'ok' },
      picked: 'last-good',
      phases: [],
      findings: null,
      prs: { a: [], b: [] },
      fleet: { a: null, b: null },
      bounds: { maxLines: 1, maxBytes: 1 },
      notes: [],
    });
    expect(parsed.success).toBe(true);
  });
});
