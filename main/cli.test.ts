import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotSchema } from '../shared/domain';
import { LOOPDECK_BIN, loopdeck } from '../testing/cli-run';
import { createRunnerFixture } from '../testing/runner-fixture';
import { until } from '../testing/until';



describe('loopdeck snapshot', () => {
  it('reports the statuses FORMATS.md §2.4 implies, including where a stage stopped', async () => {
    const fx = createRunnerFixture();
    const day = '2026-08-23';
    fx.write(day, 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41:12-04:00 OK\n');
    fx.write(day, 'remediate.status', 'remediate 2026-08-23T01:00:00-04:00 STARTED\n');
    fx.write(day, 'remediate.gates.rc', 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n');
    fx.write(day, 'remediate.log', '```\nNIGHTLY PHASE NO-OP: loop=reliability phase=remediate quoted in a fence\n```\n');
    const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', '2026-08-23T09:00:00Z', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const snap = SnapshotSchema.parse(JSON.parse(r.stdout));
    expect(snap.takenAt).toBe('2026-08-23T09:00:00.000Z');
    const cycle = snap.loops[0]?.cycles[0];
    expect(cycle?.status).toBe('running');
    expect(cycle?.phases.map((p) => [p.name, p.status])).toEqual([
      ['audit', 'ok'],
      ['remediate', 'running'],
      ['deliver', 'pending'],
    ]);
    expect(cycle?.phases[0]).toMatchObject({ startedAt: '2026-08-23T04:00:04.000Z', endedAt: '2026-08-23T04:41:12.000Z', timesFrom: 'stamps' });
    expect(cycle?.phases[1]?.stages).toEqual([
      { name: 'gates', done: false, stoppedAt: 'suite', steps: [{ name: 'ast_refresh', rc: 0 }, { name: 'gates', rc: 0 }, { name: 'suite', rc: null }] },
    ]);

    // Past the cap the same evidence is incomplete, and the reason names the stage and step.
    const late = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', '2026-08-24T09:00:00Z', '--json');
    const remediate = SnapshotSchema.parse(JSON.parse(late.stdout)).loops[0]?.cycles[0]?.phases[1];
    expect(remediate?.status).toBe('incomplete');
    expect(remediate?.reason).toMatch(/gates.*suite/);
  });

  it('shows the stored findings again after a restart, before any ledger changes', async () => {
    const clone = mkdtempSync(join(tmpdir(), 'loopdeck-clone-'));
    const rows = Array.from({ length: 30 }, (_, i) => `| R-${100 + i} | P1 | resources | a.py:${i} | finding ${i} |`);
    writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), `## Delta audit 2026-08-20\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n${rows.join('\n')}\n`);
    const fx = createRunnerFixture(`    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`);
    fx.write('2026-08-23', 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\n');
    const snapshot = async () => {
      const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', '2026-08-23T09:00:00Z', '--json');
      expect(r.stderr).toBe('');
      return SnapshotSchema.parse(JSON.parse(r.stdout));
    };
    expect((await snapshot()).findings).toHaveLength(30);
    // Same data folder, nothing changed: what was stored is shown, not an empty ledger.
    expect((await snapshot()).findings).toHaveLength(30);
  });

  it('exits non-zero naming the loop when a source cannot be read', async () => {
    const fx = createRunnerFixture();
    const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--json');
    expect(r.code).toBe(0);
    const { rmSync } = await import('node:fs');
    rmSync(fx.runs, { recursive: true });
    const bad = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--json');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Loop reliability: runs folder .* does not exist on host runner/);
    expect(SnapshotSchema.parse(JSON.parse(bad.stdout)).problems[0]?.source).toBe('loops.reliability');
  });
});

describe('loopdeck check', () => {
  it('prints the same error as the UI and exits non-zero for an invalid config', async () => {
    const fx = createRunnerFixture('    grace: whenever\n');
    const r = await loopdeck('check', '--config', fx.configPath);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${fx.configPath}:9: loops.reliability.grace: expected a duration`);
  });

  it.each([
    [['check', '--bogus'], /Unknown option '--bogus'/],
    [['serve', '--port'], /Option '--port <value>' argument missing/],
    [['snapshot', '--config', '--json'], /Option '--config' argument is ambiguous/],
    [['serve', '--port', 'eighty'], /--port: expected a port number, got "eighty"/],
  ])('refuses %j naming the option, without a stack', async (args, message) => {
    const r = await loopdeck(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('accepts a valid config', async () => {
    const fx = createRunnerFixture();
    const r = await loopdeck('check', '--config', fx.configPath);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/OK — 1 host\(s\), 1 loop\(s\)/);
  });
});

describe('loopdeck watch', () => {
  it('prints each change as it lands and stops cleanly on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const fx = createRunnerFixture();
    const day = new Date().toISOString().slice(0, 10);
    fx.write(day, 'audit.status', `audit ${new Date(Date.now() - 60_000).toISOString()} STARTED\n`);
    const child = spawn(process.execPath, [LOOPDECK_BIN, 'watch', '--json', '--config', fx.configPath, '--data', fx.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: { event: string; payload: { upserted?: { phases: { name: string; status: string }[] }[] } }[] = [];
    let rest = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop() ?? '';
      for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as (typeof lines)[number]);
    });
    const auditStatus = (): string | undefined =>
      lines
        .filter((l) => l.event === 'loop.changed' && (l.payload.upserted?.length ?? 0) > 0)
        .at(-1)
        ?.payload.upserted?.[0]?.phases.find((p) => p.name === 'audit')?.status;
    try {
      await until(() => auditStatus() === 'running', 20_000, 'audit running');
      fx.append(day, 'audit.status', `audit ${new Date().toISOString()} OK\n`);
      await until(() => auditStatus() === 'ok', 20_000, 'audit ok after the append');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 40_000);
});
