import { beforeAll, describe, expect, it } from 'vitest';
import { NightComparisonSchema } from '../shared/night-compare';
import { loopdeck } from '../testing/cli-run';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';

const NOW = '2026-08-23T20:00:00Z';

/** A remediate transcript of `n` passing tests (their times vary by night), one extra failure when `regressed`, and pytest's summary. */
function transcript(date: string, regressed: boolean): string {
  const lines = [`remediate started ${date}T01:00:00Z`];
  for (let i = 0; i < 400; i++) {
    if (regressed && i === 120) lines.push('FAILED tests/test_orders.py::test_fsync - AssertionError');
    lines.push(`[${date} 01:02:${String(i % 60).padStart(2, '0')}] PASSED tests/test_m${i}.py::test_${i} (0.${(i * 3 + date.length) % 10}s)`);
  }
  lines.push(regressed ? '===== 9 failed, 32820 passed in 861.40s =====' : '===== 8 failed, 32821 passed in 858.12s =====');
  return `${lines.join('\n')}\n`;
}

/** 08-21 failed (a gate), 08-22 ok, 08-23 failed: its suite regressed. */
function fixture(): RunnerFixture {
  const fx = createRunnerFixture();
  const night = (date: string, rc: [number, number], status: string, regressed: boolean): void => {
    fx.write(date, 'audit.status', `audit ${date}T00:00:00Z STARTED\naudit ${date}T00:30:00Z OK\n`);
    fx.write(date, 'remediate.status', `remediate ${date}T01:00:00Z STARTED\nremediate ${date}T03:00:00Z ${status}\n`);
    fx.write(date, 'remediate.battery.rc', `gates_rc=\nsuite_rc=\ngates_rc=${rc[0]}\nsuite_rc=${rc[1]}\nDONE\n`);
    fx.write(date, 'remediate.log', transcript(date, regressed));
    if (status === 'OK') fx.write(date, 'deliver.status', `deliver ${date}T04:00:00Z STARTED\ndeliver ${date}T04:30:00Z 0 PR(s), nothing to merge\n`);
    if (status === 'OK') fx.write(date, 'deliver.log', 'NIGHTLY DELIVER READY: loop=reliability prs=0\n');
  };
  night('2026-08-21', [2, 0], 'FAILED 1', false);
  night('2026-08-22', [0, 0], 'OK', false);
  night('2026-08-23', [0, 1], 'FAILED 1', true);
  return fx;
}

describe('loopdeck compare', () => {
  let fx: RunnerFixture;
  beforeAll(() => {
    fx = fixture();
  });
  const run = (...args: string[]) => loopdeck('compare', ...args, '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW);

  it('--json compares a night with the last good night before it: the first rc step and transcript line apart', async () => {
    const r = await run('reliability', '2026-08-23', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const c = NightComparisonSchema.parse(JSON.parse(r.stdout));
    expect(c).toMatchObject({ loop: 'reliability', host: 'runner', a: { date: '2026-08-23', status: 'failed' }, b: { date: '2026-08-22' }, picked: 'last-good' });
    const remediate = c.phases.find((p) => p.name === 'remediate');
    expect(remediate?.firstRcDivergence).toEqual({ stage: 'battery', step: 'suite', a: 1, b: 0 });
    expect(remediate?.firstLineDivergence).toEqual({ lineA: 122, lineB: 122, a: 'FAILED tests/test_orders.py::test_fsync - AssertionError', b: expect.stringContaining('PASSED tests/test_m120.py::test_120') });
    expect(remediate?.suites).toEqual([expect.objectContaining({ runner: 'pytest', passed: -1, failed: 1 })]);
    expect(c.phases.find((p) => p.name === 'audit')?.firstLineDivergence).toBeNull();
  });

  it('prints the two nights side by side without --json, and takes a second date', async () => {
    const r = await run('reliability', '2026-08-23', '2026-08-21');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('reliability on runner: 2026-08-23 (failed) against 2026-08-21 (failed)');
    expect(r.stdout).toContain('first rc step apart: battery › gates: 0 against 2');
    expect(r.stdout).toContain('first line apart: line 122');
    expect(r.stdout).toContain('    2026-08-23: FAILED tests/test_orders.py::test_fsync - AssertionError');
    expect(r.stdout).toContain('pytest: failed 9 (+1), passed 32820 (-1) against failed 8, passed 32821');
  });

  it('refuses an unknown loop, a night that does not exist and a missing date, naming them (exit 2), and is in the help', async () => {
    const loop = await run('nope', '2026-08-23');
    expect(loop.code).toBe(2);
    expect(loop.stderr).toContain('Unknown loop "nope": the config\'s loops are reliability.');
    const night = await run('reliability', '2026-08-23', '2026-07-04');
    expect(night.code).toBe(2);
    expect(night.stderr).toContain('Loop reliability has no night 2026-07-04: there is no folder runner:');
    const bad = await run('reliability', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"yesterday" is not a night\'s date (YYYY-MM-DD).');
    const usage = await run('reliability');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: loopdeck compare LOOP DATE [DATE]');
    const help = await loopdeck('--help');
    expect(help.stdout).toContain('loopdeck compare  LOOP DATE [DATE]');
  });
});
