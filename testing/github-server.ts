import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { filesBody, mergePr, pullFields, pullSize, repoBody, reviewsBody, type FakeMerge } from './github-server-desk';

// A GitHub REST API on 127.0.0.1 for tests: the three endpoints Loopdeck reads, answering with
// GitHub's documented example bodies (testing/github-examples.json, from @octokit/openapi)
// changed per PR, with ETags (a matching If-None-Match gets 304), and with the failures the
// client must survive: 401, 404, a spent rate limit, an answer that never comes in time.
// Also a repository's issues (filtered by labels and state, sorted) and an issue's comments
// (since, paged), for the rolling dead-man issue. For the merge desk (github-server-desk.ts):
//   GET /repos/{o}/{r}                      the repository, `permissions.push` = `pushAllowed`
//   GET /repos/{o}/{r}/pulls?state=open     the open PRs (head, base, user, title, created_at), newest first, paged
//   GET /repos/{o}/{r}/pulls/{n}            also title, user, base, created_at, additions, deletions,
//                                           changed_files, mergeable_state (FakePr's fields)
//   GET /repos/{o}/{r}/pulls/{n}/files      FakePr.files, paged (at most 3000, as GitHub's)
//   GET /repos/{o}/{r}/pulls/{n}/reviews    FakePr.reviews, oldest first
//   PUT /repos/{o}/{r}/pulls/{n}/merge      {sha, merge_method}: 409 if sha is not the head's, 405 unless
//                                           open and clean/unstable/has_hooks, 200 and merged (`merges`)
// Every GET answers with an ETag and honours If-None-Match.

