import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PullRequest } from '../../../../shared/domain';
import { reviewMarkdown } from '../../../../shared/review-summary';
import { waitingOnYou } from '../../../../shared/waiting';
import { shaOf, startGithubServer, type FakePr, type GithubServer } from '../../../../testing/github-server';
import { createRunnerFixture, type RunnerFixture } from '../../../../testing/runner-fixture';
import { holdsWithin, until } from '../../../../testing/until';
import { parseConfig } from '../../config/load-config';
import { type Engine } from '../../engine';
import { Store } from '../../store/store';
import { composeEngine } from '../../session/core';

// PR state from GitHub through the engine, against a real HTTP server on loopback that answers
// with GitHub's documented example bodies (testing/github-server.ts).

const NOW = new Date('2026-08-24T07:00:00Z');
const TOKEN = 'ghp_test_token_never_shown';
const BODY_WITH_NEXT = [
  '## Issue discovered',
  '- **Exit orders**: an exit order was placed without the halt check.',
  '',
  '## What was done to fix it',
  '- **Exit orders**: the halt check now guards every exit order.',
  '',
  '## Next',
  '- **Control plane**: run `bootstrap-control-plane.sh` install-copy as root before merge.',
  '- **Credentials**: rotate the IB gateway password in the vault.',
  '',
].join('\n');

const open = (over: Partial<FakePr> = {}): FakePr => ({ state: 'open', merged: false, body: 'No Next here.', checks: [{ kind: 'status', context: 'ci/test', state: 'success' }], ...over });

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

interface Rig {
  readonly fx: RunnerFixture;
  readonly server: GithubServer;
  readonly engine: Engine;
  prs(): readonly PullRequest[];
  pr(n: number): PullRequest | undefined;
}

/** A loop whose deliver phase names PRs `numbers` on the test server's host (and #77 on github.com), with a `github:` section. */
async function rig(
  numbers: number[],
  fakes: Record<number, FakePr>,
  github: { token?: string; every?: string; timeout?: string; env?: NodeJS.ProcessEnv; server?: GithubServer; store?: Store; afterPoll?: () => void } = {},
): Promise<Rig> {
  const server = github.server ?? (await startGithubServer(TOKEN));
  if (!github.server) cleanups.push(() => server.close());
  for (const [n, pr] of Object.entries(fakes)) server.prs.set(`acme/radon#${n}`, pr);
  const token = github.token ?? 'env:LOOPDECK_TEST_GITHUB_TOKEN';
  const fx = createRunnerFixture(
    `github:\n  ${token === 'none' ? '' : `token: ${JSON.stringify(token)}\n  `}apiUrl: ${JSON.stringify(server.url)}\n  every: ${github.every ?? '5m'}\n  timeout: ${github.timeout ?? '5s'}\n`,
  );
  const urls = [...numbers.map((n) => `https://127.0.0.1/acme/radon/pull/${n}`), 'https://github.com/acme/radon/pull/77'];
  fx.write('2026-08-24', 'deliver.status', `deliver 2026-08-24T00:31:00-04:00 STARTED\ndeliver 2026-08-24T01:02:11-04:00 ${urls.length} PR(s) green, ready to merge: ${urls.join(' ')}\n`);
  const config = parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8'));
  const store = github.store ?? Store.open(':memory:');
  const engine = composeEngine(config, { store, now: () => NOW, githubEnv: github.env ?? { LOOPDECK_TEST_GITHUB_TOKEN: TOKEN }, ...(github.afterPoll ? { afterPoll: github.afterPoll } : {}) });
  cleanups.push(async () => {
    await engine.close();
    if (!github.store) store.close();
  });
  await engine.poll();
  const prs = (): readonly PullRequest[] => engine.snapshot().prs;
  return { fx, server, engine, prs, pr: (n) => prs().find((p) => p.number === n) };
}

const pullRequests = (s: GithubServer, n: number) => s.requests.filter((r) => r.path === `/repos/acme/radon/pulls/${n}`);

