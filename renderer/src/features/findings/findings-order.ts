import type { Finding } from '../../../../shared/domain';
import { matchMask, severityCounts, severityRank, type FindingFilter, type SeverityCounts } from './findings';

// The findings table's row order, as index arrays over the store's findings (never copies of the
// findings). An order is computed once per findings array and sort, and kept while that array is
// the store's: opening the view again, or filtering, costs one pass over a mask, not a sort.

/** Columns the table sorts by. */
export type FindingSortId = 'id' | 'loop' | 'severity' | 'status' | 'category' | 'section' | 'where' | 'firstSeen';

/** What the table is sorted by. */
export interface FindingSort {
  readonly id: FindingSortId;
  readonly desc: boolean;
}

/** The table's first sort: most severe first, ledger order within a severity. */
export const DEFAULT_FINDING_SORT: FindingSort = { id: 'severity', desc: false };

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

const text: Partial<Record<FindingSortId, (f: Finding) => string>> = {
  id: (f) => f.id,
  loop: (f) => f.loop,
  status: (f) => f.status,
  section: (f) => f.section,
  category: (f) => f.category ?? '',
  where: (f) => f.where ?? '',
};

/** Severity order by counting: O(n), stable (ledger order within a severity). */
function bySeverity(findings: readonly Finding[], desc: boolean): Uint32Array {
  const buckets = 5;
  const starts = new Uint32Array(buckets + 1);
  const rank = new Uint8Array(findings.length);
  for (let i = 0; i < findings.length; i++) {
    const r = severityRank((findings[i] as Finding).severity);
    const b = desc ? buckets - 1 - r : r;
    rank[i] = b;
    (starts[b + 1] as number)++;
  }
  for (let b = 0; b < buckets; b++) starts[b + 1] = (starts[b + 1] as number) + (starts[b] as number);
  const out = new Uint32Array(findings.length);
  for (let i = 0; i < findings.length; i++) {
    const b = rank[i] as number;
    out[starts[b] as number] = i;
    starts[b] = (starts[b] as number) + 1;
  }
  return out;
}

/** Compare by key, ledger order breaking ties in either direction (as a stable sort would). */
function byKeys<K>(n: number, keys: readonly K[], cmp: (a: K, b: K) => number, desc: boolean): Uint32Array {
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => {
    const c = cmp(keys[a] as K, keys[b] as K);
    return (desc ? -c : c) || a - b;
  });
  return Uint32Array.from(idx);
}

function computeOrder(findings: readonly Finding[], sort: FindingSort): Uint32Array {
  if (sort.id === 'severity') return bySeverity(findings, sort.desc);
  if (sort.id === 'firstSeen') {
    const keys = findings.map((f) => f.firstSeenAt);
    return byKeys(findings.length, keys, (a, b) => (a < b ? -1 : a > b ? 1 : 0), sort.desc);
  }
  const key = text[sort.id] as (f: Finding) => string;
  return byKeys(findings.length, findings.map(key), (a, b) => collator.compare(a, b), sort.desc);
}

const orders = new WeakMap<readonly Finding[], Map<string, Uint32Array>>();

/** Indexes of `findings` in `sort` order; memoised while `findings` is the same array. */
export function sortedOrder(findings: readonly Finding[], sort: FindingSort): Uint32Array {
  let byFindings = orders.get(findings);
  if (!byFindings) {
    byFindings = new Map();
    orders.set(findings, byFindings);
  }
  const k = `${sort.id}:${sort.desc ? 'desc' : 'asc'}`;
  let order = byFindings.get(k);
  if (!order) {
    order = computeOrder(findings, sort);
    byFindings.set(k, order);
  }
  return order;
}

const visibleMemo = new WeakMap<Uint32Array, { mask: Uint8Array; rows: Uint32Array }>();

/** The indexes of `order` that `mask` keeps, in order; memoised on the last mask per order. */
export function visibleRows(order: Uint32Array, mask: Uint8Array): Uint32Array {
  const hit = visibleMemo.get(order);
  if (hit && hit.mask === mask) return hit.rows;
  let n = 0;
  const out = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) {
    const j = order[i] as number;
    if (mask[j] === 1) out[n++] = j;
  }
  const rows = n === out.length ? out : out.slice(0, n);
  visibleMemo.set(order, { mask, rows });
  return rows;
}

/** A filter's fields as one string, so equal filters from two openings of the view match. */
function filterKey(filter: FindingFilter): string {
  return JSON.stringify([filter.loop, filter.section, filter.category, filter.severities, filter.statuses, filter.text]);
}

let lastMask: { findings: readonly Finding[]; key: string; mask: Uint8Array } | null = null;

/**
 * `matchMask` memoised on the last (findings, filter): the view opened again with the same filter
 * gets the same mask (and so the memoised rows and counts). The search haystacks are built only
 * when the filter has text.
 */
export function cachedMask(findings: readonly Finding[], keys: () => readonly string[], filter: FindingFilter): Uint8Array {
  const key = filterKey(filter);
  if (lastMask && lastMask.findings === findings && lastMask.key === key) return lastMask.mask;
  const mask = matchMask(findings, filter.text.trim() === '' ? [] : keys(), filter);
  lastMask = { findings, key, mask };
  return mask;
}

const countsMemo = new WeakMap<Uint8Array, SeverityCounts>();

/** `severityCounts` memoised on the mask. */
export function cachedCounts(findings: readonly Finding[], mask: Uint8Array): SeverityCounts {
  let counts = countsMemo.get(mask);
  if (!counts) {
    counts = severityCounts(findings, mask);
    countsMemo.set(mask, counts);
  }
  return counts;
}
