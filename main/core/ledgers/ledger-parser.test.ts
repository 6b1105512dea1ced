import { describe, expect, it } from 'vitest';
import { IMPLEMENTER_LOG_EXCERPT, LESSONS_EXCERPT } from '../../../testing/ledger-fixtures';
import { flushLedger, ledgerParser, parseLedger, parseLedgerDocument } from './ledger-parser';
import type { LedgerRecord } from './ledger-records';

const AUDIT = 'RELIABILITY_AUDIT.md';
const doc = (...lines: string[]) => `${lines.join('\n')}\n`;
const ofKind = <K extends LedgerRecord['kind']>(records: readonly LedgerRecord[], kind: K) =>
  records.filter((r): r is Extract<LedgerRecord, { kind: K }> => r.kind === kind);

// Shaped exactly as the loop's manual describes RELIABILITY_AUDIT.md (FORMATS.md §3); the cells
// are taken from the reference's lessons (R-125/REL-053, `placeOrder|place_order`, `502|503`).
const AUDIT_DOC = doc(
  '# Reliability audit',
  '',
  '## Audit ledger',
  '',
  'Audited through: c529c92a on 2026-08-16 — 83 new findings',
  'Audited through: `4f9c2e1ab7` on 2026-08-22 - 56 new findings',
  '- Audited through: 19135691 on 2026-08-23 – no new findings (empty range)',
  '',
  '## Delta audit 2026-08-22',
  '',
  '| ID | Sev | Category | Where | Finding |',
  '|---|:--:|---|---|---|',
  '| R-125 | P1 | state | web/api/scan.ts:88 | route serves `fresh` without checking `scan_time` |',
  '| R-126 | P0 | safety | scripts/ib_execute.py:41 | new `placeOrder\\|place_order` call site bypasses `check_order_limits` |',
  '| R-127 | P2 | observability | cloud/services/perf-twr.timer:1 | gateway answers 502|503 with no `service_health` row |',
  '',
  '| ID | Findings | Sev | Acceptance |',
  '|---|---|---|---|',
  '| REL-052 | R-125 | P1 | kill the scanner mid-write; the route must answer 503, not stale data |',
  '| REL-053 | R-126, R-127 | P0 | fake order client: an order above the limit raises before `placeOrder` is called |',
  '',
  '## Delta audit 2026-08-22 (second pass)',
  '',
  'Contested: R-125 rated P0 by this pass (the first round said P1); backlog points at the original.',
  '',
  '| ID | Severity | Category | Where (file:line) | Finding |',
  '| --- | --- | --- | --- | --- |',
  '| R-140 | P1 (contested: P0) | state | scripts/scan_writer.py:17 | writer stamps `scan_time` before the write lands |',
  '| R-141 | p2 | error handling | web/lib/fetch.ts:9 | fallback `(totalQty \\|\\| 1)` hides a zero quantity |',
  '| R-142 | High | resources |',
  '',
  '| ID | Covers | Severity | Fault-injection acceptance criteria |',
  '|---|---|---|---|',
  '| REL-054 | R-140 (writer half of R-125) | P1 | crash the writer between stamp and write; `scan_time` must not advance |',
);

