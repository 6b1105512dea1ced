import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reviewMarkdown } from '../../../shared/review-summary';
import { createTrendsMemo } from '../../../shared/trends';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { parseConfig } from '../config/load-config';
import { composeEngine } from '../session/core';
import { Store } from '../store/store';

// Issue "Night against night", item 1: suite summaries in a phase's transcript become its suite
// results, counted against the loop's baseline of known failures (declared, or learned from its
// green nights), on the phase, in the Review's stops and in Trends — through the engine, from a
// runner tree of real files.

const NOW = new Date('2026-11-30T12:00:00Z');
const stamped = (phase: string, date: string, end: string): string => `${phase} ${date}T01:00:00Z STARTED\n${phase} ${date}T03:00:00Z ${end}\n`;

/** A night whose remediate ran the suite with `failed` failures and ended `end` (OK or FAILED 1). */
function night(fx: ReturnType<typeof createRunnerFixture>, date: string, failed: number, end: string): void {
  fx.write(date, 'audit.status', stamped('audit', date, 'OK'));
  fx.write(date, 'remediate.status', stamped('remediate', date, end));
  fx.write(date, 'remediate.log', `fixing REL-001\n===== ${failed} failed, 32,821 passed, 2 skipped in 858.12s =====\nGATES_RC=0\nSUITE_RC=${failed > 37 ? 1 : 0}\n`);
  fx.write(date, 'deliver.status', stamped('deliver', date, '0 PR(s), nothing to merge'));
}

async function engineOn(fx: ReturnType<typeof createRunnerFixture>) {
  const config = parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8'));
  const engine = composeEngine(config, { store: Store.open(':memory:'), now: () => NOW });
  await engine.poll();
  return engine;
}

describe('suites counted, against a baseline', () => {
  it('declared: knownFailures 37 turns "40 failed" into "3 beyond the baseline of 37" on the phase, the Review and Trends', async () => {
    const fx = createRunnerFixture('    knownFailures: 37\n');
    night(fx, '2026-11-29', 37, 'OK');
    night(fx, '2026-11-30', 40, 'FAILED 1');
    const engine = await engineOn(fx);
    try {
      const snapshot = engine.snapshot();
      const loop = snapshot.loops[0];
      expect(loop?.knownFailures).toBe(37);
      const remediate = loop?.cycles.find((c) => c.date === '2026-11-30')?.phases.find((p) => p.name === 'remediate');
      expect(remediate?.suites?.map((s) => [s.runner, s.passed, s.failed, s.skipped, s.durationMs])).toEqual([
        ['pytest', 32821, 40, 2, 858_120],
        ['gates', 1, 1, 0, null],
      ]);
      expect(remediate?.suites?.[0]?.line).toBe(2);
      const md = reviewMarkdown(snapshot, { now: NOW.getTime() });
      expect(md).toContain('suites 40 failed — 3 beyond the baseline of 37');
      const trends = createTrendsMemo().compute({ loops: snapshot.loops, findings: [], backlog: [], days: 7, now: NOW.toISOString() });
      const l = trends.loops[0];
      expect(l?.baseline).toEqual({ failed: 37, from: 'declared', nights: 0 });
      expect(l?.nights.filter((n) => n.suites).map((n) => [n.date, n.suites?.passed, n.suites?.failed])).toEqual([
        ['2026-11-29', 32821, 37],
        ['2026-11-30', 32821, 40],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('learned: the lower median of the green nights before it, and none with fewer than three', async () => {
    const fx = createRunnerFixture();
    night(fx, '2026-11-25', 36, 'OK');
    night(fx, '2026-11-26', 37, 'OK');
    night(fx, '2026-11-30', 41, 'FAILED 1');
    let engine = await engineOn(fx);
    try {
      // Two green nights are not a baseline: the failures are counted as they are.
      expect(reviewMarkdown(engine.snapshot(), { now: NOW.getTime() })).toContain('suites 32,821 passed, 41 failed');
    } finally {
      await engine.close();
    }
    night(fx, '2026-11-27', 38, 'OK');
    // A red night's failures are not the host's normal: it is not learned from.
    night(fx, '2026-11-28', 90, 'FAILED 1');
    engine = await engineOn(fx);
    try {
      const snapshot = engine.snapshot();
      expect(reviewMarkdown(snapshot, { now: NOW.getTime() })).toContain('suites 41 failed — 4 beyond the baseline of 37');
      const l = createTrendsMemo().compute({ loops: snapshot.loops, findings: [], backlog: [], days: 7, now: NOW.toISOString() }).loops[0];
      expect(l?.baseline).toEqual({ failed: 37, from: 'learned', nights: 3 });
    } finally {
      await engine.close();
    }
  });
});
