import { afterEach, describe, expect, it } from 'vitest';
import { GithubApi, type PrRef } from '../prs/github/github-api';
import { deadmanComment, DEMO_REPO, demoIssue, demoPulls } from './demo-pulls';
import { startGithubSim, type GithubSim } from './github-sim';

// The demo's GitHub stand-in, asked through Loopdeck's own GitHub client (Octokit over real HTTP).

const TOKEN = 'ghs_demo_sim_test';
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const days = Array.from({ length: 6 }, (_, i) => new Date(today - (6 - i) * DAY));

describe('the demo GitHub stand-in', () => {
  let sim: GithubSim | null = null;
  const stop = new AbortController();
  afterEach(async () => {
    await sim?.close();
    sim = null;
  });
  const client = (s: GithubSim, token = TOKEN): GithubApi => new GithubApi({ token, apiUrl: s.url, timeoutMs: 10_000, now: Date.now, stop: stop.signal });
  const ref = (number: number): PrRef => ({ owner: 'acme', repo: 'radon', number });

  it('lists the open PRs with heads, titles and authors, and answers one PR with its size and mergeable state', async () => {
    sim = await startGithubSim({ token: TOKEN, repo: DEMO_REPO, prs: demoPulls(days) });
    const api = client(sim);
    const list = await api.openPulls('acme', 'radon', null);
    if (list.kind !== 'data') throw new Error(`list: ${JSON.stringify(list)}`);
    // #80 is merged: not in the open list; newest first.
    expect(list.data.map((p) => p.number)).toEqual([91, 90, 88, 81]);
    const first = list.data[0];
    expect(first?.head.ref).toBe(`reliability/${days[5]?.toISOString().slice(0, 10)}`);
    expect(first?.title).toMatch(/REL-103/);
    expect(first?.user?.login).toBe('reliability-bot');
    expect(first?.base.ref).toBe('main');
    expect(first?.body).toContain('## Next');
    const pull = await api.pull(ref(81), null);
    if (pull.kind !== 'data') throw new Error(`pull: ${JSON.stringify(pull)}`);
    expect(pull.data).toMatchObject({ state: 'open', merged: false, mergeable_state: 'clean', changed_files: 64, merged_by: null });
    const merged = await api.pull(ref(80), null);
    expect(merged.kind === 'data' && merged.data).toMatchObject({ state: 'closed', merged: true, merged_by: { login: 'maria-ops' } });
    const perms = await api.repoPermissions('acme', 'radon', null);
    expect(perms.kind === 'data' && perms.data.permissions?.push).toBe(true);
  });

  it("answers a PR's files paged, its reviews, and its head's statuses and check runs with their links", async () => {
    sim = await startGithubSim({ token: TOKEN, repo: DEMO_REPO, prs: demoPulls(days) });
    const api = client(sim);
    const files = await api.pullFiles(ref(81), 1, null);
    const more = await api.pullFiles(ref(81), 2, null);
    expect(files.kind === 'data' && files.data.length).toBe(64);
    expect(more.kind === 'data' && more.data.length).toBe(0);
    const reviews = await api.reviews(ref(90), null);
    expect(reviews.kind === 'data' && reviews.data.map((r) => r.state)).toEqual(['APPROVED']);
    const sha = sim.pr(91)?.sha ?? '';
    const status = await api.status(ref(91), sha, null);
    const runs = await api.checkRuns(ref(91), sha, null);
    if (status.kind !== 'data' || runs.kind !== 'data') throw new Error('checks');
    expect(status.data.statuses.map((s) => [s.context, s.state])).toEqual([['ci/test', 'success']]);
    expect(status.data.statuses[0]?.target_url).toMatch(/^https:\/\/github\.com\/acme\/radon\/pull\/91\//);
    expect(runs.data.check_runs.map((r) => [r.name, r.conclusion])).toEqual([
      ['ci/lint', 'success'],
      ['e2e/smoke', 'failure'],
    ]);
    expect(runs.data.check_runs[1]?.html_url).toMatch(/^https:\/\/github\.com\/acme\/radon\/pull\/91\//);
  });

  it('answers 304 to an If-None-Match that still holds, and new data once the PR changed', async () => {
    sim = await startGithubSim({ token: TOKEN, repo: DEMO_REPO, prs: demoPulls(days) });
    const api = client(sim);
    const first = await api.openPulls('acme', 'radon', null);
    if (first.kind !== 'data' || !first.etag) throw new Error('no etag');
    expect((await api.openPulls('acme', 'radon', first.etag)).kind).toBe('not-modified');
    const sha = sim.pr(88)?.sha ?? '';
    const status = await api.status(ref(88), sha, null);
    if (status.kind !== 'data') throw new Error('status');
    expect((await api.status(ref(88), sha, status.etag)).kind).toBe('not-modified');
    sim.setChecks(88, [{ kind: 'status', name: 'ci/test', state: 'success' }]);
    expect((await api.status(ref(88), sha, status.etag)).kind).toBe('data');
  });

  it('refuses a merge of a head that moved (409), merges the head it has (200), then answers the PR merged and refuses it again (405)', async () => {
    sim = await startGithubSim({ token: TOKEN, repo: DEMO_REPO, prs: demoPulls(days), login: 'ops' });
    const api = client(sim);
    const sha = sim.pr(90)?.sha ?? '';
    expect(await api.merge(ref(90), 'f'.repeat(40), 'merge')).toEqual({ kind: 'refused', status: 409, message: 'Head branch was modified. Review and try the merge again.' });
    expect(sim.pr(90)?.merged).toBe(false);
    expect(await api.merge(ref(90), sha, 'merge')).toMatchObject({ kind: 'merged' });
    const pull = await api.pull(ref(90), null);
    expect(pull.kind === 'data' && pull.data).toMatchObject({ state: 'closed', merged: true, merged_by: { login: 'ops' } });
    expect(await api.merge(ref(90), sha, 'merge')).toMatchObject({ kind: 'refused', status: 405 });
    const list = await api.openPulls('acme', 'radon', null);
    expect(list.kind === 'data' && list.data.map((p) => p.number)).not.toContain(90);
    // #88's ci/test fails and is required: GitHub will not merge it.
    expect(await api.merge(ref(88), sim.pr(88)?.sha ?? '', 'merge')).toMatchObject({ kind: 'refused', status: 405, message: 'Pull Request is not mergeable' });
  });

  it('answers 401 to any other token, and 404 for another repository', async () => {
    sim = await startGithubSim({ token: TOKEN, repo: DEMO_REPO, prs: demoPulls(days) });
    const wrong = await client(sim, 'ghp_someone_else').openPulls('acme', 'radon', null);
    expect(wrong).toMatchObject({ kind: 'failed', failure: { kind: 'unauthorized' } });
    const res = await fetch(`${sim.url}/repos/acme/radon/pulls`);
    expect(res.status).toBe(401);
    expect(await client(sim).openPulls('acme', 'other', null)).toEqual({ kind: 'failed', failure: { kind: 'not-found' } });
  });

  it("answers the rolling issue by its label and its comments since a time, oldest first, paged", async () => {
    sim = await startGithubSim({ token: TOKEN, repo: DEMO_REPO, prs: [], issue: demoIssue(new Date(today - 30 * DAY)) });
    const api = client(sim);
    for (const line of ['deliver 2026-12-01T08:02:00+00:00 2 PR(s) green', 'audit 2026-12-01T00:41:00+00:00 OK', 'audit 2026-12-01T00:00:00+00:00 STARTED']) {
      const c = deadmanComment(line);
      if (c) sim.comment(c.at, c.body);
    }
    const issues = await api.openIssues('acme', 'radon', 'reliability-nightly', null);
    expect(issues.kind === 'data' && issues.data.map((i) => i.number)).toEqual([12]);
    const other = await api.openIssues('acme', 'radon', 'something-else', null);
    expect(other.kind === 'data' && other.data).toEqual([]);
    const all = await api.comments('acme', 'radon', 12, '2026-11-30T00:00:00Z', 1, null);
    // A STARTED line asks for no comment; the others come oldest first.
    expect(all.kind === 'data' && all.data.map((c) => c.created_at)).toEqual(['2026-12-01T00:41:00Z', '2026-12-01T08:02:00Z']);
    const since = await api.comments('acme', 'radon', 12, '2026-12-01T01:00:00Z', 1, null);
    expect(since.kind === 'data' && since.data.map((c) => c.created_at)).toEqual(['2026-12-01T08:02:00Z']);
    expect(await api.comments('acme', 'radon', 13, '2026-11-30T00:00:00Z', 1, null)).toEqual({ kind: 'failed', failure: { kind: 'not-found' } });
  });
});
