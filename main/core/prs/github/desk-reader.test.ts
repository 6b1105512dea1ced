import { afterEach, describe, expect, it } from 'vitest';
import { shaOf, startGithubServer, type FakePr, type GithubServer, type SeenRequest } from '../../../../testing/github-server';
import { until } from '../../../../testing/until';
import { GithubConfigSchema } from '../../config/schema';
import { GithubDesk, type DeskTarget, type NamedPr } from './desk-reader';

// The merge desk's GitHub layer against the GitHub stand-in on loopback (testing/github-server.ts),
// which speaks the documented REST API: open pulls, a pull, its files and reviews, statuses,
// check runs, the repository's permissions and the merge with its `sha` precondition.

const TOKEN = 'ghp_desk_token_never_shown';
const ENV = { LOOPDECK_DESK_TOKEN: TOKEN };
const NIGHTLY = (ref: string): boolean => /^reliability\/\d{4}-\d{2}-\d{2}$/.test(ref);

const pr = (over: Partial<FakePr> = {}): FakePr => ({
  state: 'open',
  merged: false,
  body: '## Next\n- run the migration',
  checks: [{ kind: 'status', context: 'ci/test', state: 'success', url: 'https://ci.example/test/1' }],
  head: 'reliability/2026-08-24',
  title: 'Reliability fixes for 2026-08-24',
  author: 'reliability-bot',
  createdAt: '2026-08-24T05:10:00Z',
  additions: 40,
  deletions: 7,
  files: ['src/exit.ts', 'src/halt.ts'],
  ...over,
});

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

interface Rig {
  readonly server: GithubServer;
  readonly desk: GithubDesk;
  readonly changes: { n: number };
  /** The requests answered since the last call. */
  since(): SeenRequest[];
}

async function rig(fakes: Record<string, FakePr>, named: readonly NamedPr[] = [], targets: readonly DeskTarget[] = [{ loop: 'radon', repo: 'acme/radon', headMatches: NIGHTLY }]): Promise<Rig> {
  const server = await startGithubServer(TOKEN);
  cleanups.push(() => server.close());
  for (const [k, v] of Object.entries(fakes)) server.prs.set(k, v);
  const config = GithubConfigSchema.parse({ token: 'env:LOOPDECK_DESK_TOKEN', apiUrl: server.url, every: '5m', timeout: '5s' });
  const changes = { n: 0 };
  const desk = new GithubDesk({ config, env: ENV, onProblem: () => undefined, onChange: () => void (changes.n += 1) });
  cleanups.push(() => desk.stop());
  desk.track(targets, named);
  let seen = 0;
  const since = (): SeenRequest[] => {
    const out = server.requests.slice(seen);
    seen = server.requests.length;
    return out;
  };
  return { server, desk, changes, since };
}

const numbers = (d: GithubDesk): number[] => d.list().map((p) => p.number);
const one = (d: GithubDesk, n: number) => d.list().find((p) => p.number === n);

