import { describe, expect, it } from 'vitest';
import type { ContractBreach } from '../../../../shared/contract-breach';
import type { Cycle, LoopState } from '../../../../shared/domain';
import { summarizeCycle } from '../../../../shared/night-summary';
import { addDays, createTrendsMemo } from '../../../../shared/trends';
import { breachChart, breachNights } from './trend-breaches';

const LAST = '2026-08-31';
const cycle = (date: string): Cycle => ({ date, status: 'ok', phases: [{ name: 'audit', status: 'ok', startedAt: `${date}T01:00:00.000Z`, endedAt: `${date}T02:00:00.000Z`, timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason: 'wrapper stamp OK' }] });
const breach = (kind: ContractBreach['kind'], date: string): ContractBreach => ({ kind, loop: 'reliability', date, phase: 'deliver', id: null, detail: 'x', since: null, evidence: { file: null, line: null, url: null } });

/** Trends as the view derives them: 2 followed nights, 3 kept ones (one with a count, two written before breaches were kept). */
function nights() {
  const loop: LoopState = { name: 'reliability', host: 'runner', cycles: [cycle(LAST), cycle(addDays(LAST, -1))], deadman: null };
  const history = [2, 3, 4].map((i) => {
    const n = summarizeCycle('reliability', cycle(addDays(LAST, -i)));
    return i === 3 ? { ...n, breaches: { total: 2, kinds: { 'no-pr': 1, hollow: 1 } } } : n;
  });
  const contract = [breach('no-verdict', LAST), breach('hollow', LAST)];
  return createTrendsMemo().compute({ loops: [loop], findings: [], backlog: [], days: 7, now: `${LAST}T12:00:00Z`, history, contract }).loops[0]?.nights ?? [];
}

describe('breaches per night in Trends', () => {
  it('lists each night that ran, newest first, with its count and kinds, and "—" (never 0) for a night kept before breaches were counted', () => {
    const rows = breachNights(nights());
    expect(rows.map((r) => [r.date, r.total, r.kinds])).toEqual([
      [LAST, '2', ['1 × hollow remediate', '1 × no deliver verdict']],
      [addDays(LAST, -1), '0', []],
      [addDays(LAST, -2), '—', []],
      [addDays(LAST, -3), '2', ['1 × hollow remediate', '1 × commits without a PR']],
      [addDays(LAST, -4), '—', []],
    ]);
    expect(rows[0]?.title).toBe(`${LAST}: 1 × hollow remediate, 1 × no deliver verdict`);
    expect(rows[2]?.title).toContain('not known');
  });

  it('draws a stacked bar a kind, in the list order, null for a kind the night did not have and on a night whose count is not known', () => {
    const { rows, series } = breachChart(nights());
    expect(series.map((s) => [s.key, s.name])).toEqual([
      ['hollow', 'hollow remediate'],
      ['no-verdict', 'no deliver verdict'],
      ['no-pr', 'commits without a PR'],
    ]);
    expect(rows.find((r) => r.date === LAST)).toEqual({ date: LAST, hollow: 1, 'no-verdict': 1, 'no-pr': null });
    expect(rows.find((r) => r.date === addDays(LAST, -2))).toEqual({ date: addDays(LAST, -2), hollow: null, 'no-verdict': null, 'no-pr': null });
    expect(rows).toHaveLength(7);
  });
});
