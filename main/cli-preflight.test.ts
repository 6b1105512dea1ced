import { describe, expect, it } from 'vitest';
import { PreflightSchema } from '../shared/preflight';
import { loopdeck } from '../testing/cli-run';
import { createRunnerFixture } from '../testing/runner-fixture';

describe('loopdeck preflight', () => {
  it('prints each check, exits 0 when every loop is ready and 1 when one is at risk; --json prints the results', async () => {
    // A ready night: the runs folder is there with room, nothing runs, no fleet or drills to check.
    const fx = createRunnerFixture('    preflightDisk: 1MB\n');
    const flags = ['--config', fx.configPath, '--data', fx.dataDir];
    const ready = await loopdeck('preflight', ...flags, '--json');
    expect(ready.stderr).toBe('');
    expect(ready.code).toBe(0);
    const [p] = PreflightSchema.array().parse(JSON.parse(ready.stdout));
    expect(p?.loop).toBe('reliability');
    expect(p?.state).toBe('ready');
    expect(p?.checks.map((c) => c.name)).toEqual(['host', 'disk', 'previous-cycle', 'drills']);

    // The previous cycle is still in remediate: tonight's run would overrun.
    const started = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, '+00:00');
    fx.write(started.slice(0, 10), 'remediate.status', `remediate ${started} STARTED\n`);
    const atRisk = await loopdeck('preflight', 'reliability', ...flags, '--json');
    expect(atRisk.code).toBe(1);
    const [r] = PreflightSchema.array().parse(JSON.parse(atRisk.stdout));
    expect(r?.state).toBe('at-risk');
    expect(r?.checks.find((c) => c.name === 'previous-cycle')?.status).toBe('fail');

    const text = await loopdeck('preflight', ...flags);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^reliability: at risk for the \S+ fire \(checked \S+\)\n {2}ok {3}host: host runner is connected\n/);
    expect(text.stdout).toContain(`  FAIL previous cycle: cycle ${started.slice(0, 10)} is still running (remediate since `);
  }, 60_000);

  it('names an unknown loop and exits 2', async () => {
    const fx = createRunnerFixture();
    const out = await loopdeck('preflight', 'nightly', '--config', fx.configPath, '--data', fx.dataDir);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe('loopdeck: No loop named nightly in the config (loops: reliability).\n');
  }, 30_000);
});
