import type { Finding, FindingStatus, Severity } from '../../../../shared/domain';

// Pure helpers for the findings view. Findings can be 20,000 rows: filtering produces a mask over
// the array main sent (no copies of the findings themselves), and the haystacks are built once.

export { SEVERITIES, severityRank } from '../../../../shared/domain';

/** Finding statuses in the order the filter offers them. */
export const FINDING_STATUSES: readonly FindingStatus[] = ['open', 'blocked', 'operator-only', 'done'];


/** What the operator narrowed the findings to; empty lists and nulls mean "any". */
export interface FindingFilter {
  readonly loop: string | null;
  readonly severities: readonly Severity[];
  readonly statuses: readonly FindingStatus[];
  readonly section: string | null;
  /** The ledger's category cell, as written (`state`, `error handling`). */
  readonly category: string | null;
  /** Free text over id, where and text; whitespace-separated words must all appear. */
  readonly text: string;
}

/** No narrowing at all. */
export const emptyFindingFilter: FindingFilter = { loop: null, severities: [], statuses: [], section: null, category: null, text: '' };

/** Whether a filter narrows anything. */
export function isFiltering(filter: FindingFilter): boolean {
  return (
    filter.loop !== null || filter.section !== null || filter.category !== null || filter.severities.length > 0 || filter.statuses.length > 0 || filter.text.trim() !== ''
  );
}

/** The lower-cased text the free-text filter searches, one per finding, index for index. */
export function searchKeys(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.id}\n${f.where ?? ''}\n${f.text}`.toLowerCase());
}

/** A 0/1 mask over `findings`: 1 where the finding passes the filter. `keys` come from `searchKeys`. */
export function matchMask(findings: readonly Finding[], keys: readonly string[], filter: FindingFilter): Uint8Array {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const sev = filter.severities.length > 0 ? new Set<Severity | null>(filter.severities) : null;
  const st = filter.statuses.length > 0 ? new Set<FindingStatus>(filter.statuses) : null;
  const mask = new Uint8Array(findings.length);
  for (let i = 0; i < findings.length; i++) {
    const f = findings[i] as Finding;
    if (filter.loop !== null && f.loop !== filter.loop) continue;
    if (filter.section !== null && f.section !== filter.section) continue;
    if (filter.category !== null && f.category !== filter.category) continue;
    if (sev && !sev.has(f.severity)) continue;
    if (st && !st.has(f.status)) continue;
    if (words.length > 0) {
      const key = keys[i] ?? '';
      let all = true;
      for (const w of words) {
        if (!key.includes(w)) {
          all = false;
          break;
        }
      }
      if (!all) continue;
    }
    mask[i] = 1;
  }
  return mask;
}

/** Counts per severity (and `none`) of the findings a mask selects. */
export type SeverityCounts = Readonly<Record<Severity | 'none', number>>;

/** Count the masked findings by severity. */
export function severityCounts(findings: readonly Finding[], mask: Uint8Array): SeverityCounts {
  const counts = { P0: 0, P1: 0, P2: 0, P3: 0, none: 0 };
  for (let i = 0; i < findings.length; i++) {
    if (mask[i]) counts[findings[i]?.severity ?? 'none']++;
  }
  return counts;
}

/** Distinct loops and sections (first-seen order) and categories (sorted), for the filter's choices. */
export function findingFacets(findings: readonly Finding[]): { loops: string[]; sections: string[]; categories: string[] } {
  const loops = new Set<string>();
  const sections = new Set<string>();
  const categories = new Set<string>();
  for (const f of findings) {
    loops.add(f.loop);
    sections.add(f.section);
    if (f.category !== null) categories.add(f.category);
  }
  return { loops: [...loops], sections: [...sections], categories: [...categories].sort((a, b) => a.localeCompare(b)) };
}

/**
 * A finding's severity as the ledger wrote it when the cell says more than the severity
 * (`P1 (contested: P0)`), else the severity (`P1`), else null.
 */
export function severityAsWritten(finding: Pick<Finding, 'severity' | 'severityText'>): string | null {
  return finding.severityText ?? finding.severity;
}

/** Whether a finding appeared after the operator last reviewed; nothing is new without a review time. */
export function isNewFinding(finding: Finding, reviewedAt: string | null): boolean {
  if (reviewedAt === null) return false;
  const seen = Date.parse(finding.firstSeenAt);
  const reviewed = Date.parse(reviewedAt);
  return Number.isFinite(seen) && Number.isFinite(reviewed) && seen > reviewed;
}

const COUNT = new Intl.NumberFormat('en-US');

/** A count with thousands separators, e.g. `20,000` (one formatter, kept: the nav shows counts on every render). */
export function formatCount(n: number): string {
  return COUNT.format(n);
}

/** Add or remove one value of a multi-select filter, keeping `order`. */
export function toggled<T>(values: readonly T[], value: T, order: readonly T[]): T[] {
  const next = values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
  return order.filter((v) => next.includes(v));
}
