import { posix } from 'node:path';
import type { ContractBreach } from '../../../shared/contract-breach';
import type { AuditMarkRecord, BacklogRecord, FindingRecord, LedgerRecord } from './ledger-records';
import type { FirstChange, LedgerRule } from './ledger-trail';

// The rules of the loop's manual its ledgers show broken (FORMATS.md §3): an id on two rows, ids
// out of order in a section, an anchor line whose count is not its section's, a ledger rewritten.
// Pure over the records read; `since` is the date the evidence carries (a rewrite's is when it was
// noticed).

/** One ledger file as read: its path, its role in the loop's config, its records in line order. */
export interface LedgerRead {
  readonly path: string;
  readonly role: 'audit' | 'log' | 'implementer';
  readonly records: readonly LedgerRecord[];
}

const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;

/** The date a section's heading carries (`Delta audit 2026-08-22 (second pass)`), or null. */
export function sectionDate(section: string | null): string | null {
  return (section === null ? null : DATE.exec(section)?.[1]) ?? null;
}

/** `R-021b` as [21, 'b'] for ordering; null for a cell that is not an id of that prefix. */
function idOrder(id: string, prefix: 'R' | 'REL'): readonly [number, string] | null {
  const m = new RegExp(`^${prefix}-(\\d+)([a-z]?)$`, 'i').exec(id.trim());
  return m ? [Number(m[1]), (m[2] ?? '').toLowerCase()] : null;
}

const before = (a: readonly [number, string], b: readonly [number, string]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

type IdRow = FindingRecord | BacklogRecord;

const where = (path: string, line: number): string => `line ${line} of ${posix.basename(path)}`;

/**
 * `duplicate-id`: an R-### finding or REL-### backlog id on a second row of the loop's ledgers (the
 * first is the one shown; the repeat was dropped silently). One breach an id, at its second row.
 */
export function duplicateIds(loop: string, reads: readonly LedgerRead[]): ContractBreach[] {
  const rows = new Map<string, { path: string; row: IdRow }[]>();
  for (const { path, records } of reads) {
    for (const row of records) {
      if (row.kind !== 'finding' && row.kind !== 'backlog') continue;
      if (idOrder(row.id, row.kind === 'finding' ? 'R' : 'REL') === null) continue;
      const key = `${row.kind}:${row.id.trim().toUpperCase()}`;
      const list = rows.get(key);
      if (list) list.push({ path, row });
      else rows.set(key, [{ path, row }]);
    }
  }
  const out: ContractBreach[] = [];
  for (const [first, second, ...more] of rows.values()) {
    if (!first || !second) continue;
    const { path, row } = second;
    const date = sectionDate(row.section);
    const others = more.length > 0 ? ` (${more.length + 2} rows in all)` : '';
    out.push({
      kind: 'duplicate-id',
      loop,
      date,
      phase: null,
      id: row.id,
      detail: `${row.id} is on ${where(first.path, first.row.line)} and again on ${where(path, row.line)}${others}; only the first is read`,
      since: date,
      evidence: { file: path, line: row.line, url: null },
    });
  }
  return out;
}

/**
 * `id-order`: a finding or backlog table whose ids do not ascend: the first row whose id is lower
 * than one above it in the same section. (The same id twice is a `duplicate-id`, not this.)
 */
export function idsOutOfOrder(loop: string, reads: readonly LedgerRead[]): ContractBreach[] {
  const out: ContractBreach[] = [];
  for (const { path, records } of reads) {
    const highest = new Map<string, { id: string; order: readonly [number, string] } | null>();
    for (const row of records) {
      if (row.kind !== 'finding' && row.kind !== 'backlog') continue;
      const order = idOrder(row.id, row.kind === 'finding' ? 'R' : 'REL');
      if (order === null) continue;
      const key = `${row.kind}\u0000${row.section}`;
      const top = highest.get(key);
      if (top === null) continue; // this section's table already broke the order once
      if (top === undefined || !before(order, top.order)) {
        highest.set(key, { id: row.id, order });
        continue;
      }
      highest.set(key, null);
      const date = sectionDate(row.section);
      const table = row.kind === 'finding' ? 'findings' : 'backlog';
      out.push({
        kind: 'id-order',
        loop,
        date,
        phase: null,
        id: row.id,
        detail: `In the ${table} of "${row.section}", ${row.id} (${where(path, row.line)}) comes after ${top.id}: ids do not ascend`,
        since: date,
        evidence: { file: path, line: row.line, url: null },
      });
    }
  }
  return out;
}

/**
 * `anchor` (the count half): the latest `Audited through: <sha> on <date> — <n> new findings`
 * names an `n` other than the finding rows of that date's section. A second pass on the same date
 * is its own section: `n` may count the last of them or all of them. A line without `n` says nothing.
 */
export function anchorCount(loop: string, reads: readonly LedgerRead[]): ContractBreach[] {
  let latest: { path: string; mark: AuditMarkRecord } | null = null;
  for (const { path, records } of reads) {
    for (const r of records) if (r.kind === 'audit-mark' && (latest === null || r.date >= latest.mark.date)) latest = { path, mark: r };
  }
  if (latest === null || latest.mark.newFindings === null) return [];
  const { path, mark } = latest;
  const n = mark.newFindings;
  const bySection = new Map<string, number>();
  for (const { records } of reads) {
    for (const r of records) if (r.kind === 'finding' && sectionDate(r.section) === mark.date) bySection.set(r.section, (bySection.get(r.section) ?? 0) + 1);
  }
  const counts = [...bySection.values()];
  const last = counts.at(-1) ?? 0;
  const all = counts.reduce((a, b) => a + b, 0);
  if (n === last || n === all) return [];
  const sections = [...bySection.keys()];
  const rows = sections.length === 0 ? `no section dated ${mark.date} has finding rows` : `"${sections.at(-1)}" has ${last} finding row${last === 1 ? '' : 's'}${sections.length > 1 ? ` (${all} over the ${sections.length} sections of that date)` : ''}`;
  return [
    {
      kind: 'anchor',
      loop,
      date: mark.date,
      phase: null,
      id: `${mark.sha} (count)`,
      detail: `The anchor "Audited through: ${mark.sha} on ${mark.date}" says ${n} new finding${n === 1 ? '' : 's'}, but ${rows}`,
      since: mark.date,
      evidence: { file: path, line: mark.line, url: null },
    },
  ];
}

/** `ledger-rewritten`: a ledger read again after bytes read before changed, at its first changed line. */
export function rewriteBreach(loop: string, path: string, rule: LedgerRule, change: FirstChange, at: Date): ContractBreach {
  const file = posix.basename(path);
  const under = change.section ? ` (under "${change.section}")` : '';
  const what =
    change.how === 'changed'
      ? `line ${change.line}${under} differs from what was read before`
      : change.how === 'removed'
        ? `the line read before as line ${change.line}${under} is gone`
        : `line ${change.line}${under} was added to a section written before`;
  const kept = rule === 'append-only' ? 'an append-only ledger' : 'a section frozen once written';
  return {
    kind: 'ledger-rewritten',
    loop,
    date: sectionDate(change.section),
    phase: null,
    id: `${file}:${change.line}`,
    detail: `${file} was rewritten: ${what}, in ${kept}; it was read again`,
    since: at.toISOString(),
    evidence: { file: path, line: change.line, url: null },
  };
}
