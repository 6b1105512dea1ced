import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SnapshotSchema } from '../shared/domain';
import { reviewMarkdown, type ReviewSummary } from '../shared/review-summary';
import { loopdeck } from '../testing/cli-run';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';
import { databasePath } from './core/config/paths';
import { Store } from './core/store/store';

const NOW = '2026-08-24T07:00:00Z';


/** A night on the runner fixture: an incomplete remediate yesterday, a ready deliver today, a P0 and a P2 in the ledger. */
function night(): RunnerFixture {
  const clone = mkdtempSync(join(tmpdir(), 'loopdeck-clone-'));
  writeFileSync(
    join(clone, 'RELIABILITY_AUDIT.md'),
    '## Delta audit 2026-08-23\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n' +
      '| R-201 | P0 | safety | scripts/exit_orders.py:88 | exit order placed *without* the halt check |\n' +
      '| R-202 | P2 | observability | cloud/scan.timer:1 | timer writes no health row |\n',
  );
  const fx = createRunnerFixture(`    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`);
  fx.write('2026-08-23', 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41:12-04:00 OK\n');
  fx.write('2026-08-23', 'remediate.status', 'remediate 2026-08-23T01:00:00-04:00 STARTED\nremediate 2026-08-23T09:12:40-04:00 INCOMPLETE\nagent exited 0 without committing to the nightly branch\n');
  fx.write('2026-08-23', 'remediate.gates.rc', 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n');
  fx.write('2026-08-24', 'audit.status', 'audit 2026-08-24T00:00:04-04:00 STARTED\naudit 2026-08-24T00:20:00-04:00 NO-OP\n');
  fx.write('2026-08-24', 'remediate.status', 'remediate 2026-08-24T00:21:00-04:00 STARTED\nremediate 2026-08-24T00:30:00-04:00 NO-OP\n');
  fx.write(
    '2026-08-24',
    'deliver.status',
    'deliver 2026-08-24T00:31:00-04:00 STARTED\ndeliver 2026-08-24T01:02:11-04:00 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89\n',
  );
  return fx;
}

describe('loopdeck review', () => {
  let fx: RunnerFixture;
  beforeAll(() => {
    fx = night();
  });
  const flags = (): string[] => ['--config', fx.configPath, '--data', fx.dataDir, '--now', NOW];

  it('prints the Markdown summary by default, the same as the shared function gives for the snapshot', async () => {
    const r = await loopdeck('review', ...flags(), '--since', '2026-08-23T00:00:00Z');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# Loopdeck review since 2026-08-23T00:00:00.000Z\n');
    expect(r.stdout).toContain('- **reliability** on runner\n');
    expect(r.stdout).toMatch(/ {2}- 2026-08-23 · \*\*incomplete\*\* · stopped at remediate › gates › suite — .+/);
    expect(r.stdout).toMatch(/ {2}- 2026-08-24 · \*\*ready\*\* · finished at deliver/);
    expect(r.stdout).toContain('- **P0** `R-201` `scripts/exit_orders.py:88` — exit order placed \\*without\\* the halt check (reliability)\n');
    expect(r.stdout).not.toContain('R-202'); // a P2: counted, not listed
    expect(r.stdout).toContain('https://github.com/acme/radon/pull/88\n');
    expect(r.stdout).toContain('https://github.com/acme/radon/pull/89\n');
    expect(r.stdout).toMatch(/## Drills run\n\nNone\.\n/);

    // `--markdown` is the default, and the output is exactly what the UI's function renders for the snapshot.
    const explicit = await loopdeck('review', ...flags(), '--since', '2026-08-23T00:00:00Z', '--markdown');
    expect(explicit.stdout).toBe(r.stdout);
    const snap = SnapshotSchema.parse(JSON.parse((await loopdeck('snapshot', ...flags(), '--json')).stdout));
    expect(reviewMarkdown(snap, { now: Date.parse(NOW), since: '2026-08-23T00:00:00Z' })).toBe(r.stdout);
  }, 60_000);

  it('prints the summary model with --json, the window defaulting to the last review, else 24 hours', async () => {
    const first = await loopdeck('review', ...flags(), '--json');
    expect(first.code).toBe(0);
    const never = JSON.parse(first.stdout) as ReviewSummary;
    expect(never).toMatchObject({ schema: 1, since: '2026-08-23T07:00:00.000Z', sinceFrom: 'default-24h' });
    expect(never.prs.map((p) => p.url)).toEqual(['https://github.com/acme/radon/pull/88', 'https://github.com/acme/radon/pull/89']);
    expect(never.findings.items.map((f) => [f.id, f.where])).toEqual([['R-201', 'scripts/exit_orders.py:88']]);
    expect(never.findings.counts).toMatchObject({ P0: 1, P2: 1 });

    // Marked reviewed after the findings were first read: the window starts there, and they are no longer new.
    const store = Store.open(databasePath(fx.dataDir));
    try {
      store.setMeta('lastReviewedAt', '2026-08-24T08:00:00.000Z');
    } finally {
      store.close();
    }
    const after = JSON.parse((await loopdeck('review', ...flags(), '--json')).stdout) as ReviewSummary;
    expect(after).toMatchObject({ since: '2026-08-24T08:00:00.000Z', sinceFrom: 'last-review' });
    expect(after.findings.items).toEqual([]);
    expect(after.loops[0]?.cycles).toEqual([]);
    expect(after.prs).toHaveLength(2); // still waiting for a person
  }, 60_000);

  it.each([
    [['--since', 'yesterday'], /--since: expected an ISO time such as 2026-11-30T07:00:00Z, got "yesterday"/],
    [['--since'], /Option '--since <value>' argument missing/],
    [['--markdown', '--json'], /--markdown and --json: pass one of them/],
  ])('refuses %j naming the option, without a stack', async (args, message) => {
    const r = await loopdeck('review', '--config', fx.configPath, '--data', fx.dataDir, ...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
