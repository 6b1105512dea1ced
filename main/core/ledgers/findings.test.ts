import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BacklogItemSchema, FindingSchema } from '../../../shared/domain';
import type { Severity } from '../../../shared/domain';
import { deriveFindings, outcomeStatus, severityRank } from './findings';
import type { BacklogRow, FindingRow, FindingsInput, OutcomeRow } from './findings';

const SECTION = 'Delta audit 2026-08-23';

function finding(id: string, line: number, over: Partial<FindingRow> = {}): FindingRow {
  return { line, section: SECTION, id, severity: 'P1', category: 'durability', where: 'src/store.ts:42', text: `finding ${id}`, ...over };
}

function item(id: string, findings: string[], line: number, over: Partial<BacklogRow> = {}): BacklogRow {
  return { line, section: SECTION, id, findings, severity: 'P1', acceptance: 'kill -9 mid-write; reopen; no torn row', ...over };
}

function outcome(id: string, text: string, line: number, over: Partial<OutcomeRow> = {}): OutcomeRow {
  return { line, id, date: '2026-08-24', outcome: text, red: null, green: null, note: null, ...over };
}

function derive(over: Partial<FindingsInput>) {
  const out = deriveFindings({
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    findings: [],
    backlog: [],
    outcomes: [],
    firstSeen: (id) => `2026-08-23T05:00:00.000Z#${id}`,
    ...over,
  });
  return { findings: out.findings.map((f) => FindingSchema.parse(f)), backlog: out.backlog.map((b) => BacklogItemSchema.parse(b)) };
}

describe('outcomeStatus', () => {
  it.each([
    ['DONE', 'done'],
    ['done', 'done'],
    ['DONE (3 red -> 3 green)', 'done'],
    ['**DONE**', 'done'],
    ['BLOCKED: fsync on APFS lies', 'blocked'],
    ['Blocked', 'blocked'],
    ['operator-only', 'operator-only'],
    ['Operator only — needs a key rotation', 'operator-only'],
    ['OPERATOR_ONLY', 'operator-only'],
    ['in progress', 'open'],
    ['DONEISH', 'open'],
    ['', 'open'],
  ])('reads %j as %s', (text, status) => {
    expect(outcomeStatus(text)).toBe(status);
  });
});

describe('deriveFindings: backlog', () => {
  it('is open without outcomes', () => {
    const { backlog } = derive({ backlog: [item('REL-001', ['R-001'], 20)] });
    expect(backlog).toEqual([
      {
        id: 'REL-001',
        loop: 'reliability',
        section: SECTION,
        findings: ['R-001'],
        severity: 'P1',
        acceptance: 'kill -9 mid-write; reopen; no torn row',
        status: 'open',
        red: null,
        green: null,
        outcomes: [],
      },
    ]);
  });

  it('takes status and red/green from the latest outcome and keeps all in log order', () => {
    const { backlog } = derive({
      backlog: [item('REL-001', ['R-001'], 20)],
      outcomes: [
        outcome('REL-001', 'BLOCKED', 5, { red: 2, green: 0, note: 'flaky fsync' }),
        outcome('REL-002', 'DONE', 6),
        outcome('rel-001', 'DONE', 7, { date: '2026-08-25', red: 2, green: 2 }),
      ],
    });
    expect(backlog[0]).toMatchObject({ status: 'done', red: 2, green: 2 });
    expect(backlog[0]?.outcomes).toEqual([
      { date: '2026-08-24', outcome: 'BLOCKED', red: 2, green: 0, note: 'flaky fsync', line: 5 },
      { date: '2026-08-25', outcome: 'DONE', red: 2, green: 2, note: null, line: 7 },
    ]);
  });

  it('reopens an item whose latest outcome is not a known one', () => {
    const { backlog } = derive({ backlog: [item('REL-001', [], 20)], outcomes: [outcome('REL-001', 'DONE', 5), outcome('REL-001', 'reopened', 6)] });
    expect(backlog[0]?.status).toBe('open');
  });

  it('keeps the first of a repeated REL id', () => {
    const { backlog } = derive({ backlog: [item('REL-001', ['R-001'], 20), item('REL-001', ['R-009'], 90, { section: 'Delta audit 2026-08-23 (second pass)' })] });
    expect(backlog).toHaveLength(1);
    expect(backlog[0]).toMatchObject({ findings: ['R-001'], section: SECTION });
  });
});

