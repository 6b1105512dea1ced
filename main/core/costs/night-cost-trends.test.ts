import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PullRequest } from '../../../shared/domain';
import { trendsReport } from '../../../shared/loop-measures';
import { createTrendsMemo } from '../../../shared/trends';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { CapacityHistory } from '../capacity/history/history-store';
import { parseConfig } from '../config/load-config';
import { composeEngine } from '../session/core';
import { Store } from '../store/store';

// Issue "Night against night", item 5: `costs:` prices each kept night's phases from the fleet's
// usage rows over their windows (a real SQLite store, the engine's own nights), and Trends turns
// them into a cost per night, per DONE finding and per merged PR, and the cost of waste.

const NOW = new Date('2026-11-30T12:00:00Z');
const COSTS = 'costs:\n  currency: EUR\n  models:\n    qwen3-32b: { tokens: 2 }\n';

describe('what a night cost', () => {
  it('prices each phase from the usage rows in its window; a failed phase is waste; per merged PR over the PR list', async () => {
    const fx = createRunnerFixture(COSTS);
    for (const [date, end] of [['2026-11-29', 'OK'], ['2026-11-30', 'FAILED 1']] as const) {
      fx.write(date, 'audit.status', `audit ${date}T00:00:00Z STARTED\naudit ${date}T00:30:00Z OK\n`);
      fx.write(date, 'remediate.status', `remediate ${date}T01:00:00Z STARTED\nremediate ${date}T03:00:00Z ${end}\n`);
      fx.write(date, 'deliver.status', `deliver ${date}T04:00:00Z STARTED\ndeliver ${date}T04:30:00Z 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/9${date.slice(-1)}\n`);
    }
    const store = Store.open(':memory:');
    const engine = composeEngine(parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8')), { store, now: () => NOW });
    try {
      // A million tokens during the 29th's remediate, half a million during the 30th's (which failed), none during the audits.
      const t = (iso: string): number => Date.parse(iso);
      new CapacityHistory(store.sql).addUsage('crossbar', [
        { key: 'a', t: t('2026-11-29T02:00:00Z'), route: '/v1/chat/completions', host: 'gpu-a', model: 'qwen3-32b', status: '200', ttfbMs: 90, tokens: 1_000_000, error: null },
        { key: 'b', t: t('2026-11-30T02:00:00Z'), route: '/v1/chat/completions', host: 'gpu-a', model: 'qwen3-32b', status: '200', ttfbMs: 90, tokens: 500_000, error: null },
      ]);
      await engine.poll();
      const kept = engine.nights.list('reliability');
      const remediate = (date: string) => kept.find((n) => n.date === date)?.phases.find((p) => p.name === 'remediate');
      expect(remediate('2026-11-29')?.cost).toBe(2);
      expect(remediate('2026-11-30')?.cost).toBe(1);
      expect(kept.find((n) => n.date === '2026-11-29')?.phases.find((p) => p.name === 'audit')?.cost).toBe(0);
      expect(kept.every((n) => n.currency === 'EUR')).toBe(true);

      const snapshot = engine.snapshot();
      const merged: PullRequest = { loop: 'reliability', url: 'https://github.com/acme/radon/pull/99', number: 99, branch: null, status: 'merged', check: null, since: null, cycle: '2026-11-29' };
      const report = trendsReport(createTrendsMemo(), { loops: snapshot.loops, findings: [], backlog: [], history: kept, days: 7, now: NOW.toISOString(), prs: [merged] });
      const l = report.loops[0];
      expect(l?.nights.filter((n) => n.cost !== null).map((n) => [n.date, n.cost, n.wasteCost])).toEqual([
        ['2026-11-29', 2, 0],
        ['2026-11-30', 1, 1],
      ]);
      expect(l?.measures.find((m) => m.nights === 7)?.cost).toEqual({ total: 3, currency: 'EUR', nights: 2, perDone: null, perPr: 1.5, perMergedPr: 3, merged: 1, waste: 1, churned: 0 });
    } finally {
      await engine.close();
    }
  });

  it('a month whose pace would pass costs.budget.monthly raises one budget notice, naming the spend and the projection', async () => {
    // The 10th of November has cost 1.00 EUR: at that pace the 30 days come to 3.00, past a budget of 2.
    const fx = createRunnerFixture(`${COSTS}  budget: { monthly: 2 }\n`);
    fx.write('2026-11-10', 'audit.status', 'audit 2026-11-10T00:00:00Z STARTED\naudit 2026-11-10T01:00:00Z OK\n');
    const store = Store.open(':memory:');
    const engine = composeEngine(parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8')), { store, now: () => new Date('2026-11-10T12:00:00Z') });
    try {
      new CapacityHistory(store.sql).addUsage('crossbar', [{ key: 'a', t: Date.parse('2026-11-10T00:30:00Z'), route: '/v1/chat/completions', host: 'gpu-a', model: 'qwen3-32b', status: '200', ttfbMs: 90, tokens: 500_000, error: null }]);
      await engine.poll();
      await engine.poll();
      const budget = engine.snapshot().notices.filter((n) => n.key.startsWith('budget:'));
      expect(budget.map((n) => n.key)).toEqual(['budget:2026-11']);
      expect(budget[0]?.message).toContain('has cost 1.00 EUR up to the night of 2026-11-10 (10 of 30 days)');
      expect(budget[0]?.message).toContain('about 3.00 EUR, past the budget of 2.00 EUR');
    } finally {
      await engine.close();
    }
  });

  it('without costs: no phase is priced and Trends says nothing of cost', async () => {
    const fx = createRunnerFixture();
    fx.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:00Z STARTED\naudit 2026-11-29T00:30:00Z OK\n');
    const engine = composeEngine(parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8')), { store: Store.open(':memory:'), now: () => NOW });
    try {
      await engine.poll();
      expect(engine.nights.list('reliability').flatMap((n) => n.phases).some((p) => p.cost !== undefined)).toBe(false);
      const report = trendsReport(createTrendsMemo(), { loops: engine.snapshot().loops, findings: [], backlog: [], history: engine.nights.list('reliability'), days: 7, now: NOW.toISOString() });
      expect(report.loops[0]?.measures.every((m) => m.cost === null)).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
