import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startFleetStatusServer } from '../testing/fleet-status-server';
import { parseConfig } from './core/config/load-config';
import { openCore } from './core/session/core';
import type { LoopReport, TrendsReport } from '../shared/loop-measures';
import { addDays } from '../shared/trends';
import { loopdeck } from '../testing/cli-run';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';

const NEWEST = '2026-08-31';
const NOW = `${NEWEST}T12:00:00Z`;

/**
 * 45 nights with `cycles: 7` and `history: 40`: every night audits, remediates and delivers one PR;
 * the newest night's remediate took 10 h (the others 1 h). A ledger with a DONE item later BLOCKED, and a finding
 * re-found at a DONE one's file:line within 30 days.
 */
function fixture(): RunnerFixture {
  const clone = mkdtempSync(join(tmpdir(), 'loopdeck-clone-'));
  const findings = (date: string, rows: string[]) => `\n## Delta audit ${date}\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n${rows.join('\n')}\n`;
  writeFileSync(
    join(clone, 'RELIABILITY_AUDIT.md'),
    '# Reliability audit\n' +
      findings('2026-08-02', ['| R-1 | P1 | durability | src/orders.py:120 | write not fsynced |', '| R-2 | P0 | safety | src/halt.py:9 | halt bypassed |']) +
      '\n| ID | Findings | Sev | Acceptance |\n|---|---|---|---|\n| REL-1 | R-1 | P1 | crash mid-write |\n| REL-2 | R-2 | P0 | inject a bypass |\n' +
      findings('2026-08-20', ['| R-3 | P1 | durability | src/orders.py:120 | write still not fsynced on rotate |']),
  );
  writeFileSync(
    join(clone, 'RELIABILITY_LOG.md'),
    '# Reliability log\n\n| ID | Date | Outcome | Red/Green | Notes |\n|----|------|---------|-----------|-------|\n' +
      '| REL-1 | 2026-08-03 | DONE | 1/1 | fsync added |\n| REL-2 | 2026-08-03 | DONE | 1/1 | halt checked |\n| REL-2 | 2026-08-25 | BLOCKED | 1/0 | the check is skipped on retry |\n',
  );
  const fx = createRunnerFixture(`    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }\n    cycles: 7\n    history: 40\n`);
  for (let i = 0; i < 45; i++) {
    const d = addDays(NEWEST, -i);
    const hours = d === NEWEST ? 10 : 1;
    fx.write(d, 'audit.status', `audit ${d}T00:00:00+00:00 STARTED\naudit ${d}T00:30:00+00:00 OK\n`);
    fx.write(d, 'remediate.status', `remediate ${d}T01:00:00+00:00 STARTED\nremediate ${d}T${String(1 + hours).padStart(2, '0')}:00:00+00:00 OK\n`);
    fx.write(d, 'deliver.status', `deliver ${d}T12:00:00+00:00 STARTED\ndeliver ${d}T13:00:00+00:00 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${100 + i}\n`);
  }
  return fx;
}

