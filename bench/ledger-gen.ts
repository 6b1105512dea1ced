/**
 * A generated RELIABILITY_AUDIT.md like the ledger-properties test's: dated delta-audit sections
 * with findings tables (realistic row length, escaped pipes) and a backlog table each.
 */

const FILLER =
  'the writer stamps `scan_time` before the write lands, so a crash between the two leaves the route serving stale data as fresh '.repeat(4);

const CATEGORIES = ['state', 'money', 'connectivity', 'resources', 'error-handling', 'control-plane', 'auth'];

/** One findings row. */
export function findingRow(n: number): string {
  return `| R-${n} | P${n % 4} | ${CATEGORIES[n % CATEGORIES.length]} | web/lib/file-${n}.ts:${n % 500} | ${FILLER}\\| case ${n} |`;
}

/** A ledger with `findings` findings in sections of 1,000 (about 10 MB for 20,000). */
export function generateLedger(findings: number): string {
  const lines: string[] = ['# Reliability audit', '', '## Audit ledger', '', `Audited through: c529c92a on 2026-08-22 — ${findings} new findings`, ''];
  const sections = Math.ceil(findings / 1000);
  for (let s = 0; s < sections; s += 1) {
    lines.push(`## Delta audit 2026-08-${String((s % 28) + 1).padStart(2, '0')} #${s}`, '', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|');
    const first = s * 1000;
    const last = Math.min(findings, first + 1000);
    for (let n = first; n < last; n += 1) lines.push(findingRow(n));
    lines.push('', '| ID | Findings | Sev | Acceptance |', '|---|---|---|---|', `| REL-${s} | R-${first}, R-${last - 1} | P1 | inject a crash |`, '');
  }
  return `${lines.join('\n')}\n`;
}

/** One appended section: a dated heading and a findings table of `rows` rows starting at `first`. */
export function appendedSection(index: number, first: number, rows: number): string {
  const lines = [`## Delta audit 2026-09-${String((index % 28) + 1).padStart(2, '0')} append ${index}`, '', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|'];
  for (let n = first; n < first + rows; n += 1) lines.push(findingRow(n));
  lines.push('');
  return `${lines.join('\n')}\n`;
}
