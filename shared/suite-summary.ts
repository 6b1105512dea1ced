import * as z from 'zod';

// Test-suite summaries and gate lines in an agent's transcript (FORMATS.md §2.8), one line at a
// time, folded into a phase's results and totals, and failures beyond a host's learned baseline.
// Pure (main process and renderer). Conservative: prose merely mentioning passed tests is not one.

/** Lines longer than this (raw, before escapes are removed) are never summaries: `suiteLine` ignores them. */
export const MAX_SUITE_LINE = 4096;
/** `combineSuites` keeps at most this many results per phase (the last ones). */
export const MAX_SUITE_RESULTS = 50;
/** A result names at most this many failures, each at most MAX_FAILED_NAME characters. */
export const MAX_FAILED_NAMES = 20;
export const MAX_FAILED_NAME = 120;
/** Lines at most this far apart belong together: node counters of one run; a vitest/jest duration or errors line and its result. */
export const NEAR_LINES = 12;
/** The learned baseline is the lower median of at most this many green nights, and needs at least BASELINE_MIN_NIGHTS. */
export const BASELINE_NIGHTS = 7;
export const BASELINE_MIN_NIGHTS = 3;

/** The tool (or form) a summary comes from. */
export const SuiteRunnerSchema = z.enum(['pytest', 'vitest', 'jest', 'node', 'go', 'cargo', 'prose', 'gates']);
/** The tool (or form) a summary comes from. */
export type SuiteRunner = z.infer<typeof SuiteRunnerSchema>;

const count = z.number().int().nonnegative();
/**
 * One suite run (or a phase's gates) as read from its summary line(s). Counts are tests, except
 * go's (packages: ok passed, FAIL failed) and gates' (rc 0 passed, else failed); cargo's are over
 * the run's test binaries. xpassed counts as passed; ignored, xfailed and todo as skipped; errors
 * are pytest/prose errors, vitest's unhandled errors and node's cancelled tests.
 */
export const SuiteResultSchema = z
  .object({
    runner: SuiteRunnerSchema,
    passed: count, failed: count, skipped: count, errors: count,
    /** The run's duration as printed (cargo: its binaries' summed); null when not printed (go and gates: always). */
    durationMs: z.number().nonnegative().nullable(),
    /** 1-based transcript line of the summary's last line. */
    line: z.number().int().min(1),
    /** gates: the gates whose rc ≠ 0; go: the failing packages; else empty. */
    failedNames: z.array(z.string().max(MAX_FAILED_NAME)).max(MAX_FAILED_NAMES).readonly(),
  })
  .readonly();
/** One suite run (or a phase's gates). */
export type SuiteResult = z.infer<typeof SuiteResultSchema>;

/** A phase's test counts: the last run of each runner, summed (gates not counted). */
export const SuiteTotalsSchema = z.object({ passed: count, failed: count, skipped: count, errors: count }).readonly();
/** A phase's test counts. */
export type SuiteTotals = z.infer<typeof SuiteTotalsSchema>;

/** One of node's summary counters (`# pass 10`, `ℹ fail 0`). */
export type NodeCounter = 'tests' | 'suites' | 'pass' | 'fail' | 'cancelled' | 'skipped' | 'todo' | 'duration_ms';
/** One gate assignment: its name without `_RC`, lower-cased (as rc files name steps), and its rc. */
export type GateRc = { readonly name: string; readonly rc: number };

/**
 * What one line says, by `part`: `summary`, a run's counts (pytest, vitest `Tests`, jest `Tests:`,
 * one cargo test binary, prose); `duration`, vitest's `Duration` or jest's `Time:`; `errors`,
 * vitest's `Errors  N errors`; `counter`, one node counter; `package`, one go package; `marker`, a
 * boundary without counts: go's closing `FAIL` (`go-end`), `--- FAIL: TestX` (`go-test`, named,
 * counted nowhere), cargo's `Finished … target(s)` (`cargo-start`); `gates`, `NAME_RC=N` assignments.
 */
