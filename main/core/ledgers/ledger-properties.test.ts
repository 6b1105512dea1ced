import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LESSONS_EXCERPT } from '../../../testing/ledger-fixtures';
import { flushLedger, ledgerParser, parseLedger } from './ledger-parser';
import { chunkedParse } from '../../../testing/chunked-parse';

const SRC = 'RELIABILITY_AUDIT.md';

const parseChunked = (text: string, cuts: number[]) => chunkedParse(ledgerParser, text, cuts, SRC);

const PIECES = [
  '## Delta audit 2026-08-22',
  '## Delta audit 2026-08-22 (second pass)',
  '### Findings',
  '### v0 review — 2026-09-25',
  '## Lessons',
  '## Audit ledger',
  '# Title',
  '| ID | Sev | Category | Where | Finding |',
  '| ID | Findings | Sev | Acceptance |',
  '| ID | Date | Outcome | Red/Green | Notes |',
  '| Task | Date | Status | Gate runs | First gate | Deviations | Notes | Model |',
  '| # | Finding | Severity | Fault |',
  '|---|:--:|---|---|---|',
  '|---|---|---|---|',
  '| R-125 | P1 | state | a.ts:1 | `x \\| y` |',
  '| R-126 | P0 | safety | b.py:2 | placeOrder|place_order |',
  '| REL-053 | R-125, R-126 | P1 | kill it |',
  '| REL-053 | 2026-08-23 | DONE | 1/1 | ok |',
  '| v0/02-health | 2026-09-25 | done | 1 | pass | none | ok | m |',
  '| 1 | finding | low | model |',
  '| | P2 |',
  'Audited through: c529c92a on 2026-08-22 — 3 new findings',
  'Audited through: nope',
  '- 2026-08-22 (audit): a lesson',
  ' continued here',
  'regressions in seconds.- 2026-08-27 (audit): run in',
  '```',
  '  ```',
  '~~~',
  '',
  '   ',
  'prose',
  '| ID | Sev | Category | Where | Finding |\r',
  '\uFEFF## Lessons',
];

/** Texts made of known lines and arbitrary strings, joined by newlines, maybe with a torn tail. */
const ledgerArb = fc
  .tuple(fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string() }), { maxLength: 40 }), fc.string({ maxLength: 10 }))
  .map(([lines, tail]) => lines.map((l) => `${l}\n`).join('') + tail);

describe('ledgerParser properties', () => {
  it('any chunking gives the same records, problems and state as parsing whole', () => {
    fc.assert(
      fc.property(ledgerArb, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const whole = parseLedger(text, SRC);
        const chunked = parseChunked(text, cuts);
        expect(chunked).toEqual({ records: whole.records, problems: whole.problems, state: whole.state, consumedBytes: whole.consumedBytes });
      }),
      { numRuns: 300 },
    );
  });

  it('the reference lessons give the same lessons in any chunking', () => {
    const text = `${LESSONS_EXCERPT.join('\n')}\n`;
    const whole = parseLedger(text, 'SKILL.md');
    expect(whole.records).toHaveLength(13); // the 14th is pending: no line after it says it is complete
    expect(flushLedger(whole.state)?.line).toBe(86);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const chunked = parseChunked(text, cuts);
        expect(chunked.records).toEqual(whole.records);
        expect(flushLedger(chunked.state)).toEqual(flushLedger(whole.state));
      }),
      { numRuns: 100 },
    );
  });

  it('arbitrary strings never throw, from any state', () => {
    const states = [ledgerParser.initial(), ...PIECES.map((p) => parseLedger(`## Lessons\n- 2026-08-22 (audit): x\n| ID | Sev | Where | Finding |\n|-|-|-|-|\n${p}\n`, SRC).state)];
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 3 }), fc.constantFrom(...states), (s, lineNo, state) => {
        ledgerParser.line(state, s, lineNo, SRC);
        parseLedger(s, SRC, { state });
        flushLedger(state);
      }),
      { numRuns: 500 },
    );
  });
});

describe('ledgerParser at scale', () => {
  it('parses a generated 20,000-finding ledger (about 10 MB) and resumes on an appended section', () => {
    const filler = 'the writer stamps `scan_time` before the write lands, so a crash between the two leaves the route serving stale data as fresh '.repeat(4);
    const sections: string[] = ['# Reliability audit', '', '## Audit ledger', '', 'Audited through: c529c92a on 2026-08-22 — 20000 new findings', ''];
    for (let s = 0; s < 20; s += 1) {
      sections.push(`## Delta audit 2026-08-${String(s + 1).padStart(2, '0')}`, '', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|');
      for (let i = 0; i < 1000; i += 1) {
        const n = s * 1000 + i;
        sections.push(`| R-${n} | P${n % 4} | state | web/lib/file-${n}.ts:${n % 500} | ${filler}\\| case ${n} |`);
      }
      sections.push('', '| ID | Findings | Sev | Acceptance |', '|---|---|---|---|', `| REL-${s} | R-${s * 1000}, R-${s * 1000 + 999} | P1 | inject a crash |`, '');
    }
    const text = `${sections.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(10_000_000);
    const out = parseLedger(text, SRC);
    expect(out.problems).toEqual([]);
    const findings = out.records.filter((r) => r.kind === 'finding');
    expect(findings).toHaveLength(20_000);
    expect(findings[19_999]).toMatchObject({ id: 'R-19999', severity: 'P3', section: 'Delta audit 2026-08-20', where: 'web/lib/file-19999.ts:499' });
    expect(out.records.filter((r) => r.kind === 'backlog')).toHaveLength(20);

    const appended = ['## Delta audit 2026-08-21', '| ID | Sev | Category | Where | Finding |', '|-|-|-|-|-|', '| R-20000 | P0 | money | a.ts:1 | new |', ''].join('\n') + '\n';
    const more = parseLedger(appended, SRC, { state: out.state, firstLine: out.lines + 1 });
    expect(more.records).toEqual([expect.objectContaining({ id: 'R-20000', line: out.lines + 4, section: 'Delta audit 2026-08-21' })]);
    expect(more.lines).toBe(5);
  });
});