describe('the merge desk reading GitHub', () => {
  it("lists the PRs whose head matches the loop's branch pattern, plus those its verdicts named (in the list or not)", async () => {
    const { desk } = await rig(
      {
        'acme/radon#1': pr(),
        'acme/radon#2': pr({ head: 'feature/someone-else', title: 'A person’s PR' }),
        'acme/radon#3': pr({ head: 'fix/hand-made', title: 'Named by a verdict' }),
        'acme/radon#4': pr({ state: 'closed', merged: true, mergedBy: 'octocat', mergedAt: '2026-08-23T09:00:00Z' }),
        'acme/other#9': pr({ head: 'main-fix', base: 'develop', title: 'Elsewhere' }),
      },
      ['https://127.0.0.1/acme/radon/pull/3', 'https://127.0.0.1/acme/radon/pull/4', { url: 'https://127.0.0.1/acme/other/pull/9', loop: 'radon' }, 'https://github.com/acme/radon/pull/5'],
    );
    await desk.pollOnce();
    expect(numbers(desk)).toEqual([9, 1, 3, 4]);
    expect(one(desk, 1)).toMatchObject({
      loop: 'radon',
      repo: 'acme/radon',
      url: 'https://127.0.0.1/acme/radon/pull/1',
      state: 'open',
      title: 'Reliability fixes for 2026-08-24',
      author: 'reliability-bot',
      head: 'reliability/2026-08-24',
      headSha: shaOf('acme/radon#1'),
      additions: 40,
      deletions: 7,
      changedFiles: 2,
      files: ['src/exit.ts', 'src/halt.ts'],
      filesCut: false,
      mergeable: 'clean',
      reviewDecision: 'review-required',
      openedAt: '2026-08-24T05:10:00Z',
      mergedAt: null,
      problem: null,
    });
    expect(one(desk, 4)).toMatchObject({ state: 'merged', mergedAt: '2026-08-23T09:00:00Z' });
    expect(one(desk, 9)).toMatchObject({ loop: 'radon', repo: 'acme/other', base: 'develop', title: 'Elsewhere' });
    expect(JSON.stringify(desk.list())).not.toContain(TOKEN);
  });

  it('asks an unchanged repository again with conditional requests only: every answer of the second round is a 304', async () => {
    const { desk, server, since, changes } = await rig({ 'acme/radon#1': pr(), 'acme/radon#2': pr({ head: 'reliability/2026-08-23' }), 'acme/radon#7': pr({ head: 'feature/x' }) });
    await desk.pollOnce();
    const first = since();
    expect(first.filter((r) => r.path === '/repos/acme/radon/pulls')).toHaveLength(1);
    expect(first.some((r) => r.path.startsWith('/repos/acme/radon/pulls/7'))).toBe(false);
    const list = desk.list();
    const changed = changes.n;
    await desk.pollOnce();
    const second = since();
    // The list, the repository, and per open PR: the PR, its reviews, its status, its check runs.
    expect(second.map((r) => r.path).sort()).toEqual(
      [
        '/repos/acme/radon',
        '/repos/acme/radon/pulls',
        ...[1, 2].flatMap((n) => [`/repos/acme/radon/pulls/${n}`, `/repos/acme/radon/pulls/${n}/reviews`, `/repos/acme/radon/commits/${shaOf(`acme/radon#${n}`)}/status`, `/repos/acme/radon/commits/${shaOf(`acme/radon#${n}`)}/check-runs`]),
      ].sort(),
    );
    expect(second.map((r) => r.status)).toEqual(second.map(() => 304));
    expect(desk.list()).toBe(list);
    expect(changes.n).toBe(changed);
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it("asks for a PR's files only when its head moved", async () => {
    const { desk, server, since } = await rig({ 'acme/radon#1': pr() });
    const files = (): SeenRequest[] => since().filter((r) => r.path === '/repos/acme/radon/pulls/1/files');
    await desk.pollOnce();
    expect(files()).toHaveLength(1);
    await desk.pollOnce();
    expect(files()).toHaveLength(0);
    const fake = server.prs.get('acme/radon#1');
    if (!fake) throw new Error('no fake PR');
    fake.sha = 'abcdef0123456789abcdef0123456789abcdef01';
    fake.files = ['src/exit.ts', 'src/halt.ts', 'docs/runbook.md'];
    await desk.pollOnce();
    expect(files()).toHaveLength(1);
    expect(one(desk, 1)).toMatchObject({ headSha: 'abcdef0123456789abcdef0123456789abcdef01', files: ['src/exit.ts', 'src/halt.ts', 'docs/runbook.md'], changedFiles: 3 });
  });

  it('says when a PR changes more files than GitHub lists (3000)', async () => {
    const files = Array.from({ length: 3100 }, (_, i) => `gen/file-${i}.ts`);
    const { desk } = await rig({ 'acme/radon#1': pr({ files, changedFiles: 3100 }) });
    await desk.pollOnce();
    expect(one(desk, 1)).toMatchObject({ filesCut: true, changedFiles: 3100 });
    expect(one(desk, 1)?.files).toHaveLength(3000);
  });

  it('gives each check by name with its state and its link, and the review decision from the latest review of each reviewer', async () => {
    const { desk } = await rig({
      'acme/radon#1': pr({
        checks: [
          { kind: 'status', context: 'ci/lint', state: 'success', url: 'https://ci.example/lint/4' },
          { kind: 'status', context: 'ci/deploy-preview', state: 'pending', url: 'https://ci.example/preview/4' },
          { kind: 'run', name: 'unit', status: 'completed', conclusion: 'failure', url: 'https://github.example/acme/radon/runs/11' },
          { kind: 'run', name: 'e2e', status: 'in_progress', conclusion: null, url: 'https://github.example/acme/radon/runs/12' },
          { kind: 'run', name: 'docs', status: 'completed', conclusion: 'skipped', url: 'https://github.example/acme/radon/runs/13' },
        ],
        reviews: [
          { login: 'ana', state: 'CHANGES_REQUESTED' },
          { login: 'ben', state: 'APPROVED' },
          { login: 'ana', state: 'COMMENTED' },
          { login: 'ana', state: 'APPROVED' },
        ],
      }),
    });
    await desk.pollOnce();
    expect(one(desk, 1)?.checks).toEqual([
      { name: 'ci/lint', state: 'passing', url: 'https://ci.example/lint/4' },
      { name: 'ci/deploy-preview', state: 'pending', url: 'https://ci.example/preview/4' },
      { name: 'unit', state: 'failing', url: 'https://github.example/acme/radon/runs/11' },
      { name: 'e2e', state: 'pending', url: 'https://github.example/acme/radon/runs/12' },
      { name: 'docs', state: 'passing', url: 'https://github.example/acme/radon/runs/13' },
    ]);
    expect(one(desk, 1)?.reviewDecision).toBe('approved');
  });

  it("refuses a merge of a head that moved, with GitHub's own message, and merges nothing", async () => {
    const { desk, server } = await rig({ 'acme/radon#1': pr() });
    await desk.pollOnce();
    const seen = one(desk, 1)?.headSha ?? '';
    const fake = server.prs.get('acme/radon#1');
    if (!fake) throw new Error('no fake PR');
    fake.sha = '1234567890abcdef1234567890abcdef12345678';
    expect(await desk.merge('acme/radon', 1, seen, 'squash')).toEqual({ ok: false, message: 'Head branch was modified. Review and try the merge again.' });
    expect(server.merges).toEqual([]);
    // Asked again at once: the desk now shows the new head, still open.
    expect(one(desk, 1)).toMatchObject({ state: 'open', headSha: '1234567890abcdef1234567890abcdef12345678' });
  });

  it("refuses a merge GitHub will not make (not mergeable) with GitHub's message", async () => {
    const { desk } = await rig({ 'acme/radon#1': pr({ mergeableState: 'blocked' }) });
    await desk.pollOnce();
    expect(await desk.merge('acme/radon', 1, one(desk, 1)?.headSha ?? '', 'merge')).toEqual({ ok: false, message: 'Pull Request is not mergeable' });
  });

  it('merges the head the operator saw, passing its sha, and then shows the PR merged; once out of the open list it is asked once more, then dropped', async () => {
    const { desk, server, since, changes } = await rig({ 'acme/radon#1': pr(), 'acme/radon#2': pr({ head: 'reliability/2026-08-23' }) });
    await desk.pollOnce();
    const sha = shaOf('acme/radon#1');
    const before = changes.n;
    since();
    const done = await desk.merge('acme/radon', 1, sha, 'squash');
    expect(done.ok).toBe(true);
    expect(done.ok && done.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(server.merges).toEqual([expect.objectContaining({ key: 'acme/radon#1', sha, method: 'squash', by: 'loopdeck-operator' })]);
    const asked = since();
    expect(asked[0]).toMatchObject({ method: 'PUT', path: '/repos/acme/radon/pulls/1/merge', status: 200 });
    expect(asked.some((r) => r.path === '/repos/acme/radon/pulls/1' && r.status === 200)).toBe(true);
    expect(one(desk, 1)).toMatchObject({ state: 'merged' });
    expect(changes.n).toBe(before + 1);
    // PR #2 merged on GitHub itself: it leaves the open list, is asked once more, then dropped.
    const fake2 = server.prs.get('acme/radon#2');
    if (!fake2) throw new Error('no fake PR');
    Object.assign(fake2, { state: 'closed', merged: true, mergedAt: '2026-08-24T09:00:00Z' });
    await desk.pollOnce();
    expect(one(desk, 2)).toMatchObject({ state: 'merged', mergedAt: '2026-08-24T09:00:00Z' });
    expect(since().filter((r) => r.path === '/repos/acme/radon/pulls/2')).toHaveLength(1);
    await desk.pollOnce();
    expect(numbers(desk)).toEqual([]);
    expect(since().filter((r) => r.path.startsWith('/repos/acme/radon/pulls/') || r.path.includes('/commits/'))).toEqual([]);
  });

  it('knows whether the token may merge in a repository (push permission), and says so before merging', async () => {
    const { desk, server } = await rig({ 'acme/radon#1': pr() });
    expect(desk.canWrite('acme/radon')).toBeNull();
    server.pushAllowed = false;
    await desk.pollOnce();
    expect(desk.canWrite('acme/radon')).toBe(false);
    expect(desk.canWrite('acme/elsewhere')).toBeNull();
    expect(await desk.merge('acme/radon', 1, shaOf('acme/radon#1'), 'merge')).toEqual({ ok: false, message: 'Resource not accessible by integration' });
    server.pushAllowed = true;
    await desk.pollOnce();
    expect(desk.canWrite('acme/radon')).toBe(true);
  });
});

describe('the merge desk on its own schedule and without a usable token', () => {
  it('start() reads at once and says so through onChange; stop() ends it', async () => {
    const { desk, changes } = await rig({ 'acme/radon#1': pr() });
    desk.start();
    await until(() => changes.n > 0, 5000, 'the first round to publish');
    expect(numbers(desk)).toEqual([1]);
    await desk.stop();
  });

  it('a refused token is said once, naming where it came from and never the token, and nothing more is asked', async () => {
    const server = await startGithubServer('ghp_the_right_one');
    cleanups.push(() => server.close());
    server.prs.set('acme/radon#1', pr());
    const problems: (string | null)[] = [];
    const config = GithubConfigSchema.parse({ token: 'env:LOOPDECK_DESK_TOKEN', apiUrl: server.url, every: '5m', timeout: '5s' });
    const desk = new GithubDesk({ config, env: ENV, onProblem: (p) => problems.push(p?.message ?? null), onChange: () => undefined });
    desk.track([{ loop: 'radon', repo: 'acme/radon', headMatches: NIGHTLY }], []);
    await desk.pollOnce();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('LOOPDECK_DESK_TOKEN');
    expect(problems[0]).not.toContain(TOKEN);
    const asked = server.requests.length;
    await desk.pollOnce();
    const merge = await desk.merge('acme/radon', 1, shaOf('acme/radon#1'), 'merge');
    expect(merge.ok).toBe(false);
    expect(merge.ok ? '' : merge.message).toContain('refused the token');
    expect(server.requests.length).toBe(asked);
    expect(desk.list()).toEqual([]);
  });
});