export type SuiteLine =
  | { readonly part: 'summary'; readonly runner: 'pytest' | 'vitest' | 'jest' | 'cargo' | 'prose'; readonly passed: number; readonly failed: number; readonly skipped: number; readonly errors: number; readonly durationMs: number | null }
  | { readonly part: 'duration'; readonly runner: 'vitest' | 'jest'; readonly durationMs: number }
  | { readonly part: 'errors'; readonly runner: 'vitest'; readonly errors: number }
  | { readonly part: 'counter'; readonly runner: 'node'; readonly key: NodeCounter; readonly value: number }
  | { readonly part: 'package'; readonly runner: 'go'; readonly ok: boolean; readonly name: string; readonly durationMs: number | null }
  | { readonly part: 'marker'; readonly runner: 'go' | 'cargo'; readonly marker: 'go-end' | 'go-test' | 'cargo-start'; readonly name?: string }
  | { readonly part: 'gates'; readonly runner: 'gates'; readonly gates: readonly GateRc[] };

type Summary = Extract<SuiteLine, { part: 'summary' }>;
type Counts = { passed: number; failed: number; skipped: number; errors: number };
const COUNT_KEYS = ['passed', 'failed', 'skipped', 'errors'] as const;
const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0, errors: 0 });

// eslint-disable-next-line no-control-regex -- removing escape sequences is the point (CSI, OSC, two-character)
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])?/g;
// eslint-disable-next-line no-control-regex -- as above: other controls (not tab) are dropped
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/** A raw line as a terminal shows it: escapes and controls removed, the last non-blank `\r` segment, trimmed. */
const cleanLine = (raw: string): string =>
  raw.split('\r').map((segment) => segment.replace(ESCAPES, '').replace(CONTROLS, '').trim()).filter((t) => t !== '').at(-1) ?? '';

const NUM = String.raw`(\d{1,3}(?:,\d{3})+|\d+)`;
/** A count as printed (`32,821`), or null when it is not a safe integer. */
function toCount(text: string): number | null {
  const n = Number(text.replace(/,/g, ''));
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, sec: 1000, secs: 1000, seconds: 1000, m: 60_000, min: 60_000, mins: 60_000, minutes: 60_000 };
/** A duration such as `858.12s`, `5.123 s`, `850ms`, `1m 2.5s`, `858 seconds` (the whole text), in ms; else null. */
function toMs(text: string): number | null {
  const m = /^(?:(\d{1,6})m ?)?(\d{1,9}(?:\.\d{1,9})?) ?(ms|s|sec|secs|seconds|m|min|mins|minutes)$/.exec(text.trim());
  const unit = m && (m[1] === undefined || m[3] === 's') ? UNIT_MS[m[3] ?? ''] : undefined;
  return m && unit !== undefined ? Math.round((Number(m[1] ?? 0) * 60_000 + Number(m[2]) * unit) * 1000) / 1000 : null;
}

const ITEM = new RegExp(`^${NUM} ([a-z][a-z ]*)$`);
/** Counts from `N word` items; `words` maps each allowed word to the count it adds to (null: ignored). Null on any other item. */
function itemCounts(items: readonly string[], words: Readonly<Record<string, keyof Counts | null>>): Counts | null {
  const out = zero();
  for (const text of items) {
    const m = ITEM.exec(text.trim());
    const n = m ? toCount(m[1] ?? '') : null;
    const key = m && Object.hasOwn(words, m[2] ?? '') ? words[m[2] ?? ''] : undefined;
    if (n === null || key === undefined) return null;
    if (key) out[key] += n;
  }
  return out;
}

