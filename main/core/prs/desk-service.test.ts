import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { startGithubServer, type GithubServer } from '../../../testing/github-server';
import { fakeHandlers } from '../../../testing/fake-handlers';
import { dispatch } from '../../rpc/dispatch';
import { parseConfig } from '../config/load-config';
import { composeEngine } from '../session/core';
import { Store } from '../store/store';
import type { Engine } from '../engine';

// The merge desk against a GitHub stand-in speaking the documented REST API (pulls list with
// head, pull, files, reviews, check runs, statuses, merge with `sha`): what it lists, what it marks,
// and the merge refused until every check passed, every Next step is ticked and the head is the
// one the operator saw.

const DAY = '2026-11-29';
const NOW = new Date('2026-12-02T12:00:00Z');
const TOKEN = 'ghp_desk_test_token';
const PR88 = 'https://127.0.0.1/acme/radon/pull/88';
const NEXT = '## Next\n- **Control plane**: run the install-copy before merge.\n- **Keys**: rotate the broker credential.\n';
const OPERATOR = { user: 'ana', role: 'operator', via: 'oidc' } as const;

describe('the merge desk', () => {
  let server: GithubServer;
  let engine: Engine;
  let config: ReturnType<typeof parseConfig>;
  let fx: ReturnType<typeof createRunnerFixture>;
  const dbPath = join(mkdtempSync(join(tmpdir(), 'loopdeck-desk-')), 'deck.db');
  beforeAll(async () => {
    server = await startGithubServer(TOKEN);
    server.prs.set('acme/radon#88', {
      state: 'open', merged: false, body: `Fixes REL-050.\n\n${NEXT}`, title: 'reliability: REL-050 shrink the pool', author: 'loop-bot', head: `reliability/${DAY}`, base: 'main',
      createdAt: `${DAY}T04:30:00Z`, additions: 120, deletions: 30, files: ['pool.py', 'gates.sh'], checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'failure', url: 'https://127.0.0.1/acme/radon/runs/1' }],
    });
    server.prs.set('acme/radon#91', { state: 'open', merged: false, body: null, title: 'reliability: REL-044', head: 'reliability/2026-12-01', createdAt: '2026-12-01T05:00:00Z', files: ['gates.sh'], checks: [] });
    server.prs.set('acme/radon#95', { state: 'open', merged: false, body: null, title: 'a feature', head: 'feature/x', createdAt: '2026-12-01T05:00:00Z', files: ['pool.py'], checks: [] });
    fx = createRunnerFixture();
    writeFileSync(fx.configPath, `${readFileSync(fx.configPath, 'utf8')}    repo: acme/radon\ngithub:\n  token: "env:LOOPDECK_TEST_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(server.url)}\n`);
    fx.write(DAY, 'deliver.status', `deliver ${DAY}T04:00:00Z STARTED\ndeliver ${DAY}T04:30:00Z 1 PR(s) green, ready to merge: ${PR88}\n`);
    fx.write(DAY, 'deliver.log', `NIGHTLY DELIVER READY: loop=reliability prs=1 ${PR88}\n`);
    config = parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8'));
    engine = composeEngine(config, { store: Store.open(dbPath), now: () => NOW, githubEnv: { LOOPDECK_TEST_GITHUB_TOKEN: TOKEN } });
    await engine.poll();
    await engine.desk.pollOnce();
  }, 30_000);
  afterAll(async () => {
    await engine?.close();
    server?.close();
  });

  const pr = (n: number) => engine.desk.list().find((p) => p.number === n);

  it('lists the open PRs whose head is the loop\'s branch, with title, size, checks by name, age, staleness, overlaps and what went red after READY', () => {
    expect(engine.desk.list().map((p) => p.number)).toEqual([91, 88]);
    expect(pr(88)).toMatchObject({
      title: 'reliability: REL-050 shrink the pool', author: 'loop-bot', additions: 120, deletions: 30, changedFiles: 2, cycle: DAY, ids: ['REL-050'],
      checks: [{ name: 'suite', state: 'failing', url: 'https://127.0.0.1/acme/radon/runs/1' }], ageHours: 79.5, stale: true, large: false, overlaps: [91], redAfterReady: true, canWrite: true,
    });
    expect(pr(88)?.next.map((s) => [s.text, s.doneBy])).toEqual([['Control plane: run the install-copy before merge.', null], ['Keys: rotate the broker credential.', null]]);
    expect(pr(91)).toMatchObject({ stale: false, overlaps: [88], cycle: '2026-12-01' });
  });

  it('refuses a viewer\'s merge on the server, whatever the button showed', async () => {
    const viewer = { user: 'val', role: 'viewer', via: 'oidc' } as const;
    const answer = await dispatch(fakeHandlers(), 'prs.merge', { loop: 'reliability', number: 88, sha: pr(88)?.headSha }, viewer);
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403 } });
  });

  it('refuses an operator\'s merge while a check fails, a Next step is unticked or the head moved; merges the head seen once all hold', async () => {
    const seen = pr(88)?.headSha ?? '';
    await expect(engine.desk.merge('reliability', 88, seen, undefined, OPERATOR.user)).rejects.toThrow(/a check has not passed: suite \(failing\)/);
    // Green now; the Next steps are still open.
    const fake = server.prs.get('acme/radon#88');
    if (fake) fake.checks = [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }];
    await engine.desk.pollOnce();
    await expect(engine.desk.merge('reliability', 88, seen, undefined, OPERATOR.user)).rejects.toThrow(/2 Next steps are not ticked: 1, 2/);
    expect(engine.desk.nextDone('reliability', 88, 0, OPERATOR.user)).toEqual({ doneBy: 'ana', doneAt: NOW.toISOString() });
    engine.desk.nextDone('reliability', 88, 1, 'ben');
    expect(pr(88)?.next.map((s) => s.doneBy)).toEqual(['ana', 'ben']);
    expect(() => engine.desk.nextDone('reliability', 88, 2, 'ana')).toThrow(/has no Next step 2/);
    // The head moves on GitHub after the review: GitHub's own precondition refuses it, as it said it.
    if (fake) fake.sha = 'f'.repeat(40);
    await expect(engine.desk.merge('reliability', 88, seen, undefined, OPERATOR.user)).rejects.toThrow(/GitHub refused the merge of PR #88: Head branch was modified/);
    // Once Loopdeck has seen the new head, the old one is refused before GitHub is asked.
    await engine.desk.pollOnce();
    await expect(engine.desk.merge('reliability', 88, seen, undefined, OPERATOR.user)).rejects.toThrow(/moved since you saw it/);
    expect(server.merges).toEqual([]);
    // The new head, green, every step ticked: merged, with the sha, recorded.
    const merged = await engine.desk.merge('reliability', 88, 'f'.repeat(40), 'squash', OPERATOR.user);
    expect(merged).toEqual({ by: 'ana', at: NOW.toISOString(), sha: 'f'.repeat(40), method: 'squash' });
    expect(server.merges.map((m) => [m.key, m.sha, m.method])).toEqual([['acme/radon#88', 'f'.repeat(40), 'squash']]);
    expect(pr(88)?.merged).toEqual(merged);
    // GitHub's open list drops it; the desk keeps it, merged, saying by whom (the Review shows it).
    await engine.desk.pollOnce();
    await engine.desk.pollOnce();
    expect(pr(88)).toMatchObject({ state: 'merged', merged });
  });

  it('keeps a PR merged from the console on the desk after a restart, with its card as merged, for a week', async () => {
    // A second core on the same database: nothing of the first one's memory, GitHub's open list
    // without #88, and no verdict naming it (the deliver record rewritten) — only the stored merge.
    fx.write(DAY, 'deliver.log', 'NIGHTLY DELIVER INCOMPLETE: loop=reliability prs=0\n');
    fx.write(DAY, 'deliver.status', `deliver ${DAY}T04:00:00Z STARTED\ndeliver ${DAY}T04:30:00Z INCOMPLETE\n`);
    const later = composeEngine(config, { store: Store.open(dbPath), now: () => new Date(NOW.getTime() + 6 * 86_400_000), githubEnv: { LOOPDECK_TEST_GITHUB_TOKEN: TOKEN } });
    try {
      await later.poll();
      await later.desk.pollOnce();
      const kept = later.desk.list().find((p) => p.number === 88);
      expect(kept).toMatchObject({ state: 'merged', title: 'reliability: REL-050 shrink the pool', additions: 120, merged: { by: 'ana', sha: 'f'.repeat(40), method: 'squash' } });
    } finally {
      await later.close();
    }
    const weekLater = composeEngine(config, { store: Store.open(dbPath), now: () => new Date(NOW.getTime() + 8 * 86_400_000), githubEnv: { LOOPDECK_TEST_GITHUB_TOKEN: TOKEN } });
    try {
      await weekLater.desk.pollOnce();
      expect(weekLater.desk.list().map((p) => p.number)).not.toContain(88);
    } finally {
      await weekLater.close();
    }
  });
});