describe('ledgerParser: RELIABILITY_AUDIT.md', () => {
  const { records, problems } = parseLedgerDocument(AUDIT_DOC, AUDIT);

  it('reads audit-ledger lines with an em dash, a plain -, an en dash and "no new findings"', () => {
    expect(ofKind(records, 'audit-mark')).toEqual([
      { kind: 'audit-mark', line: 5, sha: 'c529c92a', date: '2026-08-16', newFindings: 83 },
      { kind: 'audit-mark', line: 6, sha: '4f9c2e1ab7', date: '2026-08-22', newFindings: 56 },
      { kind: 'audit-mark', line: 7, sha: '19135691', date: '2026-08-23', newFindings: 0 },
    ]);
  });

  it('reads findings with their section, severity normalised, and `\\|` as a literal pipe', () => {
    const findings = ofKind(records, 'finding');
    expect(findings.map((f) => [f.id, f.section, f.severity, f.line])).toEqual([
      ['R-125', 'Delta audit 2026-08-22', 'P1', 13],
      ['R-126', 'Delta audit 2026-08-22', 'P0', 14],
      ['R-140', 'Delta audit 2026-08-22 (second pass)', 'P1', 28],
      ['R-141', 'Delta audit 2026-08-22 (second pass)', 'P2', 29],
      ['R-142', 'Delta audit 2026-08-22 (second pass)', null, 30],
    ]);
    // A contested severity is kept as written beside the one it sorts and filters by.
    expect(findings.map((f) => f.severityText ?? null)).toEqual([null, null, 'P1 (contested: P0)', null, 'High']);
    expect(findings[1]).toEqual({
      kind: 'finding',
      line: 14,
      section: 'Delta audit 2026-08-22',
      id: 'R-126',
      severity: 'P0',
      category: 'safety',
      where: 'scripts/ib_execute.py:41',
      text: 'new `placeOrder|place_order` call site bypasses `check_order_limits`',
    });
    expect(findings[3]?.text).toBe('fallback `(totalQty || 1)` hides a zero quantity');
    expect(findings[4]).toMatchObject({ category: 'resources', where: null, text: '' }); // short row, id present: nulls
  });

  it('skips a frozen row with an unescaped pipe, with a problem naming the cell counts', () => {
    expect(problems).toEqual([
      {
        source: AUDIT,
        line: 15,
        message: expect.stringContaining('row has 6 cells where the header has 5 (probably an unescaped |)'),
      },
    ]);
    expect(ofKind(records, 'finding').some((f) => f.id === 'R-127')).toBe(false);
  });

  it('reads backlog rows with the R-ids they cover and their acceptance criteria', () => {
    expect(ofKind(records, 'backlog')).toEqual([
      {
        kind: 'backlog',
        line: 19,
        section: 'Delta audit 2026-08-22',
        id: 'REL-052',
        findings: ['R-125'],
        severity: 'P1',
        acceptance: 'kill the scanner mid-write; the route must answer 503, not stale data',
      },
      expect.objectContaining({ id: 'REL-053', findings: ['R-126', 'R-127'], severity: 'P0' }),
      expect.objectContaining({
        id: 'REL-054',
        section: 'Delta audit 2026-08-22 (second pass)',
        findings: ['R-140', 'R-125'],
        acceptance: 'crash the writer between stamp and write; `scan_time` must not advance',
      }),
    ]);
  });

  it('a short row without its id is a problem, not a record', () => {
    const out = parseLedger(doc('| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|', '| | P1 |', '| R-9 | P1 | x | y | z |'), AUDIT);
    expect(out.records.map((r) => r.line)).toEqual([4]);
    expect(out.problems).toEqual([{ source: AUDIT, line: 3, message: expect.stringContaining('row has 2 cells where the header has 5, and no id') }]);
  });

  it('files findings under the dated `##` heading when a `###` heading only labels the table', () => {
    const text = doc('## Delta audit 2026-08-27', '### Findings', '| ID | Sev | Where | Finding |', '|-|-|-|-|', '| R-274 | P0 | a.py:1 | x |', '### Backlog', '| ID | R-ids | Acceptance |', '|-|-|-|', '| REL-090 | R-274 | y |');
    expect(parseLedger(text, AUDIT).records.map((r) => ('section' in r ? r.section : null))).toEqual(['Delta audit 2026-08-27', 'Delta audit 2026-08-27']);
  });

  it('ignores a malformed audit-ledger line with a problem, and the manual’s mid-line template', () => {
    const out = parseLedger(doc('Audited through: <HEAD sha> on <date> — <n> new findings', 'Update the §Audit ledger line: `Audited through: abc1234 on 2026-08-22 — 3 new findings`.', 'Audited through: abc1234 yesterday'), AUDIT);
    expect(out.records).toEqual([]);
    expect(out.problems).toEqual([
      { source: AUDIT, line: 1, message: expect.stringContaining('audit-ledger line has "<HEAD" where a commit SHA belongs') },
      { source: AUDIT, line: 3, message: expect.stringContaining('audit-ledger line has no "on <YYYY-MM-DD>" after the SHA') },
    ]);
  });
});

describe('ledgerParser: RELIABILITY_LOG.md', () => {
  it.each([
    ['| ID | Date | Outcome | Red/Green | Gates | Notes |', '| REL-052 | 2026-08-23 | DONE | 1/1 | 3× green | fixed the writer |', { outcome: 'DONE', red: 1, green: 1, note: 'fixed the writer' }],
    ['| ID | Date | Outcome | Red/green counts | Notes |', '| REL-053 | 2026-08-23 | BLOCKED | red 3 green 0 | hypothesis: the fake clock never advances |', { outcome: 'BLOCKED', red: 3, green: 0 }],
    ['| REL | Date | Status | Red | Green | Root cause |', '| REL-054 | 2026-08-24 | operator-only | — | — | rotate the API key on the host |', { outcome: 'operator-only', red: null, green: null, note: 'rotate the API key on the host' }],
    ['| ID | Date | Result | Tests |', '| REL-021b | 2026-08-24 | DONE (red 2, green 2) | |', { id: 'REL-021b', outcome: 'DONE (red 2, green 2)', red: null, green: null, note: null }],
    ['| ID | Date | Status | Red/Green |', '| REL-055 | 2026-08-24 | DONE | 4 red, 4 green |', { red: 4, green: 4 }],
  ])('reads %s', (header, row, expected) => {
    const out = parseLedger(doc('## Log', header, header.replace(/[^|]+/g, '---'), row), 'RELIABILITY_LOG.md');
    expect(out.problems).toEqual([]);
    expect(out.records).toEqual([expect.objectContaining({ kind: 'outcome', line: 4, ...expected })]);
  });
});