const summary = (runner: Summary['runner'], c: Counts, durationMs: number | null): Summary => ({ part: 'summary', runner, ...c, durationMs });
const PYTEST_WORDS: Readonly<Record<string, keyof Counts | null>> = { passed: 'passed', xpassed: 'passed', failed: 'failed', skipped: 'skipped', xfailed: 'skipped', error: 'errors', errors: 'errors', deselected: null, warning: null, warnings: null, rerun: null };
const PYTEST_COUNTING = /\b(passed|failed|skipped|xfailed|xpassed|errors?)$/;
const PYTEST_BODY = /^(.+) in (\d{1,9}(?:\.\d{1,9})? ?(?:s|seconds))(?: \(\d+:\d\d:\d\d(?:\.\d+)?\))?$/;
/** pytest: `===== 8 failed, 32821 passed in 858.12s =====`, or the same without the bars (`-q`; then it must count tests). */
function pytest(s: string): Summary | null {
  let a = 0;
  let b = s.length;
  while (s.charCodeAt(a) === 0x3d) a++;
  while (b > a && s.charCodeAt(b - 1) === 0x3d) b--;
  const barred = a > 0 && b < s.length && s[a] === ' ' && s[b - 1] === ' ';
  if (!barred && (a > 0 || b < s.length)) return null;
  const m = PYTEST_BODY.exec(s.slice(a, b).trim());
  if (!m) return null;
  const durationMs = toMs(m[2] ?? '');
  if (barred && m[1] === 'no tests ran') return summary('pytest', zero(), durationMs);
  const items = (m[1] ?? '').split(', ');
  const c = barred || items.some((i) => PYTEST_COUNTING.test(i)) ? itemCounts(items, PYTEST_WORDS) : null;
  return c && summary('pytest', c, durationMs);
}

const VITEST_TESTS = /^Tests {1,20}(.+) \(\d[\d,]*\)$/;
const VITEST_DURATION = /^Duration {1,20}([\dms. ]+?)(?: \(.*\))?$/;
const VITEST_ERRORS = new RegExp(`^Errors {1,20}${NUM} errors?$`);
/** vitest: `Tests  3 failed | 1740 passed | 2 skipped (1745)`, `Duration  12.34s (transform …)`, `Errors  2 errors`. */
function vitest(s: string): SuiteLine | null {
  const tests = VITEST_TESTS.exec(s);
  if (tests) {
    const c = itemCounts((tests[1] ?? '').split(' | '), { passed: 'passed', failed: 'failed', skipped: 'skipped', todo: 'skipped' });
    return c && summary('vitest', c, null);
  }
  const duration = VITEST_DURATION.exec(s);
  const ms = duration ? toMs(duration[1] ?? '') : null;
  if (ms !== null) return { part: 'duration', runner: 'vitest', durationMs: ms };
  const errors = VITEST_ERRORS.exec(s);
  const n = errors ? toCount(errors[1] ?? '') : null;
  return n === null ? null : { part: 'errors', runner: 'vitest', errors: n };
}

/** jest: `Tests:       1 failed, 2 skipped, 40 passed, 43 total` and `Time:        5.123 s, estimated 6 s`. */
function jest(s: string): SuiteLine | null {
  const tests = /^Tests: +(.+), \d[\d,]* total$/.exec(s);
  if (tests) {
    const c = itemCounts((tests[1] ?? '').split(', '), { passed: 'passed', failed: 'failed', skipped: 'skipped', todo: 'skipped' });
    return c && summary('jest', c, null);
  }
  const time = /^Time: +([\dms. ]+?)(?:, estimated [\dms. ]+)?$/.exec(s);
  const ms = time ? toMs(time[1] ?? '') : null;
  return ms === null ? null : { part: 'duration', runner: 'jest', durationMs: ms };
}

