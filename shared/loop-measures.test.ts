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
});
