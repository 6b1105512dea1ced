import { afterEach, describe, expect, it } from 'vitest';
import type { ContractBreach } from '../../../../shared/contract-breach';
import type { Cycle, LoopState, Phase, PhaseStatus, Problem } from '../../../../shared/domain';
import { startGithubServer, type FakeComment, type FakeIssue, type GithubServer } from '../../../../testing/github-server';
import { GithubConfigSchema, LoopConfigSchema } from '../../config/schema';
import { DeadmanComments } from './deadman-comments';

// The rolling issue's comments against a real HTTP server on loopback speaking GitHub's REST API
// (testing/github-server.ts): the issues list filtered by label, an issue's comments with `since`,
// ETags and 304s, failures.

const TOKEN = 'ghp_test_token_never_shown';
const MIN = 60_000;
const ISSUE_URL = 'https://127.0.0.1/acme/ops/issues/12';

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const phase = (name: string, status: PhaseStatus, startedAt: string | null, endedAt: string | null): Phase => ({
  name,
  status,
  startedAt,
  endedAt,
  timesFrom: 'stamps',
  detail: [],
  stages: [],
  verdict: null,
  reason: 'from the stamps',
});
const cycle = (date: string, phases: Phase[]): Cycle => ({ date, status: 'ok', phases });
const loop = (cycles: Cycle[], name = 'reliability'): LoopState => ({ name, host: 'runner', cycles, deadman: null });
const at = (iso: string): Date => new Date(iso);
const comment = (createdAt: string): FakeComment => ({ createdAt, body: `reliability 2026-08-24 phase done at ${createdAt}` });
const rolling = (comments: FakeComment[], over: Partial<FakeIssue> = {}): FakeIssue => ({
  number: 12,
  title: 'Reliability nightly',
  labels: ['reliability-nightly'],
  state: 'open',
  createdAt: '2026-08-01T00:00:00Z',
  updatedAt: '2026-08-01T00:00:00Z',
  comments,
  ...over,
});

interface Rig {
  readonly server: GithubServer;
  readonly check: DeadmanComments;
  readonly problems: (Problem | null)[];
  /** The wall clock the check paces itself by (ms); moved by the test. */
  wall: number;
  /** The requests answered since the last call. */
  asked(): { path: string; query: URLSearchParams; status: number; ifNoneMatch: string | undefined }[];
}

async function rig(issues: FakeIssue[], opts: { github?: boolean; deadman?: boolean } = {}): Promise<Rig> {
  const server = await startGithubServer(TOKEN);
  cleanups.push(() => server.close());
  server.issues.set('acme/ops', issues);
  const problems: (Problem | null)[] = [];
  let seen = 0;
  const r: Rig = {
    server,
    problems,
    wall: Date.parse('2026-08-24T12:00:00Z'),
    check: new DeadmanComments({
      github: opts.github === false ? undefined : GithubConfigSchema.parse({ token: 'env:LOOPDECK_TEST_GITHUB_TOKEN', apiUrl: server.url, every: '5m', timeout: '5s' }),
      loops: { reliability: LoopConfigSchema.parse({ host: 'runner', runs: '/srv/runs', cap: '3h', ...(opts.deadman === false ? {} : { deadman: { repo: 'acme/ops' } }) }) },
      env: { LOOPDECK_TEST_GITHUB_TOKEN: TOKEN },
      clock: () => r.wall,
      onProblem: (p) => problems.push(p),
    }),
    asked: () => {
      const fresh = server.requests.slice(seen).map((q) => ({ path: q.path, query: new URLSearchParams(q.query), status: q.status, ifNoneMatch: q.ifNoneMatch }));
      seen = server.requests.length;
      return fresh;
    },
  };
  cleanups.push(() => r.check.stop());
  return r;
}

const AUDIT = phase('audit', 'ok', '2026-08-24T00:00:00Z', '2026-08-24T00:40:00Z');