describe('ledgerParser: implementer log (reference excerpt)', () => {
  const { records, problems } = parseLedgerDocument(`${IMPLEMENTER_LOG_EXCERPT.join('\n')}\n`, 'docs/implementer-log.md');

  it('reads the task table', () => {
    expect(problems).toEqual([]);
    const tasks = ofKind(records, 'task');
    expect(tasks.map((t) => [t.line, t.task, t.status, t.gateRuns, t.firstGate])).toEqual([
      [8, 'v2/01-props', 'done', '1', 'pass'],
      [9, 'v2/01-props', 'stopped', '1', 'fail'],
      [10, 'v1.1/01-review-fixes', 'done', '1', 'pass'],
      [11, 'v1/01-store', 'done', '1', 'pass'],
      [12, 'v1/01-store', 'stopped', '2', 'fail'],
      [13, 'v0/01-module-gate-config', 'done', '1', 'pass'],
    ]);
    expect(tasks[5]).toEqual({
      kind: 'task',
      line: 13,
      task: 'v0/01-module-gate-config',
      date: '2026-09-25',
      status: 'done',
      gateRuns: '1',
      firstGate: 'pass',
      deviations: 'none',
      notes: '`go mod download` fetched the module (network available); gate passed on the first run.',
      model: 'llama.cpp/ornith-1.5-35b-a3b',
    });
  });

  it('reads each review’s finding table under the review’s heading', () => {
    const found = ofKind(records, 'review-finding');
    expect(found).toHaveLength(11);
    expect(found.map((f) => `${f.section.slice(0, 2)}#${f.number} ${f.severity} / ${f.fault}`)).toEqual([
      'v0#1 low / model + task',
      'v0#2 low / task',
      'v0#3 process / model',
      'v0#4 — / task',
      'v0#5 — / task',
      'v0#6 test / test',
      'v1#1 medium / task (ambiguous) + model (rule not applied everywhere)',
      'v1#2 low / model',
      'v1#3 process / model + task',
      'v1#4 process / model',
      'v1#5 — / task/test',
    ]);
    expect(found[7]).toEqual({
      kind: 'review-finding',
      line: 65,
      section: 'v1 review — 2026-09-25 (reviewer: claude, as owner for the night)',
      number: '2',
      text: '`GET /_crossbar/usage` with no rows answers `null`, not `[]` (spec: a JSON array).',
      severity: 'low',
      fault: 'model',
    });
  });
});

