import { describe, expect, it } from 'vitest';
import type { Finding, Severity } from '../../../../shared/domain';
import { emptyFindingFilter, severityRank } from './findings';
import { cachedCounts, cachedMask, sortedOrder, visibleRows, type FindingSortId } from './findings-order';
import { finding } from '../../ui/test-fixtures';

const SEV: (Severity | null)[] = ['P2', 'P0', null, 'P1', 'P3', 'P0'];
const findings: Finding[] = Array.from({ length: 60 }, (_, i) =>
  finding(`R-${(i * 7) % 23}`, { line: i, severity: SEV[i % SEV.length] ?? null, loop: i % 3 ? 'reliability' : 'testing', category: i % 5 ? `c${i % 3}` : null, where: i % 4 ? `src/f${i % 5}.ts` : null, firstSeenAt: `2026-08-${10 + (i % 9)}T00:00:00.000Z` }),
);

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const key: Record<FindingSortId, (f: Finding) => string | number> = {
  id: (f) => f.id,
  loop: (f) => f.loop,
  severity: (f) => severityRank(f.severity),
  status: (f) => f.status,
  category: (f) => f.category ?? '',
  section: (f) => f.section,
  where: (f) => f.where ?? '',
  firstSeen: (f) => f.firstSeenAt,
};

/** What a stable sort of the rows by the column gives (ledger order breaking ties). */
function reference(id: FindingSortId, desc: boolean): number[] {
  const cmp = (a: string | number, b: string | number) => (typeof a === 'string' && id !== 'firstSeen' ? collator.compare(a, b as string) : a < b ? -1 : a > b ? 1 : 0);
  return findings.map((_, i) => i).sort((a, b) => (desc ? -1 : 1) * cmp(key[id](findings[a] as Finding), key[id](findings[b] as Finding)) || a - b);
}

describe('sortedOrder', () => {
  it.each(Object.keys(key) as FindingSortId[])('orders by %s as a stable sort would, both ways', (id) => {
    expect([...sortedOrder(findings, { id, desc: false })]).toEqual(reference(id, false));
    expect([...sortedOrder(findings, { id, desc: true })]).toEqual(reference(id, true));
  });

  it('is computed once per findings array and sort', () => {
    const a = sortedOrder(findings, { id: 'severity', desc: false });
    expect(sortedOrder(findings, { id: 'severity', desc: false })).toBe(a);
    expect(sortedOrder([...findings], { id: 'severity', desc: false })).not.toBe(a);
  });
});

describe('visibleRows and the cached mask', () => {
  it('keeps the masked rows in order, and the same filter on the same rows gives the same mask', () => {
    const filter = { ...emptyFindingFilter, severities: ['P0' as const] };
    const mask = cachedMask(findings, () => [], filter);
    expect(cachedMask(findings, () => [], { ...filter, severities: ['P0'] })).toBe(mask);
    const rows = visibleRows(sortedOrder(findings, { id: 'id', desc: false }), mask);
    expect([...rows]).toEqual(reference('id', false).filter((i) => findings[i]?.severity === 'P0'));
    expect(visibleRows(sortedOrder(findings, { id: 'id', desc: false }), mask)).toBe(rows);
    expect(cachedCounts(findings, mask)).toMatchObject({ P0: rows.length, P1: 0 });
  });

  it('builds the search haystacks only for a text filter', () => {
    let built = 0;
    const keys = () => (built++, findings.map((f) => f.id.toLowerCase()));
    cachedMask(findings, keys, { ...emptyFindingFilter, loop: 'testing' });
    expect(built).toBe(0);
    const mask = cachedMask(findings, keys, { ...emptyFindingFilter, text: 'r-1' });
    expect(built).toBe(1);
    expect(mask.reduce((n, m) => n + m, 0)).toBe(findings.filter((f) => f.id.toLowerCase().includes('r-1')).length);
  });
});