describe('no-dead-man-comment: each phase comments on the rolling issue within 30 minutes of its end', () => {
  it('a phase with its comment in time is no breach, also one without a start whose comment came within its cap before the end', async () => {
    const { check, asked, problems } = await rig([
      rolling([comment('2026-08-24T00:45:00Z'), comment('2026-08-24T02:29:00Z')]),
      // An older labelled issue, updated less recently: not the rolling one.
      rolling([], { number: 3, createdAt: '2026-07-01T00:00:00Z', updatedAt: '2026-07-02T00:00:00Z' }),
    ]);
    const cycles = [cycle('2026-08-24', [AUDIT, phase('remediate', 'no-op', null, '2026-08-24T02:10:00Z')])];
    expect(await check.check([loop(cycles)], at('2026-08-24T03:00:00Z'))).toBe(false);
    expect(check.breaches()).toEqual([]);
    const requests = asked();
    expect(requests.map((q) => q.path)).toEqual(['/repos/acme/ops/issues', '/repos/acme/ops/issues/12/comments']);
    expect(Object.fromEntries(requests[0]?.query ?? [])).toMatchObject({ labels: 'reliability-nightly', state: 'open', sort: 'updated' });
    // Since the oldest window to judge: the remediate's end minus its cap (3h), before the audit's start.
    expect(requests[1]?.query.get('since')).toBe('2026-08-23T23:10:00Z');
    expect(problems).toEqual([]);
    // Judged: never asked about again.
    expect(await check.check([loop(cycles)], at('2026-08-24T09:00:00Z'))).toBe(false);
    expect(asked()).toEqual([]);
  });

  it('a phase without a comment in time is a breach once 30 minutes have passed since its end, not before; asking again to claim it costs 304s', async () => {
    // 01:31 is 31 minutes after the remediate's end, and before the deliver's start: neither one's.
    const { server, check, asked } = await rig([rolling([comment('2026-08-24T00:45:00Z'), comment('2026-08-24T01:31:00Z')])]);
    const remediate = phase('remediate', 'ok', '2026-08-24T00:50:00Z', '2026-08-24T01:00:00Z');
    const deliver = phase('deliver', 'ready', '2026-08-24T02:00:00Z', '2026-08-24T02:30:00Z');
    const loops = [loop([cycle('2026-08-24', [AUDIT, remediate, deliver])])];
    const breach = (p: Phase, start: string, until: string, end: string): ContractBreach => ({
      kind: 'no-dead-man-comment',
      loop: 'reliability',
      date: '2026-08-24',
      phase: p.name,
      id: null,
      detail: `No comment on acme/ops#12 from ${start} to ${until}, 30 minutes after the phase ended (${end}).`,
      since: until,
      evidence: { file: null, line: null, url: ISSUE_URL },
    });
    expect(await check.check(loops, at('2026-08-24T02:59:59Z'))).toBe(true);
    expect(check.breaches()).toEqual([breach(remediate, '2026-08-24T00:50:00Z', '2026-08-24T01:30:00Z', '2026-08-24T01:00:00Z')]);
    expect(asked().map((q) => q.status)).toEqual([200, 200]);

    expect(await check.check(loops, at('2026-08-24T03:00:00Z'))).toBe(true);
    expect(check.breaches()).toEqual([
      breach(deliver, '2026-08-24T02:00:00Z', '2026-08-24T03:00:00Z', '2026-08-24T02:30:00Z'),
      breach(remediate, '2026-08-24T00:50:00Z', '2026-08-24T01:30:00Z', '2026-08-24T01:00:00Z'),
    ]);
    // The comments (since the audit's start, as before: their ETag holds), then the issue asked again before the claim.
    expect(asked().map((q) => [q.path, q.status])).toEqual([['/repos/acme/ops/issues/12/comments', 304], ['/repos/acme/ops/issues', 304]]);

    // A comment that comes later changes nothing, and a judged phase is not asked about again.
    server.issues.get('acme/ops')?.[0]?.comments.push(comment('2026-08-24T03:20:00Z'));
    const list = check.breaches();
    expect(await check.check(loops, at('2026-08-24T04:00:00Z'))).toBe(false);
    expect(check.breaches()).toBe(list);
    expect(asked()).toEqual([]);
  });

  it('an unchanged issue costs one 304 on the second check and nothing else', async () => {
    const { check, asked } = await rig([rolling([comment('2026-08-24T00:45:00Z'), comment('2026-08-24T02:35:00Z')])]);
    const first = [loop([cycle('2026-08-24', [AUDIT])])];
    await check.check(first, at('2026-08-24T03:00:00Z'));
    expect(asked().map((q) => q.status)).toEqual([200, 200]);
    // The deliver, read after its comment was listed (its runner was out of reach): judged from the kept answer.
    const second = [loop([cycle('2026-08-24', [AUDIT, phase('deliver', 'ready', '2026-08-24T02:00:00Z', '2026-08-24T02:30:00Z')])])];
    expect(await check.check(second, at('2026-08-24T03:10:00Z'))).toBe(false);
    const again = asked();
    expect(again.map((q) => [q.path, q.status])).toEqual([['/repos/acme/ops/issues/12/comments', 304]]);
    expect(again[0]?.query.get('since')).toBe('2026-08-24T00:00:00Z');
    expect(check.breaches()).toEqual([]);
  });

  it('GitHub failing (500) claims no breach and is a problem; asked again after github.every, the breach is then claimed and the problem cleared', async () => {
    const r = await rig([rolling([])]);
    r.server.failing = 500;
    const loops = [loop([cycle('2026-08-24', [AUDIT])])];
    expect(await r.check.check(loops, at('2026-08-24T03:00:00Z'))).toBe(false);
    expect(r.check.breaches()).toEqual([]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ source: 'github', line: null });
    expect(r.problems[0]?.message).toMatch(/^GitHub: the open issues of acme\/ops labelled reliability-nightly: HTTP 500.*no dead-man comment is judged; asked again in 300 s$/);
    expect(JSON.stringify(r.problems)).not.toContain(TOKEN);
    expect(r.asked().map((q) => q.status)).toEqual([500]);
    // Paced: nothing is asked before github.every has passed.
    r.server.failing = null;
    expect(await r.check.check(loops, at('2026-08-24T03:01:00Z'))).toBe(false);
    expect(r.asked()).toEqual([]);
    r.wall += 5 * MIN;
    expect(await r.check.check(loops, at('2026-08-24T03:06:00Z'))).toBe(true);
    expect(r.check.breaches().map((b) => [b.phase, b.evidence.url])).toEqual([['audit', ISSUE_URL]]);
    expect(r.problems.at(-1)).toBeNull();
  });

  it('a rolling issue replaced since it was found is found again before a breach is claimed, and judged afresh', async () => {
    const { server, check, asked } = await rig([rolling([comment('2026-08-24T00:45:00Z')])]);
    const deliver = phase('deliver', 'ready', '2026-08-24T02:00:00Z', '2026-08-24T02:30:00Z');
    await check.check([loop([cycle('2026-08-24', [AUDIT])])], at('2026-08-24T01:20:00Z'));
    asked();
    // #12 is closed; the runner comments on #15, the new rolling issue.
    const old = server.issues.get('acme/ops')?.[0];
    if (old) old.state = 'closed';
    server.issues.get('acme/ops')?.push(rolling([comment('2026-08-24T02:31:00Z')], { number: 15, createdAt: '2026-08-24T01:30:00Z', updatedAt: '2026-08-24T01:30:00Z' }));
    expect(await check.check([loop([cycle('2026-08-24', [AUDIT, deliver])])], at('2026-08-24T03:05:00Z'))).toBe(false);
    expect(check.breaches()).toEqual([]);
    expect(asked().map((q) => q.path)).toEqual(['/repos/acme/ops/issues/12/comments', '/repos/acme/ops/issues', '/repos/acme/ops/issues/15/comments']);
  });

  it('without a github section, or without deadman on the loop, nothing is checked', async () => {
    for (const opts of [{ github: false }, { deadman: false }]) {
      const { check, asked, problems } = await rig([rolling([])], opts);
      expect(await check.check([loop([cycle('2026-08-24', [AUDIT])])], at('2026-08-24T09:00:00Z'))).toBe(false);
      expect(check.breaches()).toEqual([]);
      expect(asked()).toEqual([]);
      expect(problems).toEqual([]);
    }
  });
});
