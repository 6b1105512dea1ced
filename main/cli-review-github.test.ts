import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopdeckWithEnv } from '../testing/cli-run';
import { startGithubServer, type GithubServer } from '../testing/github-server';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';

// `loopdeck review --markdown` with a `github:` section: one round of asking GitHub (a real HTTP
// server on loopback with GitHub's example bodies) before it prints.

const NOW = '2026-08-24T07:00:00Z';
const TOKEN = 'ghp_cli_test_token';

describe('loopdeck review with github:', () => {
  let server: GithubServer;
  let fx: RunnerFixture;
  beforeAll(async () => {
    server = await startGithubServer(TOKEN);
    server.prs.set('acme/radon#88', { state: 'closed', merged: true, mergedBy: 'hubot', mergedAt: '2026-08-24T06:10:00Z', body: null, checks: [] });
    server.prs.set('acme/radon#89', {
      state: 'open',
      merged: false,
      body: '## Issue discovered\n- **Scanner**: no health row.\n\n## What was done to fix it\n- **Scanner**: writes one.\n\n## Next\n- **Control plane**: run the install-copy before merge.\n',
      checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }],
    });
    fx = createRunnerFixture(`github:\n  token: "env:LOOPDECK_TEST_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(server.url)}\n`);
    fx.write(
      '2026-08-24',
      'deliver.status',
      'deliver 2026-08-24T00:31:00-04:00 STARTED\ndeliver 2026-08-24T01:02:11-04:00 2 PR(s) green, ready to merge: https://127.0.0.1/acme/radon/pull/88 https://127.0.0.1/acme/radon/pull/89\n',
    );
  });
  afterAll(() => server.close());

  it('leaves the merged PR out of ready to merge and lists the open one\'s Next section before its merge', async () => {
    const r = await loopdeckWithEnv({ LOOPDECK_TEST_GITHUB_TOKEN: TOKEN }, 'review', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--since', '2026-08-23T00:00:00Z');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/## Ready to merge\n\n- reliability #89 — https:\/\/127\.0\.0\.1\/acme\/radon\/pull\/89\n\n/);
    expect(r.stdout).toContain('  - before the merge: Control plane: run the install-copy before merge.\n');
    expect(r.stdout).not.toContain(TOKEN);
    expect(server.requests.map((q) => q.path)).toContain('/repos/acme/radon/pulls/88');
  }, 60_000);
});

describe('loopdeck review --markdown with text meant to ping or reorder', () => {
  let server: GithubServer;
  let fx: RunnerFixture;
  beforeAll(async () => {
    server = await startGithubServer(TOKEN);
    server.prs.set('acme/radon#91', {
      state: 'open',
      merged: false,
      body: '## What was done to fix it\n- **Scanner**: writes one.\n\n## Next\n- **Control plane**: @acme/oncall run the install-copy \u202eegrem erofeb\u202c.\n',
      checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }],
    });
    const clone = mkdtempSync(join(tmpdir(), 'loopdeck-clone-'));
    writeFileSync(
      join(clone, 'RELIABILITY_AUDIT.md'),
      '## Delta audit 2026-08-23\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n| R-101 | P1 | safety | a.py:1 | halt bypassed |\n\n' +
        '### Backlog\n| ID | Findings | Sev | Acceptance criteria |\n|----|----------|-----|---------------------|\n| REL-050 | R-101 | P1 | the halt holds |\n',
    );
    writeFileSync(
      join(clone, 'RELIABILITY_LOG.md'),
      '# Reliability log\n\n| ID | Date | Outcome | Red/Green | Notes |\n|----|------|---------|-----------|-------|\n' +
        '| REL-050 | 2026-08-23 | BLOCKED | 1/0 | root cause: page @acme/oncall, \u202ekcom ekorb\u202c, mail ops@acme.com |\n',
    );
    fx = createRunnerFixture(
      `    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }\n` +
        `github:\n  token: "env:LOOPDECK_TEST_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(server.url)}\n`,
    );
    fx.write('2026-08-24', 'deliver.status', 'deliver 2026-08-24T00:31:00-04:00 STARTED\ndeliver 2026-08-24T01:02:11-04:00 1 PR(s) green, ready to merge: https://127.0.0.1/acme/radon/pull/91\n');
  });
  afterAll(() => server.close());

  it('puts the mentions of a ledger note and a PR Next section in code spans and shows the U+202E, its own words unchanged', async () => {
    const r = await loopdeckWithEnv({ LOOPDECK_TEST_GITHUB_TOKEN: TOKEN }, 'review', '--markdown', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--since', '2026-08-23T00:00:00Z');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## Waiting on you\n');
    expect(r.stdout).toContain(
      ' — Unblock REL-050: the loop gave up after three attempts; root cause: page `@acme/oncall`, \\\\u202ekcom ekorb\\\\u202c, mail ops@acme.com',
    );
    expect(r.stdout).toContain('  - before the merge: Control plane: `@acme/oncall` run the install-copy \\\\u202eegrem erofeb\\\\u202c.\n');
    expect(r.stdout).toContain(' — Merge \\#91: ');
    expect(r.stdout).not.toMatch(/(^|[^`])@acme\/oncall/m);
    expect(r.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  }, 60_000);
});