describe('ledgerParser: lessons (reference excerpt)', () => {
  const text = `${LESSONS_EXCERPT.join('\n')}\n`;
  const lessons = ofKind(parseLedgerDocument(text, 'SKILL.md').records, 'lesson');

  it('reads every dated bullet with its tag', () => {
    expect(lessons.map((l) => `${l.line} ${l.date} (${l.tag})`)).toEqual([
      '3 2026-08-09 (bootstrap)',
      '7 2026-08-16 (audit)',
      '15 2026-08-16 (audit)',
      '22 2026-08-16 (audit)',
      '28 2026-08-22 (audit)',
      '34 2026-08-23 (remediate, continuation)',
      '41 2026-08-23 (remediate)',
      '46 2026-08-23 (remediate)',
      '50 2026-08-24 (runner)',
      '58 2026-08-26 (audit)',
      '66 2026-08-26 (remediate)',
      '74 2026-08-26 (remediate)',
      '78 2026-08-27 (audit)',
      '86 2026-08-27 (audit)',
    ]);
  });

  it('joins continuation lines with spaces', () => {
    expect(lessons[0]?.text).toBe(
      'control-plane unit edits (`cloud/services/*` in the readiness manifest) abort the deploy preflight by design — the PR body must tell the operator to run the root `bootstrap-control-plane.sh` install-copy before merging.',
    );
    expect(lessons[9]?.text.endsWith('which is real regardless of how the upstream actually behaves.')).toBe(true); // a blank line ends it
  });

  it('splits a bullet that runs into the previous one on the same physical line', () => {
    expect(lessons[11]?.text.endsWith('run the cheap targeted suite first — it catches most regressions in seconds.')).toBe(true);
    expect(lessons[12]?.text.startsWith("**review the previous weekend's own remediation as a walk, not just via the sweeps.**")).toBe(true);
  });

  it('keeps a lesson at the end pending until the next line says it is complete', () => {
    const head = doc('## Lessons', '- 2026-08-24 (runner): the 00:00 cycle', ' silently did not fire.');
    const first = parseLedger(head, 'SKILL.md');
    expect(first.records).toEqual([]);
    const state = JSON.parse(JSON.stringify(first.state)) as typeof first.state;
    expect(flushLedger(state)).toEqual({ kind: 'lesson', line: 2, date: '2026-08-24', tag: 'runner', text: 'the 00:00 cycle silently did not fire.' });
    const more = parseLedger(doc(' Confirm with launchctl.', ''), 'SKILL.md', { state, firstLine: 4 });
    expect(more.records).toEqual([{ kind: 'lesson', line: 2, date: '2026-08-24', tag: 'runner', text: 'the 00:00 cycle silently did not fire. Confirm with launchctl.' }]);
    expect(flushLedger(more.state)).toBeNull();
  });

  it('reads bullets as lessons only under a Lessons heading; a heading ends the last one', () => {
    const text = doc('## Notes', '- 2026-08-22 (audit): not a lesson', '## Lessons', '- undated: still a lesson', '## Next', '- 2026-08-23 (audit): not one either');
    expect(parseLedger(text, 'SKILL.md').records).toEqual([{ kind: 'lesson', line: 4, date: null, tag: null, text: 'undated: still a lesson' }]);
  });
});

describe('ledgerParser: line handling', () => {
  const TABLE = doc('## Delta audit 2026-08-23', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|', '| R-183 | P1 | runner | scripts/r.sh:12 | `sync_scheduled_units \\|\\| return 1` |', '| R-185 | P2 | runner | scripts/t.sh:3 | trap bug |');

  it('CRLF line ends and a UTF-8 BOM give the same records', () => {
    const plain = parseLedger(TABLE, AUDIT);
    expect(plain.records).toHaveLength(2);
    expect(parseLedger(`\uFEFF${TABLE.replace(/\n/g, '\r\n')}`, AUDIT).records).toEqual(plain.records);
    expect(plain.records[0]).toMatchObject({ id: 'R-183', text: '`sync_scheduled_units || return 1`' });
  });

  it('a torn last row is not parsed: the records equal those of the complete prefix', () => {
    const torn = `${TABLE}| R-186 | P0 | money | web/x.ts:1 | half a ro`;
    const out = parseLedger(torn, AUDIT);
    expect(out.records).toEqual(parseLedger(TABLE, AUDIT).records);
    expect(out.consumedBytes).toBe(Buffer.byteLength(TABLE));
    expect(out.lines).toBe(5);
  });

  it('a table inside a code fence is not a table; after the fence it is', () => {
    const fenced = doc('## Delta audit 2026-08-23', '```markdown', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|', '| R-001 | P0 | x | y | z |', 'Audited through: abc1234 on 2026-08-22 — 1 new findings', '```', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|', '| R-002 | P0 | x | y | z |');
    expect(parseLedger(fenced, AUDIT).records.map((r) => ('id' in r ? r.id : r.kind))).toEqual(['R-002']);
  });

  it('a table ends at a non-table line; a header needs its delimiter row right below', () => {
    const text = doc('| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|', '| R-1 | P0 | a | b | c |', 'prose', '| R-2 | P0 | a | b | c |', '| ID | Sev | Category | Where | Finding |', '', '|---|---|---|---|---|', '| R-3 | P0 | a | b | c |');
    const out = parseLedger(text, AUDIT);
    expect(out.records.map((r) => r.line)).toEqual([3]);
    expect(out.problems).toEqual([]);
  });

  it('rows of tables of no known kind are skipped quietly', () => {
    expect(parseLedger(doc('| Host | Slots |', '|---|---|', '| gpu-1 | 4 |', '| a | b | c |'), AUDIT)).toMatchObject({ records: [], problems: [] });
  });

  it('state is plain JSON and the line method is pure', () => {
    const s0 = ledgerParser.initial();
    const a = ledgerParser.line(s0, '## Lessons', 1, AUDIT);
    const b = ledgerParser.line(s0, '## Lessons', 1, AUDIT);
    expect(a).toEqual(b);
    expect(JSON.parse(JSON.stringify(a.state))).toEqual(a.state);
    expect(s0).toEqual(ledgerParser.initial());
  });
});