describe('PR state from GitHub', () => {
  it("GitHub's news of a PR wakes the engine's own schedule (its notices follow at once), and the poll it wakes wakes no other", async () => {
    let polls = 0;
    const { engine, pr } = await rig([88], { 88: open({ state: 'closed', merged: true }) }, { afterPoll: () => polls++ });
    // Its own schedule with a timer ten minutes away: only a wake polls within the waits below.
    engine.run({ intervalMs: 600_000 });
    await until(() => polls >= 2, 10_000, 'the schedule\'s first poll');
    const before = polls;
    engine.start();
    await until(() => pr(88)?.github?.state === 'merged', 5_000, '#88 read from GitHub');
    await until(() => polls > before, 5_000, 'a poll woken by GitHub\'s news');
    const after = polls;
    // That poll publishes the PRs itself, which wakes nothing more.
    expect(await holdsWithin(() => polls > after, 1_000)).toBe(false);
  });

  it('shows merged (by whom, when) and closed PRs out of ready-to-merge, the checks of open ones, and the Next section as the pre-merge actions', async () => {
    const { server, engine, pr, prs } = await rig([88, 89, 90, 91, 92], {
      88: { state: 'closed', merged: true, mergedBy: 'hubot', mergedAt: '2026-08-24T06:10:00Z', body: BODY_WITH_NEXT, checks: [] },
      89: { state: 'closed', merged: false, closedAt: '2026-08-24T06:20:00Z', body: null, checks: [] },
      90: open({ checks: [{ kind: 'status', context: 'ci/test', state: 'failure' }, { kind: 'run', name: 'lint', status: 'completed', conclusion: 'success' }] }),
      91: open({ checks: [{ kind: 'run', name: 'build', status: 'in_progress', conclusion: null }] }),
      92: open({ body: BODY_WITH_NEXT, checks: [{ kind: 'status', context: 'ci/test', state: 'success' }, { kind: 'run', name: 'e2e', status: 'completed', conclusion: 'success' }] }),
    });
    // Before GitHub answers, the loop's word stands: all six ready.
    expect(prs().filter((p) => p.status === 'ready')).toHaveLength(6);
    await engine.github?.pollOnce();

    expect(pr(88)).toMatchObject({ status: 'merged', since: '2026-08-24T06:10:00Z', github: { state: 'merged', mergedBy: 'hubot', mergedAt: '2026-08-24T06:10:00Z' } });
    expect(pr(89)).toMatchObject({ status: 'closed', since: '2026-08-24T06:20:00Z', github: { state: 'closed', mergedBy: null } });
    expect(pr(90)?.github).toMatchObject({ state: 'open', checks: 'failing', checkNames: ['ci/test'] });
    expect(pr(91)?.github).toMatchObject({ state: 'open', checks: 'pending', checkNames: ['build'] });
    expect(pr(92)?.github).toMatchObject({ state: 'open', checks: 'passing', next: ['Control plane: run `bootstrap-control-plane.sh` install-copy as root before merge.', 'Credentials: rotate the IB gateway password in the vault.'] });
    // A PR on another host than the configured GitHub's is not asked about.
    expect(pr(77)?.github).toBeUndefined();
    expect(server.requests.some((r) => r.path.includes('/77'))).toBe(false);
    expect(server.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);

    // "Waiting on you": the merged and closed PRs no longer wait; #92's Next is what to do first.
    const snap = engine.snapshot();
    const waiting = waitingOnYou(snap, NOW.getTime()).filter((w) => w.kind === 'pr');
    expect(waiting.map((w) => w.id).sort()).toEqual(['77', '90', '91', '92']);
    const w92 = waiting.find((w) => w.id === '92');
    expect(w92?.before).toEqual(pr(92)?.github?.next);
    expect(waiting.find((w) => w.id === '90')?.action).toContain('GitHub now shows checks failing (ci/test)');
    const md = reviewMarkdown(snap, { now: NOW.getTime(), since: '2026-08-23T00:00:00Z' });
    expect(md).toContain('before the merge: Credentials: rotate the IB gateway password in the vault.');
    expect(md).toMatch(/^- reliability #92 — /m);
    expect(md).not.toMatch(/^- reliability #8[89] /m);
    // The token is a secret: not in the state any client sees.
    expect(JSON.stringify(snap)).not.toContain(TOKEN);

    // The next round: merged and closed PRs are never asked again; the open ones conditionally (304).
    const before = server.requests.length;
    await engine.github?.pollOnce();
    const again = server.requests.slice(before);
    expect(pullRequests(server, 88)).toHaveLength(1);
    expect(pullRequests(server, 89)).toHaveLength(1);
    expect(again.length).toBe(9);
    expect(again.every((r) => r.status === 304 && r.ifNoneMatch !== undefined)).toBe(true);

    // #90 is merged on GitHub: the next round sees it.
    server.prs.set('acme/radon#90', { ...open(), state: 'closed', merged: true, mergedBy: 'octocat', mergedAt: '2026-08-24T06:55:00Z' });
    await engine.github?.pollOnce();
    expect(pr(90)).toMatchObject({ status: 'merged', github: { mergedBy: 'octocat' } });
  });

  it('a PR not visible (404) says so on the PR while the others are read; a slow answer is given up, the others still updated', async () => {
    const { engine, pr } = await rig([93, 94, 95], {
      93: open({ fail: 404 }),
      94: open({ body: BODY_WITH_NEXT }),
      95: open({ delayMs: 10_000 }),
    }, { timeout: '2s' });
    const started = Date.now();
    await engine.github?.pollOnce();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(pr(93)?.github?.problem).toMatch(/404 for acme\/radon#93: not visible with this token/);
    expect(pr(93)?.status).toBe('ready');
    expect(pr(94)?.github).toMatchObject({ state: 'open', checks: 'passing', problem: null });
    expect(pr(95)?.github?.problem).toMatch(/did not answer for acme\/radon#95 within/);
    expect(engine.problems().some((p) => p.source === 'github')).toBe(false);
  });

  // Apart from the 2-s deadline above: on a busy machine 9 MiB over loopback can take longer than that.
  it('an oversized answer is refused past its bound, and says so, the others still updated', async () => {
    const { engine, pr } = await rig([94, 97], {
      94: open({ body: BODY_WITH_NEXT }),
      97: open({ body: 'x'.repeat(9 * 1024 * 1024) }),
    }, { timeout: '60s' });
    await engine.github?.pollOnce();
    expect(pr(94)?.github).toMatchObject({ state: 'open', checks: 'passing', problem: null });
    // An answer past the bound is not read (nor kept), and says so.
    expect(pr(97)?.github?.problem).toMatch(/acme\/radon#97: the answer is larger than 8 MiB; not read/);
    expect(engine.problems().some((p) => p.source === 'github')).toBe(false);
  });

  it('on its own schedule, a PR that appears is asked about at once and alone; the others wait for their interval', async () => {
    const { fx, server, engine, pr } = await rig([88], { 88: open(), 89: open({ body: BODY_WITH_NEXT }) });
    engine.start();
    await until(() => pr(88)?.github?.state === 'open', 5_000, '#88 read at the start');
    const before = server.requests.length;
    fx.write('2026-08-24', 'deliver.status', 'deliver 2026-08-24T00:31:00-04:00 STARTED\ndeliver 2026-08-24T01:02:11-04:00 2 PR(s) green, ready to merge: https://127.0.0.1/acme/radon/pull/88 https://127.0.0.1/acme/radon/pull/89\n');
    await engine.poll();
    await until(() => pr(89)?.github?.checks === 'passing', 5_000, '#89 read once it appeared');
    const paths = server.requests.slice(before).map((r) => r.path);
    expect(paths).toHaveLength(3);
    expect(paths.every((p) => p === '/repos/acme/radon/pulls/89' || p.includes(shaOf('acme/radon#89')))).toBe(true);
  });

  it('keeps the merged and closed PRs across a restart: shown so at once, never asked about again', async () => {
    const store = Store.open(':memory:');
    cleanups.push(() => store.close());
    const fakes = { 88: { state: 'closed', merged: true, mergedBy: 'hubot', mergedAt: '2026-08-24T06:10:00Z', body: null, checks: [] }, 89: open() } satisfies Record<number, FakePr>;
    const first = await rig([88, 89], fakes, { store });
    await first.engine.github?.pollOnce();
    expect(first.pr(88)?.status).toBe('merged');
    await first.engine.close();

    // The next run, on the same data: #88 is merged before any request, and only #89 is asked about.
    const asked = pullRequests(first.server, 88).length;
    const second = await rig([88, 89], fakes, { store, server: first.server });
    expect(second.pr(88)).toMatchObject({ status: 'merged', github: { mergedBy: 'hubot' } });
    expect(second.pr(89)?.github).toBeUndefined();
    await second.engine.github?.pollOnce();
    expect(second.pr(89)?.github?.state).toBe('open');
    expect(pullRequests(first.server, 88)).toHaveLength(asked);
  });

  it('stopping gives up the requests in flight at once: closing the console waits for no GitHub', async () => {
    const { server, engine, pr } = await rig([96], { 96: open({ delayMs: 20_000 }) }, { timeout: '60s' });
    const round = engine.github?.pollOnce();
    await until(() => server.arrived() >= 1, 5_000, 'the request to arrive');
    const started = Date.now();
    await engine.github?.stop();
    await round;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(pr(96)?.github).toBeUndefined();
  });

  it('a refused token (401) is one clear problem naming github.token and its variable, never the token, and nothing more is asked', async () => {
    const { server, engine, pr } = await rig([88, 89], { 88: open(), 89: open() }, { env: { LOOPDECK_TEST_GITHUB_TOKEN: 'ghp_wrong_secret_value' } });
    await engine.github?.pollOnce();
    const problem = engine.problems().find((p) => p.source === 'github');
    expect(problem?.message).toMatch(/GitHub refused the token from github\.token \(the environment variable LOOPDECK_TEST_GITHUB_TOKEN\) \(401 Bad credentials/);
    expect(JSON.stringify(engine.snapshot())).not.toContain('ghp_wrong_secret_value');
    expect(pr(88)?.github).toBeUndefined();
    const asked = server.requests.length;
    expect(asked).toBeLessThanOrEqual(2);
    await engine.github?.pollOnce();
    expect(server.requests.length).toBe(asked);
  });

  it('a spent rate limit (403, x-ratelimit-remaining 0) waits until x-ratelimit-reset, says until when, and asks nothing before it', async () => {
    const { server, engine, pr } = await rig([88], { 88: open({ body: BODY_WITH_NEXT }) }, { every: '50ms' });
    // The server answers again at the reset by itself (3 to 4 s from now): however slow this test
    // runs, a request before the reset is refused and one after it answered.
    const reset = Math.floor(Date.now() / 1000) + 4;
    server.rateLimitedUntil = reset;
    engine.start();
    await until(() => engine.problems().some((p) => p.source === 'github'), 5_000, 'the rate-limit problem');
    expect(engine.problems().find((p) => p.source === 'github')?.message).toContain(`used up until ${new Date(reset * 1000).toISOString()}`);
    await until(() => pr(88)?.github?.state === 'open', 15_000, 'the PR read after the reset');
    const limited = server.requests.filter((r) => r.status === 403);
    expect(limited).toHaveLength(1);
    const after = server.requests.filter((r) => r.at > (limited[0]?.at ?? 0));
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.at >= reset * 1000)).toBe(true);
    await until(() => !engine.problems().some((p) => p.source === 'github'), 10_000, 'the problem to clear');
  });

  it('without github.token, asks `gh auth token` (the real gh CLI, its own hosts.yml)', async () => {
    const gh = mkdtempSync(join(tmpdir(), 'loopdeck-gh-'));
    writeFileSync(join(gh, 'hosts.yml'), `127.0.0.1:\n    oauth_token: ${TOKEN}\n    user: octocat\n    git_protocol: https\n`);
    const { server, engine, pr } = await rig([88], { 88: open() }, { token: 'none', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GH_CONFIG_DIR: gh } });
    await engine.github?.pollOnce();
    expect(pr(88)?.github?.state).toBe('open');
    expect(server.requests[0]?.authorization).toBe(`token ${TOKEN}`);
  });

  it('without a github section nothing is asked', async () => {
    const fx = createRunnerFixture();
    const config = parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8'));
    const engine = composeEngine(config, { store: Store.open(':memory:'), now: () => NOW });
    cleanups.push(() => engine.close());
    expect(engine.github).toBeNull();
  });
});