describe('deriveFindings: findings', () => {
  it('follows its backlog item and carries the row', () => {
    const { findings } = derive({
      findings: [finding('R-001', 10)],
      backlog: [item('REL-001', ['R-001'], 20)],
      outcomes: [outcome('REL-001', 'operator-only', 3)],
    });
    expect(findings).toEqual([
      {
        id: 'R-001',
        loop: 'reliability',
        source: 'RELIABILITY_AUDIT.md',
        section: SECTION,
        severity: 'P1',
        category: 'durability',
        where: 'src/store.ts:42',
        text: 'finding R-001',
        status: 'operator-only',
        backlog: ['REL-001'],
        firstSeenAt: '2026-08-23T05:00:00.000Z#R-001',
        line: 10,
      },
    ]);
  });

  it('keeps a contested severity as written beside the one it sorts by', () => {
    const { findings } = derive({ findings: [finding('R-003', 12, { severityText: 'P1 (contested: P0)' }), finding('R-004', 13)] });
    expect(findings.map((f) => [f.severity, f.severityText])).toEqual([
      ['P1', 'P1 (contested: P0)'],
      ['P1', undefined],
    ]);
    expect('severityText' in (findings[1] ?? {})).toBe(false);
  });

  it('is open when no backlog item covers it', () => {
    expect(derive({ findings: [finding('R-002', 11)] }).findings[0]).toMatchObject({ status: 'open', backlog: [] });
  });

  it('combines several covering items: open > blocked > operator-only > done', () => {
    const backlog = [item('REL-001', ['R-001'], 20), item('REL-002', ['R-001', 'r-001'], 21), item('REL-003', ['R-001'], 22)];
    const run = (...texts: (string | null)[]) =>
      derive({
        findings: [finding('R-001', 10)],
        backlog,
        outcomes: texts.flatMap((t, i) => (t === null ? [] : [outcome(`REL-00${i + 1}`, t, i)])),
      }).findings[0];
    expect(run('DONE', null, 'BLOCKED')).toMatchObject({ status: 'open', backlog: ['REL-001', 'REL-002', 'REL-003'] });
    expect(run('DONE', 'operator-only', 'BLOCKED')?.status).toBe('blocked');
    expect(run('DONE', 'operator-only', 'DONE')?.status).toBe('operator-only');
    expect(run('DONE', 'DONE', 'DONE')?.status).toBe('done');
  });

  it('keeps the first of a repeated R id and reports nothing', () => {
    const second = 'Delta audit 2026-08-23 (second pass)';
    const { findings } = derive({ findings: [finding('R-001', 10), finding('R-002', 11), finding('R-001', 80, { section: second, text: 'again' })] });
    expect(findings.map((f) => [f.id, f.line])).toEqual([
      ['R-001', 10],
      ['R-002', 11],
    ]);
  });

  it('status is done exactly when every covering item is done (property)', () => {
    const statuses = ['DONE', 'BLOCKED', 'operator-only', 'wip', null] as const;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...statuses), { minLength: 1, maxLength: 6 }), (latest) => {
        const backlog = latest.map((_, i) => item(`REL-${i}`, ['R-001'], 20 + i));
        const outcomes = latest.flatMap((t, i) => (t === null ? [] : [outcome(`REL-${i}`, t, i)]));
        const f = derive({ findings: [finding('R-001', 10)], backlog, outcomes }).findings[0];
        expect(f?.status === 'done').toBe(latest.every((t) => t === 'DONE'));
        expect(f?.backlog).toHaveLength(latest.length);
      }),
    );
  });
});

describe('severityRank', () => {
  it('puts P0 first and no severity last', () => {
    const list: (Severity | null)[] = [null, 'P2', 'P0', 'P3', 'P1'];
    expect([...list].sort((a, b) => severityRank(a) - severityRank(b))).toEqual(['P0', 'P1', 'P2', 'P3', null]);
  });
});