describe('loopdeck trends', () => {
  let fx: RunnerFixture;
  beforeAll(() => {
    fx = fixture();
  });

  it('--json prints the Trends report: 30 nights past the 7 followed, the regression flagged, churn with the IDs, failures by cause, measures', async () => {
    const r = await loopdeck('trends', 'reliability', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as TrendsReport;
    expect(report).toMatchObject({ days: 30, from: '2026-08-02', to: NEWEST });
    const l = report.loops[0] as LoopReport;
    expect(l.nights).toHaveLength(30);
    expect(l.nights.every((n) => n.outcome === 'ready' && n.prs === 1)).toBe(true);
    expect(l.nights.find((n) => n.date === NEWEST)).toMatchObject({ durations: { remediate: 10 * 3_600_000 }, readyMs: 13 * 3_600_000, flags: ['phase-slow'] });
    expect(l.flags).toEqual([
      expect.objectContaining({ kind: 'phase-slow', date: NEWEST, phase: 'remediate', durationMs: 10 * 3_600_000, medianMs: 3_600_000 }),
      // The kept nights before the window are the 30 nights this P0 is measured against.
      expect.objectContaining({ kind: 'p0-spike', date: '2026-08-02', count: 1, previousMax: 0 }),
    ]);
    expect(l.failures).toEqual({ fleet: 0, runner: 0, agent: 0, unknown: 0 });
    expect(l.churn).toEqual([
      expect.objectContaining({ kind: 'reopened', item: 'REL-2', findings: ['R-2'], doneOn: '2026-08-03', date: '2026-08-25', outcome: 'BLOCKED' }),
      expect.objectContaining({ kind: 'refound', id: 'R-3', of: 'R-1', items: ['REL-1'], where: 'src/orders.py:120', doneOn: '2026-08-03', date: '2026-08-20', days: 17 }),
    ]);
    expect(l.measures.map((m) => [m.nights, m.found, m.implemented, m.prs, m.medianReadyHours, m.reopened])).toEqual([
      [7, 0, 0, 7, 13, 1],
      // R-2's DONE was BLOCKED later: only R-1 counts as implemented.
      [30, 3, 1, 30, 13, 2],
      [90, 3, 1, 40, 13, 2],
    ]);
  });

  it('its help says it takes --now', async () => {
    const r = await loopdeck('trends', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.trimStart().startsWith('loopdeck trends'))).toContain('[--now ISO]');
  });

  it('flags a slow phase on its night in the text output, and refuses an unknown loop naming the config', async () => {
    const r = await loopdeck('trends', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--nights', '7');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${NEWEST}  phase-slow  remediate took 10.0h on ${NEWEST}, over twice its 30-day median (1.0h)`);
    expect(r.stdout).toContain('churn (1):');
    const bad = await loopdeck('trends', 'nope', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('Unknown loop "nope"');
  });
});

describe('loopdeck trends: the merge measures', () => {
  /** Three followed nights: green, INCOMPLETE (its PR #201 green on the next fire), green (#202); remediate from 01:00, deliver ends 06:00. */
  function mergeFixture(): RunnerFixture {
    const fx = createRunnerFixture('    cycles: 7\n');
    const verdicts = [`1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/200`, 'INCOMPLETE: ci/test https://github.com/acme/radon/pull/201', '2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/201 https://github.com/acme/radon/pull/202'];
    verdicts.forEach((verdict, i) => {
      const d = addDays(NEWEST, i - 2);
      fx.write(d, 'audit.status', `audit ${d}T00:00:00+00:00 STARTED\naudit ${d}T00:30:00+00:00 OK\n`);
      fx.write(d, 'remediate.status', `remediate ${d}T01:00:00+00:00 STARTED\nremediate ${d}T03:00:00+00:00 OK\n`);
      fx.write(d, 'deliver.status', `deliver ${d}T04:00:00+00:00 STARTED\ndeliver ${d}T06:00:00+00:00 ${verdict}\n`);
    });
    return fx;
  }

  it('--json adds each night’s remediate → green (the next fire’s counted from the first night’s remediate), its median, and the PRs awaiting merge with their age', async () => {
    const fx = mergeFixture();
    const r = await loopdeck('trends', 'reliability', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
    expect(r.stderr).toBe('');
    const l = (JSON.parse(r.stdout) as TrendsReport).loops[0] as LoopReport;
    const last3 = l.nights.slice(-3);
    expect(last3.map((n) => [n.date, n.remediateToGreen, n.awaitingMerge])).toEqual([
      [addDays(NEWEST, -2), { ms: 5 * 3_600_000, on: addDays(NEWEST, -2) }, 1],
      [addDays(NEWEST, -1), { ms: 29 * 3_600_000, on: NEWEST }, 1],
      [NEWEST, { ms: 5 * 3_600_000, on: NEWEST }, 3],
    ]);
    // Before the followed cycles: not known (null), never 0.
    expect(l.nights[0]?.awaitingMerge).toBeNull();
    expect(l.measures.map((m) => [m.nights, m.medianGreenHours, m.greenNights])).toEqual([
      [7, 5, 3],
      [30, 5, 3],
      [90, 5, 3],
    ]);
    // #200 green two nights back at 06:00; #201 and #202 green today at 06:00; at --now (12:00).
    expect(l.awaitingMerge).toMatchObject({ count: 3, oldestMs: 54 * 3_600_000 });
    expect(l.awaitingMerge?.prs.map((p) => p.number)).toEqual([200, 201, 202]);
    const text = await loopdeck('trends', 'reliability', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--nights', '7');
    expect(text.stdout).toContain('awaiting merge: 3, oldest 2.3 d (#200 2.3 d, #201 6.0 h, #202 6.0 h)');
    expect(text.stdout).toMatch(new RegExp(`${addDays(NEWEST, -1)} .* 1\\.2 d on 08-31 +1, oldest 1\\.8 d`));
    expect(text.stdout).toContain('remediate → green 5.0 h (median of 3)');
  });

  it('--json carries each night\'s suites, the loop\'s baseline and what the nights cost, priced from a crossbar stand-in\'s usage rows', async () => {
    const fleet = await startFleetStatusServer([{ name: 'gpu-a', slots: 4, requests: { '200': 10 } }], { inflight_requests: 0, inflight_high_water: 0, total_shed: 0, heap_size_limit_mb: 1, heap_utilization_pct: 1, max_inflight_requests: 1, requests_total: 0, responses_by_status: {} });
    try {
      const own = createRunnerFixture(`    knownFailures: 37\nproxies:\n  crossbar: { host: runner, kind: crossbar, url: ${JSON.stringify(fleet.url)}, every: 10s }\ncosts:\n  models:\n    qwen3-32b: { tokens: 2 }\n`);
      for (const [d, failed] of [['2026-08-30', 37], ['2026-08-31', 40]] as const) {
        own.write(d, 'audit.status', `audit ${d}T00:00:00+00:00 STARTED\naudit ${d}T00:30:00+00:00 OK\n`);
        own.write(d, 'remediate.status', `remediate ${d}T01:00:00+00:00 STARTED\nremediate ${d}T03:00:00+00:00 ${failed > 37 ? 'FAILED 1' : 'OK'}\n`);
        own.write(d, 'remediate.log', `===== ${failed} failed, 1200 passed in 400.00s =====\n`);
        // What the proxy's accounting says the remediate used: a million tokens on the 30th, half a million on the 31st.
        fleet.usage.push({ time: `${d}T02:00:00Z`, route: '/v1/chat/completions', host: 'gpu-a', model: 'qwen3-32b', status: 200, ttfb: 0.1, tokens: failed > 37 ? 500_000 : 1_000_000 });
      }
      // A console ran over the night: it polled the fleet (the usage rows kept in the data folder) and kept the nights.
      const core = openCore({ config: parseConfig(own.configPath, readFileSync(own.configPath, 'utf8')), dataDir: own.dataDir, now: () => new Date(NOW) });
      try {
        await core.engine.capacity.pollOnce();
        await core.engine.poll();
      } finally {
        await core.close();
      }
      const r = await loopdeck('trends', 'reliability', '--config', own.configPath, '--data', own.dataDir, '--now', NOW, '--json');
      expect(r.stderr).toBe('');
      const l = (JSON.parse(r.stdout) as TrendsReport).loops[0] as LoopReport;
      expect(l.baseline).toEqual({ failed: 37, from: 'declared', nights: 0 });
      expect(l.nights.filter((n) => n.suites).map((n) => [n.date, n.suites?.passed, n.suites?.failed, n.cost, n.wasteCost])).toEqual([
        ['2026-08-30', 1200, 37, 2, 0],
        ['2026-08-31', 1200, 40, 1, 1],
      ]);
      expect(l.measures.find((m) => m.nights === 7)?.cost).toMatchObject({ total: 3, currency: 'USD', waste: 1 });
      const text = await loopdeck('trends', 'reliability', '--config', own.configPath, '--data', own.dataDir, '--now', NOW);
      expect(text.stdout).toContain('known failures: 37 (knownFailures in the config)');
      expect(text.stdout).toMatch(/2026-08-31 .* 1200\/40 /);
      expect(text.stdout).toContain('cost 3.00 USD');
    } finally {
      await fleet.close();
    }
  });
});
