import { describe, expect, it } from 'vitest';
import { breachHref, sortBreaches, type ContractBreach } from './contract-breach';

describe('a breach\'s link and order', () => {
  const b = (over: Partial<ContractBreach>): ContractBreach => ({ kind: 'no-verdict', loop: 'reliability', date: '2026-11-29', phase: 'deliver', id: null, detail: 'x', since: null, evidence: { file: '/runs/2026-11-29/deliver.log', line: 12, url: null }, ...over });
  it('links a page when it has one, a ledger item by its id, else the phase\'s transcript (at the line only for a transcript)', () => {
    expect(breachHref(b({ evidence: { file: null, line: null, url: 'https://github.com/acme/radon/pull/89' } }))).toBe('https://github.com/acme/radon/pull/89');
    expect(breachHref(b({ kind: 'deferred', id: 'REL-051', phase: null }))).toBe('#/findings/reliability/REL-051');
    expect(breachHref(b({ kind: 'ledger-rewritten', id: 'RELIABILITY_LOG.md:5', phase: null }))).toBe('#/ledgers');
    expect(breachHref(b({}))).toBe('#/loops/reliability/2026-11-29/deliver/log?line=12');
    expect(breachHref(b({ kind: 'unfinished-stage', evidence: { file: '/runs/2026-11-29/remediate.gates.rc', line: 3, url: null } }))).toBe('#/loops/reliability/2026-11-29/deliver/log');
  });
  it('orders by kind, then newest night first', () => {
    const list = sortBreaches([b({ kind: 'deferred', date: '2026-11-28' }), b({ date: '2026-11-27' }), b({ date: '2026-11-29' })]);
    expect(list.map((x) => `${x.kind} ${x.date}`)).toEqual(['no-verdict 2026-11-29', 'no-verdict 2026-11-27', 'deferred 2026-11-28']);
  });
});
