import type { BacklogItem, Finding, FindingStatus, LogOutcome } from '../../../shared/domain';
import type { BacklogRecord, FindingRecord, OutcomeRecord } from './ledger-records';

/** A row of an audit section's findings table, as the ledger parser emits it. */
export type FindingRow = Omit<FindingRecord, 'kind'>;

/** A row of an audit section's backlog table, as the ledger parser emits it. */
export type BacklogRow = Omit<BacklogRecord, 'kind'>;

/** A row of RELIABILITY_LOG.md, as the ledger parser emits it. */
export type OutcomeRow = Omit<OutcomeRecord, 'kind'>;

/** What findings and backlog items are derived from: one loop's parsed ledger rows. */
export interface FindingsInput {
  readonly loop: string;
  /** The audit ledger the rows came from. */
  readonly source: string;
  readonly findings: readonly FindingRow[];
  readonly backlog: readonly BacklogRow[];
  /** In log order. */
  readonly outcomes: readonly OutcomeRow[];
  /** When Loopdeck first read a finding (ISO), by its id. */
  readonly firstSeen: (id: string) => string;
  /** When Loopdeck first read a log row (ISO), if known. */
  readonly outcomeSeen?: (row: OutcomeRow) => string | undefined;
}

export { severityRank } from '../../../shared/domain';

/**
 * The status an outcome text means (`DONE`, `BLOCKED`, `operator-only`; any case, any trailing
 * text, leading markup such as `**` ignored). Anything else means the item is still open.
 */
export function outcomeStatus(outcome: string): FindingStatus {
  const s = outcome.replace(/^[^A-Za-z]+/, '').toLowerCase();
  if (/^done\b/.test(s)) return 'done';
  if (/^blocked\b/.test(s)) return 'blocked';
  if (/^operator[\s_-]*only\b/.test(s)) return 'operator-only';
  return 'open';
}

const key = (id: string): string => id.trim().toUpperCase();

/** Rows with the first of each id kept: ids are never renumbered, so a repeat is not a new item. */
function firstOfEach<T extends { readonly id: string }>(rows: readonly T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = key(r.id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A finding's status from the items covering it: open > blocked > operator-only > done. */
function coveredStatus(statuses: readonly FindingStatus[]): FindingStatus {
  if (statuses.length === 0 || statuses.includes('open')) return 'open';
  if (statuses.includes('blocked')) return 'blocked';
  if (statuses.includes('operator-only')) return 'operator-only';
  return 'done';
}

/** Findings and backlog items with their status from the reliability log (FORMATS.md §3). */
export function deriveFindings(input: FindingsInput): { findings: Finding[]; backlog: BacklogItem[] } {
  const { loop, source } = input;
  const outcomesById = new Map<string, LogOutcome[]>();
  for (const o of input.outcomes) {
    const k = key(o.id);
    const list = outcomesById.get(k) ?? [];
    const seen = input.outcomeSeen?.(o);
    list.push({ date: o.date, outcome: o.outcome, red: o.red, green: o.green, note: o.note, line: o.line, ...(seen === undefined ? {} : { firstSeenAt: seen }) });
    outcomesById.set(k, list);
  }

  const backlog: BacklogItem[] = firstOfEach(input.backlog).map((row) => {
    const outcomes = outcomesById.get(key(row.id)) ?? [];
    const latest = outcomes.at(-1);
    return {
      id: row.id,
      loop,
      section: row.section,
      findings: [...row.findings],
      severity: row.severity,
      acceptance: row.acceptance,
      status: latest ? outcomeStatus(latest.outcome) : 'open',
      red: latest?.red ?? null,
      green: latest?.green ?? null,
      outcomes,
    };
  });

  const covering = new Map<string, BacklogItem[]>();
  for (const item of backlog) {
    for (const r of new Set(item.findings.map(key))) covering.set(r, [...(covering.get(r) ?? []), item]);
  }

  const findings: Finding[] = firstOfEach(input.findings).map((row) => {
    const items = covering.get(key(row.id)) ?? [];
    return {
      id: row.id,
      loop,
      source,
      section: row.section,
      severity: row.severity,
      ...(row.severityText === undefined ? {} : { severityText: row.severityText }),
      category: row.category,
      where: row.where,
      text: row.text,
      status: coveredStatus(items.map((i) => i.status)),
      backlog: items.map((i) => i.id),
      firstSeenAt: input.firstSeen(row.id),
      line: row.line,
    };
  });
  return { findings, backlog };
}