const EXAMPLES = JSON.parse(readFileSync(new URL('./github-examples.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;

/** One check on the PR's head: a commit status (`context`) or a check run (`name`); `url` its target_url / html_url (the example's when absent). */
export type FakeCheck =
  | { readonly kind: 'status'; readonly context: string; readonly state: 'success' | 'failure' | 'error' | 'pending'; readonly url?: string }
  | { readonly kind: 'run'; readonly name: string; readonly status: 'queued' | 'in_progress' | 'completed'; readonly conclusion: string | null; readonly url?: string };

/** What the server says about one PR (every field may be changed while the test runs). */
export interface FakePr {
  state: 'open' | 'closed';
  merged: boolean;
  mergedBy?: string;
  mergedAt?: string;
  closedAt?: string;
  body: string | null;
  checks: FakeCheck[];
  /** Answer its PR request with this status instead (401, 404, ...). */
  fail?: number;
  /** Hold its PR request this long before answering. */
  delayMs?: number;
  /** Its head branch (`head.ref`); the example's when absent. */
  head?: string;
  /** Its head commit; `shaOf(key)` when absent. Set it to move the head. */
  sha?: string;
  /** The merge desk's fields: the example's (or 'main', 'octocat', 0) when absent. */
  title?: string;
  author?: string;
  base?: string;
  createdAt?: string;
  additions?: number;
  deletions?: number;
  /** `changed_files`; `files.length` when absent. */
  changedFiles?: number;
  /** `mergeable_state`; 'clean' when absent. */
  mergeableState?: string;
  /** The paths it changes (`/files`). */
  files?: string[];
  /** Its reviews, oldest first (`/reviews`): APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED. */
  reviews?: { login: string; state: string }[];
}

/** One comment on a fake issue. */
export interface FakeComment {
  /** When it was written (ISO); also its updated_at unless `updatedAt` says otherwise. */
  createdAt: string;
  updatedAt?: string;
  body: string;
  login?: string;
}

/** One issue of a repository (every field may be changed while the test runs). */
export interface FakeIssue {
  number: number;
  title: string;
  labels: string[];
  state: 'open' | 'closed';
  createdAt: string;
  /** Its updated_at is the later of this and its newest comment. */
  updatedAt: string;
  comments: FakeComment[];
}

/** One request the server saw. */
export interface SeenRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** The query string, without the `?` ('' when none). */
  readonly query: string;
  readonly status: number;
  readonly authorization: string | undefined;
  readonly ifNoneMatch: string | undefined;
}

/** The running server. */
export interface GithubServer {
  /** The API base URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** PRs by `owner/repo#n`. */
  readonly prs: Map<string, FakePr>;
  /** Issues by repository (`owner/repo`). */
  readonly issues: Map<string, FakeIssue[]>;
  readonly requests: SeenRequest[];
  /** Requests that arrived, answered or not yet (`requests` holds the answered ones). */
  readonly arrived: () => number;
  /** The token it accepts (anything else is 401). */
  token: string;
  /**
   * Until this time (epoch seconds), every request gets 403 with `x-ratelimit-remaining: 0` and
   * this reset; from then on it answers again, as GitHub does once the limit resets.
   */
  rateLimitedUntil: number | null;
  /** While set, every (authorized) request gets this status, as when GitHub is failing (500, 502...). */
  failing: number | null;
  /** What `GET /repos/{o}/{r}` says of the token's push permission (true by default); a merge without it is 403. */
  pushAllowed: boolean;
  /** Whose token this is: the merges' `merged_by`. */
  login: string;
  /** The merges made, in order. */
  readonly merges: FakeMerge[];
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

const etagOf = (body: unknown): string => `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32)}"`;

/** Start the server; add PRs to `prs` as `owner/repo#n`. */
export async function startGithubServer(token = 'ghp_test_token'): Promise<GithubServer> {
  const sockets = new Set<Socket>();
  let arrived = 0;
  const state: GithubServer = {
    url: '',
    prs: new Map(),
    issues: new Map(),
    requests: [],
    arrived: () => arrived,
    token,
    rateLimitedUntil: null,
    failing: null,
    pushAllowed: true,
    login: 'loopdeck-operator',
    merges: [],
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (req.headers.authorization !== `token ${state.token}` && req.headers.authorization !== `bearer ${state.token}`) {
      json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
      return 401;
    }
    if (state.rateLimitedUntil !== null && Date.now() < state.rateLimitedUntil * 1000) {
      json(res, 403, { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting' }, {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(state.rateLimitedUntil),
      });
      return 403;
    }
    const limits = { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) };
    if (state.failing !== null) return (json(res, state.failing, { message: 'Server Error' }, limits), state.failing);
    const answer = (body: unknown): number => {
      const etag = etagOf(body);
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag, ...limits });
        res.end();
        return 304;
      }
      json(res, 200, body, { etag, ...limits });
      return 200;
    };
    const issues = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+)\/comments)?$/.exec(path);
    if (issues) {
      const [, owner = '', repo = '', number] = issues;
      const list = state.issues.get(`${owner}/${repo}`) ?? [];
      if (!number) return answer(issueList(state.url, owner, repo, list, url.searchParams));
      const issue = list.find((i) => i.number === Number(number));
      if (!issue) return (json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' }), 404);
      return answer(commentList(state.url, owner, repo, issue, url.searchParams));
    }
    const notFound = (): number => (json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' }), 404);
    const headOf = (key: string): string => state.prs.get(key)?.sha ?? shaOf(key);
    const desk = /^\/repos\/([^/]+)\/([^/]+)(\/pulls)?$/.exec(path);
    if (desk) {
      const [, owner = '', repo = '', pulls] = desk;
      if (!pulls) return answer(repoBody(state.url, owner, repo, state.pushAllowed));
      const example = EXAMPLES['pull-request'] ?? {};
      const open = [...state.prs].filter(([k, pr]) => k.startsWith(`${owner}/${repo}#`) && pr.state === 'open' && !pr.merged);
      const items = open.map(([k, pr]) => ({ n: Number(k.split('#')[1]), pr, sha: headOf(k) })).sort((a, b) => (b.pr.createdAt ?? '').localeCompare(a.pr.createdAt ?? '') || b.n - a.n);
      return answer(paged(items, url.searchParams).map(({ n, pr, sha }) => ({ state: 'open', ...pullFields(owner, repo, n, pr, sha, example) })));
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)\/(?:pulls\/(\d+)(?:\/(files|reviews|merge))?|commits\/([0-9a-f]+)\/(status|check-runs))$/.exec(path);
    if (!m) return notFound();
    const [, owner, repo, number, sub, sha, what] = m;
    const key = number ? `${owner}/${repo}#${number}` : [...state.prs.keys()].find((k) => k.startsWith(`${owner}/${repo}#`) && headOf(k) === sha);
    const pr = key ? state.prs.get(key) : undefined;
    if (!pr || !key) return notFound();
    if (sub === 'merge') {
      if (req.method !== 'PUT') return notFound();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        return (json(res, 400, { message: 'Problems parsing JSON' }), 400);
      }
      const done = mergePr(key, pr, headOf(key), body, state.pushAllowed, state.login, state.merges);
      return (json(res, done.status, done.body, limits), done.status);
    }
    if (sub) return answer(sub === 'files' ? paged(filesBody(pr, headOf(key)), url.searchParams) : reviewsBody(pr, headOf(key)));
    if (number && pr.delayMs) await new Promise((r) => setTimeout(r, pr.delayMs));
    if (number && pr.fail) return (json(res, pr.fail, { message: pr.fail === 404 ? 'Not Found' : 'Error' }), pr.fail);
    const body = number ? pullBody(owner ?? '', repo ?? '', Number(number), pr, headOf(key)) : what === 'status' ? statusBody(pr, sha ?? '') : runsBody(pr, sha ?? '');
    return answer(body);
  };
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    arrived += 1;
    void handle(req, res).then((status) => {
      const url = new URL(req.url ?? '/', 'http://x');
      state.requests.push({ at, method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, ''), status, authorization: req.headers.authorization, ifNoneMatch: req.headers['if-none-match'] });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** A fixed head sha per PR key (hex, as GitHub's). */
export function shaOf(key: string): string {
  let h = 0;
  for (const c of key) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, '0').repeat(5);
}

function pullBody(owner: string, repo: string, number: number, pr: FakePr, sha: string): unknown {
  const example = EXAMPLES['pull-request'] ?? {};
  const merged = pr.merged;
  return {
    ...example,
    ...pullFields(owner, repo, number, pr, sha, example),
    ...pullSize(pr),
    state: pr.state,
    merged,
    merged_at: merged ? (pr.mergedAt ?? '2026-08-24T08:00:00Z') : null,
    closed_at: pr.state === 'closed' ? (pr.closedAt ?? pr.mergedAt ?? '2026-08-24T08:00:00Z') : null,
    merged_by: merged ? { ...(example.merged_by as object), login: pr.mergedBy ?? 'octocat' } : null,
  };
}

function statusBody(pr: FakePr, sha: string): unknown {
  const example = EXAMPLES['combined-commit-status'] ?? {};
  const template = ((example.statuses as object[] | undefined) ?? [])[0] ?? {};
  const statuses = pr.checks.flatMap((c) => (c.kind === 'status' ? [{ ...template, context: c.context, state: c.state, ...(c.url ? { target_url: c.url } : {}) }] : []));
  const state = statuses.some((s) => s.state === 'failure' || s.state === 'error') ? 'failure' : statuses.every((s) => s.state === 'success') && statuses.length > 0 ? 'success' : 'pending';
  return { ...example, sha, state, statuses, total_count: statuses.length };
}

function runsBody(pr: FakePr, sha: string): unknown {
  const example = EXAMPLES['check-run-paginated'] ?? {};
  const template = ((example.check_runs as object[] | undefined) ?? [])[0] ?? {};
  const runs = pr.checks.flatMap((c) => (c.kind === 'run' ? [{ ...template, head_sha: sha, name: c.name, status: c.status, conclusion: c.conclusion, ...(c.url ? { html_url: c.url } : {}) }] : []));
  return { total_count: runs.length, check_runs: runs };
}

/** One page (`page`, `per_page`, 30 by default as GitHub's) of `items`. */
function paged<T>(items: readonly T[], q: URLSearchParams): T[] {
  const per = Math.min(100, Math.max(1, Number(q.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
  return items.slice((page - 1) * per, page * per);
}

const issueUpdated = (i: FakeIssue): string => [i.updatedAt, ...i.comments.map((c) => c.updatedAt ?? c.createdAt)].sort().at(-1) ?? i.updatedAt;

/** `GET /repos/{owner}/{repo}/issues`: `labels` (all of them), `state` (open by default), `sort` and `direction`, paged. */
function issueList(api: string, owner: string, repo: string, issues: readonly FakeIssue[], q: URLSearchParams): unknown[] {
  const labels = (q.get('labels') ?? '').split(',').filter(Boolean);
  const st = q.get('state') ?? 'open';
  const key = (i: FakeIssue): string => (q.get('sort') === 'updated' ? issueUpdated(i) : i.createdAt);
  const sign = q.get('direction') === 'asc' ? 1 : -1;
  const chosen = issues
    .filter((i) => (st === 'all' || i.state === st) && labels.every((l) => i.labels.includes(l)))
    .sort((a, b) => sign * key(a).localeCompare(key(b)));
  return paged(chosen, q).map((i) => ({
    id: 1_000_000 + i.number,
    node_id: `I_${i.number}`,
    url: `${api}/repos/${owner}/${repo}/issues/${i.number}`,
    comments_url: `${api}/repos/${owner}/${repo}/issues/${i.number}/comments`,
    html_url: `https://127.0.0.1/${owner}/${repo}/issues/${i.number}`,
    number: i.number,
    state: i.state,
    title: i.title,
    body: null,
    user: { login: 'octocat', id: 1, type: 'User' },
    labels: i.labels.map((name, n) => ({ id: n + 1, name, color: 'f29513', default: false })),
    locked: false,
    comments: i.comments.length,
    created_at: i.createdAt,
    updated_at: issueUpdated(i),
    closed_at: i.state === 'closed' ? issueUpdated(i) : null,
    author_association: 'OWNER',
  }));
}

/** `GET /repos/{owner}/{repo}/issues/{n}/comments`: oldest first, those updated at or after `since`, paged. */
function commentList(api: string, owner: string, repo: string, issue: FakeIssue, q: URLSearchParams): unknown[] {
  const since = q.get('since');
  const all = issue.comments.map((c, n) => ({ c, id: issue.number * 10_000 + n + 1 }));
  const chosen = all.filter(({ c }) => since === null || Date.parse(c.updatedAt ?? c.createdAt) >= Date.parse(since));
  return paged(chosen, q).map(({ c, id }) => ({
    id,
    node_id: `IC_${id}`,
    url: `${api}/repos/${owner}/${repo}/issues/comments/${id}`,
    html_url: `https://127.0.0.1/${owner}/${repo}/issues/${issue.number}#issuecomment-${id}`,
    issue_url: `${api}/repos/${owner}/${repo}/issues/${issue.number}`,
    body: c.body,
    user: { login: c.login ?? 'reliability-bot', id: 2, type: 'User' },
    created_at: c.createdAt,
    updated_at: c.updatedAt ?? c.createdAt,
    author_association: 'OWNER',
  }));
}
