import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopdeck, loopdeckWithEnv } from '../testing/cli-run';
import { shaOf, startGithubServer, type GithubServer } from '../testing/github-server';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';

// `loopdeck prs` and `loopdeck merge` against the GitHub stand-in (a real HTTP server on loopback
// speaking the documented REST API): the desk listed after one read of the runner and one round of
// asking GitHub, and a merge refused until the desk and GitHub would make it, then made with the
// head the operator reviewed.

const NOW = '2026-08-24T07:00:00Z';
const TOKEN = 'ghp_cli_desk_token';
const RUN = 'https://127.0.0.1/acme/radon/runs/7';

describe('loopdeck prs and loopdeck merge with github:', () => {
  let server: GithubServer;
  let fx: RunnerFixture;
  const cli = (...args: string[]) => loopdeckWithEnv({ LOOPDECK_TEST_GITHUB_TOKEN: TOKEN }, ...args, '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW);
  beforeAll(async () => {
    server = await startGithubServer(TOKEN);
    // Open four days: stale (prs.staleAfter is 2 days); it and #91 touch gates.sh.
    server.prs.set('acme/radon#88', {
      state: 'open', merged: false, body: 'Fixes REL-050.', title: 'reliability: REL-050 shrink the pool', head: 'reliability/2026-08-20', base: 'main',
      createdAt: '2026-08-20T05:00:00Z', additions: 120, deletions: 30, files: ['pool.py', 'gates.sh'],
      checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'failure', url: RUN }],
    });
    server.prs.set('acme/radon#91', {
      state: 'open', merged: false, body: null, title: 'reliability: REL-044 gate the deploy', head: 'reliability/2026-08-23', base: 'release',
      createdAt: '2026-08-23T05:00:00Z', additions: 12, deletions: 4, files: ['gates.sh'],
      checks: [{ kind: 'status', context: 'ci/lint', state: 'success', url: 'https://127.0.0.1/acme/radon/status/1' }],
    });
    server.prs.set('acme/radon#93', {
      state: 'open', merged: false, body: null, title: 'reliability: REL-061 docs \u202etxt.exe', head: 'reliability/2026-08-24', createdAt: '2026-08-24T05:00:00Z',
      additions: 3, deletions: 0, files: ['docs.md'], checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }],
    });
    fx = createRunnerFixture(`    repo: acme/radon\ngithub:\n  token: "env:LOOPDECK_TEST_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(server.url)}\n`);
    fx.write('2026-08-24', 'deliver.status', 'deliver 2026-08-24T00:31:00-04:00 STARTED\n');
  });
  afterAll(() => server.close());

  it('prs --json lists each open PR with its size, checks (name, state, link), age, staleness and the PRs touching the same files', async () => {
    const r = await cli('prs', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(list.map((p) => p.number)).toEqual([93, 91, 88]);
    const pr = (n: number) => list.find((p) => p.number === n);
    expect(pr(88)).toMatchObject({
      loop: 'reliability', state: 'open', title: 'reliability: REL-050 shrink the pool', url: 'https://127.0.0.1/acme/radon/pull/88', headSha: shaOf('acme/radon#88'),
      additions: 120, deletions: 30, changedFiles: 2, checks: [{ name: 'suite', state: 'failing', link: RUN }], ageHours: 98, stale: true, overlaps: [91], next: [], merged: null,
    });
    expect(pr(91)).toMatchObject({ changedFiles: 1, checks: [{ name: 'ci/lint', state: 'passing', link: 'https://127.0.0.1/acme/radon/status/1' }], ageHours: 26, stale: false, overlaps: [88] });
    expect(pr(93)).toMatchObject({ ageHours: 2, stale: false, overlaps: [] });
    expect((pr(88)?.checks as object[])[0]).not.toHaveProperty('url');
    expect(r.stdout).not.toContain(TOKEN);
  }, 60_000);

  it('prs prints a table: number, loop, state, title, size, files, checks, age and the marks to look at', async () => {
    const r = await cli('prs', 'reliability');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const row = r.stdout.split('\n').find((l) => l.startsWith('#88 '));
    expect(row).toMatch(/^#88 +reliability +open +reliability: REL-050 shrink the pool +\+120\/−30 +2 +0\/1 passing \(failing: suite\) +4\.1 d +stale, overlaps #91 +—$/);
    expect(r.stdout).toMatch(/^#91 .* overlaps #88 /m);
    expect(r.stdout).toContain('#88 https://127.0.0.1/acme/radon/pull/88');
    // A title GitHub gave cannot reorder the terminal: its U+202E is shown as text.
    expect(r.stdout).toMatch(/^#93 .* reliability: REL-061 docs \\u202etxt\.exe /m);
    expect(r.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  }, 60_000);

  it('prs refuses a loop the config does not declare, naming the ones it does', async () => {
    const r = await cli('prs', 'nightly', '--json');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown loop "nightly": the config\'s loops are reliability.');
  }, 60_000);

  it('merge refuses without --yes when there is no terminal to confirm in, before asking GitHub', async () => {
    const before = server.requests.length;
    const r = await cli('merge', 'reliability', '93', '--sha', shaOf('acme/radon#93'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Pass --yes to merge PR #93 of reliability');
    expect(server.requests.length).toBe(before);
    expect(server.merges).toEqual([]);
  }, 60_000);

  it('merge refuses a PR whose check failed, saying which (exit 1)', async () => {
    const r = await cli('merge', 'reliability', '88', '--sha', shaOf('acme/radon#88'), '--yes');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PR #88 of reliability: reliability: REL-050 shrink the pool');
    expect(r.stderr).toContain('Not merged: PR #88 of reliability cannot be merged from the console now: a check has not passed: suite (failing).');
    expect(server.merges).toEqual([]);
  }, 60_000);

  it('merge refuses a sha other than the head, and one that is not a commit', async () => {
    const wrong = 'a'.repeat(40);
    const r = await cli('merge', 'reliability', '91', '--sha', wrong, '--yes');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Not merged: PR #91 moved since you saw it (you saw ${wrong.slice(0, 10)}, its head is now ${shaOf('acme/radon#91').slice(0, 10)})`);
    const bad = await cli('merge', 'reliability', '91', '--sha', 'abc123', '--yes');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--sha: expected the head commit\'s 40 hex digits, got "abc123"');
    const none = await cli('merge', 'reliability', '91', '--yes');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--sha: required');
    expect(server.merges).toEqual([]);
  }, 60_000);

  it('merge shows the PR and merges the head reviewed once its checks are green and it has no Next section, as the local account', async () => {
    const sha = shaOf('acme/radon#91');
    const r = await cli('merge', 'reliability', '91', '--sha', sha, '--method', 'squash', '--yes');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  into release from reliability/2026-08-23, head ${sha}\n  size: +12/−4 in 1 file(s)\n  checks: 1/1 passing\n`);
    expect(r.stdout).toContain(`merged #91 (${sha}, squash) by ${userInfo().username}\n`);
    expect(server.merges.map((m) => [m.key, m.sha, m.method])).toEqual([['acme/radon#91', sha, 'squash']]);
    // The desk says so on the next read: #91 is gone from GitHub's open PRs, #88 overlaps nothing open now.
    const after = JSON.parse((await cli('prs', '--json')).stdout) as { number: number; overlaps: number[] }[];
    expect(after.find((p) => p.number === 88)?.overlaps).toEqual([]);
  }, 60_000);

  it('prs exits 1 naming GitHub when it could not be asked', async () => {
    server.failing = 502;
    try {
      const r = await cli('prs', '--json');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^loopdeck prs: .*502/m);
    } finally {
      server.failing = null;
    }
  }, 60_000);
});

describe('loopdeck prs and merge without github:', () => {
  const fx = createRunnerFixture();
  const args = ['--config', fx.configPath, '--data', fx.dataDir];

  it('prs says the config has no github: section, naming the keys to add, and exits 1; --json prints []', async () => {
    const r = await loopdeck('prs', ...args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`loopdeck prs: ${fx.configPath} has no github: section`);
    expect(r.stderr).toContain('loops.<name>.repo');
    const j = await loopdeck('prs', '--json', ...args);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual([]);
    expect(j.stderr).toBe(r.stderr);
  }, 60_000);

  it('merge says the same and exits 1', async () => {
    const r = await loopdeck('merge', 'reliability', '88', '--sha', 'b'.repeat(40), '--yes', ...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`loopdeck merge: ${fx.configPath} has no github: section`);
  }, 60_000);
});
