import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A GitHub REST API on 127.0.0.1 for tests: the three endpoints Loopdeck reads, answering with
// GitHub's documented example bodies (testing/github-examples.json, from @octokit/openapi)
// changed per PR, with ETags (a matching If-None-Match gets 304), and with the failures the
// client must survive: 401, 404, a spent rate limit, an answer that never comes in time.

const EXAMPLES = JSON.parse(readFileSync(new URL('./github-examples.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;

/** One check on the PR's head: a commit status (`context`) or a check run (`name`). */
export type FakeCheck =
  | { readonly kind: 'status'; readonly context: string; readonly state: 'success' | 'failure' | 'error' | 'pending' }
  | { readonly kind: 'run'; readonly name: string; readonly status: 'queued' | 'in_progress' | 'completed'; readonly conclusion: string | null };

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
}

/** One request the server saw. */
export interface SeenRequest {
  readonly at: number;
  readonly path: string;
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
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

const etagOf = (body: unknown): string => `"${Buffer.from(JSON.stringify(body)).toString('base64url').slice(-24)}${JSON.stringify(body).length}"`;

/** Start the server; add PRs to `prs` as `owner/repo#n`. */
export async function startGithubServer(token = 'ghp_test_token'): Promise<GithubServer> {
  const sockets = new Set<Socket>();
  let arrived = 0;
  const state: GithubServer = {
    url: '',
    prs: new Map(),
    requests: [],
    arrived: () => arrived,
    token,
    rateLimitedUntil: null,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
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
    const m = /^\/repos\/([^/]+)\/([^/]+)\/(?:pulls\/(\d+)|commits\/([0-9a-f]+)\/(status|check-runs))$/.exec(path);
    const notFound = (): number => (json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' }), 404);
    if (!m) return notFound();
    const [, owner, repo, number, sha, what] = m;
    const key = number ? `${owner}/${repo}#${number}` : [...state.prs.keys()].find((k) => k.startsWith(`${owner}/${repo}#`) && shaOf(k) === sha);
    const pr = key ? state.prs.get(key) : undefined;
    if (!pr || !key) return notFound();
    if (number && pr.delayMs) await new Promise((r) => setTimeout(r, pr.delayMs));
    if (number && pr.fail) return (json(res, pr.fail, { message: pr.fail === 404 ? 'Not Found' : 'Error' }), pr.fail);
    const body = number ? pullBody(owner ?? '', repo ?? '', Number(number), pr, shaOf(key)) : what === 'status' ? statusBody(pr, sha ?? '') : runsBody(pr, sha ?? '');
    const etag = etagOf(body);
    const limits = { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag, ...limits });
      res.end();
      return 304;
    }
    json(res, 200, body, { etag, ...limits });
    return 200;
  };
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    arrived += 1;
    void handle(req, res).then((status) => {
      state.requests.push({ at, path: new URL(req.url ?? '/', 'http://x').pathname, status, authorization: req.headers.authorization, ifNoneMatch: req.headers['if-none-match'] });
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
    number,
    html_url: `https://127.0.0.1/${owner}/${repo}/pull/${number}`,
    state: pr.state,
    merged,
    merged_at: merged ? (pr.mergedAt ?? '2026-08-24T08:00:00Z') : null,
    closed_at: pr.state === 'closed' ? (pr.closedAt ?? pr.mergedAt ?? '2026-08-24T08:00:00Z') : null,
    merged_by: merged ? { ...(example.merged_by as object), login: pr.mergedBy ?? 'octocat' } : null,
    body: pr.body,
    head: { ...(example.head as object), sha },
  };
}

function statusBody(pr: FakePr, sha: string): unknown {
  const example = EXAMPLES['combined-commit-status'] ?? {};
  const template = ((example.statuses as object[] | undefined) ?? [])[0] ?? {};
  const statuses = pr.checks.flatMap((c) => (c.kind === 'status' ? [{ ...template, context: c.context, state: c.state }] : []));
  const state = statuses.some((s) => s.state === 'failure' || s.state === 'error') ? 'failure' : statuses.every((s) => s.state === 'success') && statuses.length > 0 ? 'success' : 'pending';
  return { ...example, sha, state, statuses, total_count: statuses.length };
}

function runsBody(pr: FakePr, sha: string): unknown {
  const example = EXAMPLES['check-run-paginated'] ?? {};
  const template = ((example.check_runs as object[] | undefined) ?? [])[0] ?? {};
  const runs = pr.checks.flatMap((c) => (c.kind === 'run' ? [{ ...template, head_sha: sha, name: c.name, status: c.status, conclusion: c.conclusion }] : []));
  return { total_count: runs.length, check_runs: runs };
}
