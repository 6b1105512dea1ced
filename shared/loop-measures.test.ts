import { describe, expect, it } from 'vitest';
import type { Cycle, Phase } from './domain';
import { trendsReport } from './loop-measures';
import { summarizeCycle, type NightSummary } from './night-summary';
import { addDays, createTrendsMemo } from './trends';

const LAST = '2026-08-31';

function phase(name: string, date: string, from: number, to: number, over: Partial<Phase> = {}): Phase {
  return { name, status: 'ok', startedAt: `${date}T${String(from).padStart(2, '0')}:00:00.000Z`, endedAt: `${date}T${String(to).padStart(2, '0')}:00:00.000Z`, timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason: 'wrapper stamp OK', ...over };
}

/** A night that delivered one PR 6 h after its audit began, its remediate using `tokens`. */
function night(date: string, tokens: number | null): NightSummary {
  const c: Cycle = { date, status: 'ready', phases: [phase('audit', date, 0, 1), phase('remediate', date, 1, 4), phase('deliver', date, 4, 6, { status: 'ready', reason: `wrapper stamp 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${date.slice(-2)}` })] };
  const n = summarizeCycle('reliability', c);
  return tokens === null ? n : { ...n, phases: n.phases.map((p) => (p.name === 'remediate' ? { ...p, tokens } : p)) };
}

describe('loop measures', () => {
  it('over 7, 30 and 90 nights: PRs, audit → READY, and fleet tokens per PR where the usage rows knew', () => {
    // 40 kept nights; the newest 10 have token counts (1,000 each), the others none.
    const history = Array.from({ length: 40 }, (_, i) => night(addDays(LAST, -i), i < 10 ? 1000 : null));
    const r = trendsReport(createTrendsMemo(), { loops: [{ name: 'reliability', host: 'runner', cycles: [], deadman: null }], findings: [], backlog: [], history, days: 30, now: `${LAST}T12:00:00Z` });
    const m = r.loops[0]?.measures ?? [];
    expect(m.map((x) => [x.nights, x.prs, x.medianReadyHours, x.tokens, x.tokensPerPr])).toEqual([
      [7, 7, 6, 7000, 1000],
      [30, 30, 6, 10_000, 1000],
      [90, 40, 6, 10_000, 1000],
    ]);
  });

  it('cost: per DONE and per merged PR over the priced nights; waste counts bad phases and the share of a fix that churned', () => {
    // Each night's remediate cost 4 (USD); the newest night's failed. REL-1, DONE on 08-30, was BLOCKED on 08-31: that fix churned.
    const priced = (date: string, failed: boolean): NightSummary => {
      const n = night(date, null);
      return { ...n, currency: 'USD', phases: n.phases.map((p) => (p.name === 'remediate' ? { ...p, cost: 4, ...(failed ? { bad: true } : {}) } : { ...p, cost: 0 })) };
    };
    const history = [priced('2026-08-29', false), priced('2026-08-30', false), priced(LAST, true)];
    const finding = { id: 'R-1', loop: 'reliability', source: 'RELIABILITY_AUDIT.md', section: 'Delta audit 2026-08-29', severity: 'P1' as const, category: null, where: null, text: 'x', status: 'blocked' as const, backlog: ['REL-1'], firstSeenAt: '2026-08-29T00:00:00Z', line: 1 };
    const outcome = (date: string, o: string) => ({ date, outcome: o, red: 1, green: 1, note: null, line: 1 });
    const item = { id: 'REL-1', loop: 'reliability', section: 'x', findings: ['R-1'], severity: 'P1' as const, acceptance: '', status: 'blocked' as const, red: 1, green: 1, outcomes: [outcome('2026-08-30', 'DONE'), outcome(LAST, 'BLOCKED')] };
    const merged = { loop: 'reliability', url: 'https://github.com/acme/radon/pull/30', number: 30, branch: null, status: 'merged' as const, check: null, since: null, cycle: '2026-08-30' };
    const r = trendsReport(createTrendsMemo(), { loops: [{ name: 'reliability', host: 'runner', cycles: [], deadman: null }], findings: [finding], backlog: [item], history, days: 7, now: `${LAST}T12:00:00Z`, prs: [merged] });
    const cost = r.loops[0]?.measures.find((m) => m.nights === 7)?.cost;
    expect(cost).toMatchObject({ total: 12, currency: 'USD', nights: 3, perPr: 4, perMergedPr: 12, merged: 1, churned: 4, waste: 8 });
    // Without prices, no cost at all (not 0).
    const none = trendsReport(createTrendsMemo(), { loops: [{ name: 'reliability', host: 'runner', cycles: [], deadman: null }], findings: [], backlog: [], history: [night(LAST, null)], days: 7, now: `${LAST}T12:00:00Z` });
    expect(none.loops[0]?.measures.every((m) => m.cost === null)).toBe(true);
  });
});