/** node's test runner: `# pass 10` (TAP) or `ℹ pass 10` (spec), one counter a line. */
function node(s: string): SuiteLine | null {
  const m = /^(?:#|\u2139) (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d{1,15}(?:\.\d{1,9})?)$/.exec(s);
  const key = m?.[1] as NodeCounter | undefined;
  const value = Number(m?.[2]);
  return key && (key === 'duration_ms' || Number.isSafeInteger(value)) ? { part: 'counter', runner: 'node', key, value } : null;
}

const GO_PKG = String.raw`([\w.~/@+-]{1,480})`;
const GO_OK = new RegExp(String.raw`^ok\s+${GO_PKG}\s+(?:(\d{1,9}\.\d{3})s|\(cached\))(?:\s+(?:coverage: .*|\[no tests to run\]))?$`);
const GO_FAIL = new RegExp(String.raw`^FAIL\s+${GO_PKG}\s+(?:(\d{1,9}\.\d{3})s|\[(?:build|setup) failed\])$`);
/** go test: `ok  \tpkg\t0.123s` / `(cached)`, `FAIL\tpkg\t0.500s` / `[build failed]`, `FAIL` alone, `--- FAIL: TestX (0.00s)`. */
function go(s: string): SuiteLine | null {
  if (s === 'FAIL') return { part: 'marker', runner: 'go', marker: 'go-end' };
  const test = /^--- FAIL: (\S{1,512}) \(\d{1,9}\.\d\ds\)$/.exec(s);
  if (test) return { part: 'marker', runner: 'go', marker: 'go-test', name: test[1] ?? '' };
  const m = GO_OK.exec(s) ?? GO_FAIL.exec(s);
  return m && { part: 'package', runner: 'go', ok: s.startsWith('ok'), name: m[1] ?? '', durationMs: m[2] === undefined ? null : toMs(`${m[2]}s`) };
}

/** cargo test: `test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.05s`; `Finished … target(s) in`. */
function cargo(s: string): SuiteLine | null {
  if (/^Finished .{0,200}target\(s\) in /.test(s)) return { part: 'marker', runner: 'cargo', marker: 'cargo-start' };
  const m = /^test result: (?:ok|FAILED)\. (.+?)(?:; finished in ([\d.]+ ?s))?$/.exec(s);
  const c = m && itemCounts((m[1] ?? '').split('; '), { passed: 'passed', failed: 'failed', ignored: 'skipped', measured: null, 'filtered out': null });
  return c && summary('cargo', c, m?.[2] === undefined ? null : toMs(m[2]));
}

const PROSE = new RegExp(String.raw`(?<![\w,.])${NUM} passed / ${NUM} failed((?: / (?:\d{1,3}(?:,\d{3})+|\d+) (?:errors?|skipped))*)(?![\w/])`, 'g');
/** The duration among the comma-separated items that end a prose summary's sentence (`, 1616/1618 modules, 858s.`), or null. */
function proseDuration(rest: string): number | null {
  if (!rest.startsWith(',')) return null;
  for (const item of rest.slice(1).split(',', 8)) {
    const [head = '', ...more] = item.split(/[.;!?](?:\s|$)/, 2);
    const ms = toMs(head.replace(/^\s*in /, ''));
    if (ms !== null || more.length > 0) return ms;
  }
  return null;
}

/** The session log's prose: `32,821 passed / 8 failed / 0 errors / 0 skipped, 1616/1618 modules, 858s` anywhere in a line (the last one). */
function prose(s: string): Summary | null {
  let found: Summary | null = null;
  for (const m of s.matchAll(PROSE)) {
    const passed = toCount(m[1] ?? '');
    const failed = toCount(m[2] ?? '');
    const rest = itemCounts((m[3] ?? '').split(' / ').slice(1), { error: 'errors', errors: 'errors', skipped: 'skipped' });
    if (passed === null || failed === null || !rest) continue;
    found = summary('prose', { ...rest, passed, failed }, proseDuration(s.slice(m.index + m[0].length)));
  }
  return found;
}

const GATE = /^([A-Za-z][A-Za-z0-9_]*)_[Rr][Cc]=(-?\d{1,12})$/;
/** Gates: a line of only `NAME_RC=N` assignments (any case), separated by `, ` or spaces. */
function gates(s: string): SuiteLine | null {
  if (!/_rc=/i.test(s)) return null;
  const found = s.split(/,?\s+/).map((token) => GATE.exec(token));
  if (!found.every((m) => m !== null)) return null;
  return { part: 'gates', runner: 'gates', gates: found.map((m) => ({ name: (m?.[1] ?? '').toLowerCase(), rc: Number(m?.[2]) + 0 })) };
}

/**
 * What one transcript line (without its newline) says about a suite run, or null when it is not
 * one of the forms of FORMATS.md §2.8. Escape sequences, control characters and all but the last
 * non-blank `\r`-separated segment are dropped first; lines longer than MAX_SUITE_LINE are
 * ignored. Never throws; linear in the line's length.
 */
export function suiteLine(text: string): SuiteLine | null {
  if (typeof text !== 'string' || text.length > MAX_SUITE_LINE) return null;
  try {
    const s = cleanLine(text);
    return s.length < 4 ? null : (gates(s) ?? pytest(s) ?? vitest(s) ?? jest(s) ?? node(s) ?? go(s) ?? cargo(s) ?? prose(s));
  } catch {
    return null;
  }
}

/** A recognised line and its 1-based transcript line number. */
export type SuiteLineAt = { readonly line: number; readonly parsed: SuiteLine };

type Building = { -readonly [K in keyof SuiteResult]: SuiteResult[K] };
/** An open group (a node, go or cargo run being read), the node counters and failing go packages it has seen. */
type Open = { r: Building; keys: Set<NodeCounter>; names: string[] };
const NODE_FIELD: Readonly<Record<NodeCounter, keyof Counts | 'durationMs' | null>> = { pass: 'passed', fail: 'failed', skipped: 'skipped', todo: 'skipped', cancelled: 'errors', duration_ms: 'durationMs', tests: null, suites: null };
/** The first MAX_FAILED_NAMES distinct names, each clipped to MAX_FAILED_NAME characters. */
const clipNames = (names: readonly string[]): string[] => [...new Set(names)].slice(0, MAX_FAILED_NAMES).map((n) => n.slice(0, MAX_FAILED_NAME));

const result = (runner: SuiteRunner, c: Counts, durationMs: number | null, line: number, names: readonly string[] = []): Building =>
  ({ runner, passed: c.passed, failed: c.failed, skipped: c.skipped, errors: c.errors, durationMs, line, failedNames: clipNames(names) });

/** The group a line belongs to: node counters, go packages, cargo test results; else null. */
function groupOf(p: SuiteLine): 'node' | 'go' | 'cargo' | null {
  if (p.part === 'counter' || p.part === 'package') return p.runner;
  return p.part === 'summary' && p.runner === 'cargo' ? 'cargo' : null;
}

/** Whether a grouped line continues the open group (node: near enough, and a counter not seen yet). */
function continues(open: Open | null, group: SuiteRunner, at: SuiteLineAt): open is Open {
  if (open?.r.runner !== group) return false;
  return at.parsed.part !== 'counter' || (at.line - open.r.line <= NEAR_LINES && !open.keys.has(at.parsed.key));
}

/** Closes an open group into `out` (a node run only with a `pass` or `fail` counter); null, the group now open. */
function close(open: Open | null, out: Building[]): null {
  if (open && (open.r.runner !== 'node' || open.keys.has('pass') || open.keys.has('fail'))) out.push({ ...open.r, failedNames: clipNames(open.names) });
  return null;
}

/** Adds a grouped line to the open group. */
function add(open: Open, at: SuiteLineAt): void {
  const [r, p] = [open.r, at.parsed];
  r.line = at.line;
  if (p.part === 'counter') {
    open.keys.add(p.key);
    const field = NODE_FIELD[p.key];
    if (field === 'durationMs') r.durationMs = p.value;
    else if (field) r[field] += p.value;
  } else if (p.part === 'package') {
    r[p.ok ? 'passed' : 'failed']++;
    if (!p.ok) open.names.push(p.name);
  } else if (p.part === 'summary') {
    for (const k of COUNT_KEYS) r[k] += p[k];
    if (p.durationMs !== null) r.durationMs = (r.durationMs ?? 0) + p.durationMs;
  }
}

/** A vitest/jest duration or vitest errors line, onto the result just before it (same runner, at most NEAR_LINES before). */
function attach(out: Building[], at: SuiteLineAt): void {
  const p = at.parsed;
  const last = out.at(-1);
  if (!last || last.runner !== p.runner || at.line - last.line > NEAR_LINES) return;
  if (p.part === 'duration' && last.durationMs === null) last.durationMs = p.durationMs;
  else if (p.part === 'errors') last.errors += p.errors;
  else return;
  last.line = at.line;
}

/** All of a phase's gates as one result (the last assignment of a name wins); null without any. */
function gatesResult(rcs: ReadonlyMap<string, number>, line: number): Building | null {
  if (rcs.size === 0) return null;
  const failed = [...rcs].filter(([, rc]) => rc !== 0).map(([name]) => name);
  return result('gates', { passed: rcs.size - failed.length, failed: failed.length, skipped: 0, errors: 0 }, null, line, failed);
}

/**
 * A phase's recognised lines (transcript order, 1-based) as results in transcript order (by last
 * line), the last MAX_SUITE_RESULTS: node counters at most NEAR_LINES apart are one run (a counter
 * seen again starts another); consecutive go packages are one `go` result, consecutive cargo
 * `test result:` lines (one per test binary) one `cargo` result, until any other suite line, go's
 * closing `FAIL` or cargo's `Finished … target(s)`; a vitest/jest duration line attaches to the
 * result just before it; all gate lines are one `gates` result at the last one (ending no group).
 */
export function combineSuites(lines: readonly SuiteLineAt[]): SuiteResult[] {
  const out: Building[] = [];
  const rcs = new Map<string, number>();
  let gatesLine = 0;
  let open: Open | null = null;
  for (const at of lines) {
    const p = at.parsed;
    const group = groupOf(p);
    if (p.part === 'gates') {
      for (const g of p.gates) rcs.set(g.name, g.rc);
      gatesLine = at.line;
    } else if (p.part === 'marker') {
      const ends = p.marker === 'go-end' ? 'go' : p.marker === 'cargo-start' ? 'cargo' : null;
      if (open && open.r.runner === ends) open = close(open, out);
    } else if (group) {
      if (!continues(open, group, at)) {
        close(open, out);
        open = { r: result(group, zero(), null, at.line), keys: new Set(), names: [] };
      }
      add(open, at);
    } else {
      open = close(open, out);
      if (p.part === 'summary') out.push(result(p.runner, p, p.durationMs, at.line));
      else attach(out, at);
    }
  }
  close(open, out);
  const g = gatesResult(rcs, gatesLine);
  if (g) out.push(g);
  return out.sort((a, b) => a.line - b.line).slice(-MAX_SUITE_RESULTS);
}

/** The sums of the last result of each runner except `gates` (a phase that re-runs a suite reports its last run); null when none. */
export function phaseSuiteTotals(results: readonly SuiteResult[]): SuiteTotals | null {
  const last = new Map<SuiteRunner, SuiteResult>();
  for (const r of results) if (r.runner !== 'gates') last.set(r.runner, r);
  if (last.size === 0) return null;
  const t = zero();
  for (const r of last.values()) for (const k of COUNT_KEYS) t[k] += r[k];
  return t;
}

/**
 * A host's normal failure count from its green nights' failed counts (oldest first): the lower median
 * of the last BASELINE_NIGHTS, null with fewer than BASELINE_MIN_NIGHTS (negative or NaN left out, fractions floored).
 */
export function learnedBaseline(failedOfGreenNights: readonly number[]): number | null {
  const kept = failedOfGreenNights.filter((n) => Number.isFinite(n) && n >= 0).slice(-BASELINE_NIGHTS);
  if (kept.length < BASELINE_MIN_NIGHTS) return null;
  const sorted = kept.map((n) => Math.floor(n)).sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? null;
}

/** How many failures are beyond the baseline (never negative); null without a baseline. */
export function beyondBaseline(failed: number, baseline: number | null): { beyond: number; baseline: number } | null {
  return baseline === null ? null : { beyond: Math.max(0, failed - baseline), baseline };
}

/** A count with thousands separators (`32,821`); the same in the main process and the renderer (no Intl). */
export function formatCount(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  return /^\d+$/.test(digits) ? (n <= -1 ? '-' : '') + digits.replace(/\B(?=(\d{3})+$)/g, ',') : String(n);
}

/**
 * A phase's totals in a few words: `12 passed`, `32,821 passed, 8 failed`, and with a baseline
 * and failures `40 failed — 3 beyond the baseline of 37` (or `— within the baseline of 37`);
 * errors, when any, follow the failures (`, 2 errors`). Skipped tests are not mentioned.
 */
export function suiteSentence(totals: SuiteTotals, baseline: number | null): string {
  const errors = totals.errors > 0 ? `, ${formatCount(totals.errors)} ${totals.errors === 1 ? 'error' : 'errors'}` : '';
  const failed = `${formatCount(totals.failed)} failed`;
  const over = beyondBaseline(totals.failed, baseline);
  if (over && totals.failed > 0) {
    const of = `the baseline of ${formatCount(over.baseline)}`;
    return `${failed}${errors} — ${over.beyond > 0 ? `${formatCount(over.beyond)} beyond ${of}` : `within ${of}`}`;
  }
  const passed = `${formatCount(totals.passed)} passed`;
  return totals.failed > 0 ? `${passed}, ${failed}${errors}` : `${passed}${errors}`;
}
