import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// The demo's GitHub: a stand-in on 127.0.0.1 speaking the REST calls Loopdeck makes
// (prs/github/github-api.ts), for one repository, so a newcomer sees the merge desk work: titles,
// checks, a stale PR, an overlap, a merge. Bounded: request bodies are cut at 64 KiB, lists are
// paged (100 at most), the PRs it keeps are capped; it answers only the demo's token.
//   GET /repos/{o}/{r}                           the repository, permissions.push true
//   GET /repos/{o}/{r}/pulls?state=open          the open PRs, newest first, paged
//   GET /repos/{o}/{r}/pulls/{n}                 a PR, with its size, mergeable state and merge
//   GET /repos/{o}/{r}/pulls/{n}/files|reviews   its files (paged) and reviews
//   PUT /repos/{o}/{r}/pulls/{n}/merge           {sha}: 409 moved, 405 not mergeable, 200 merged
//   GET /repos/{o}/{r}/commits/{sha}/status|check-runs   the checks of a PR's head
//   GET /repos/{o}/{r}/issues?labels=…           the rolling dead-man issue, when it has the labels
//   GET /repos/{o}/{r}/issues/{n}/comments       its comments (`since`, paged), oldest first
// Every GET has an ETag and answers a matching If-None-Match with 304.

/** One check on a PR's head: a commit status (ci/test) or a check run (e2e/smoke). */
export type SimCheck =
  | { readonly kind: 'status'; readonly name: string; readonly state: 'success' | 'failure' | 'pending' }
  | { readonly kind: 'run'; readonly name: string; readonly conclusion: 'success' | 'failure' | null };

/** One PR of the stand-in (its fields may change while it runs: `setChecks`, a merge). */
export interface SimPr {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  /** The head branch (`reliability/2026-12-01`). */
  readonly head: string;
  readonly sha: string;
  readonly author: string;
  /** ISO. */
  readonly createdAt: string;
  readonly files: readonly string[];
  readonly additions: number;
  readonly deletions: number;
  checks: readonly SimCheck[];
  /** GitHub's mergeable_state: clean, unstable, blocked... */
  mergeableState: string;
  readonly reviews: readonly { readonly login: string; readonly state: string }[];
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: string | null;
  mergedBy: string | null;
}

/** The loop's rolling dead-man issue: each phase comments on it when it ends. */
export interface SimIssue {
  readonly number: number;
  readonly title: string;
  readonly label: string;
  /** ISO. */
  readonly createdAt: string;
}

/** What the stand-in is started with. */
export interface GithubSimOptions {
  /** The only token it answers (`Authorization: token <it>` or `bearer <it>`); anything else is 401. */
  readonly token: string;
  /** `owner/name`. */
  readonly repo: string;
  readonly prs: readonly SimPr[];
  /** Whose token it is: a merge's `merged_by`. */
  readonly login?: string;
  /** The rolling dead-man issue, if any. */
  readonly issue?: SimIssue;
}

/** The running stand-in. */
export interface GithubSim {
  /** The API base URL (`http://127.0.0.1:<port>`), for `github.apiUrl`. */
  readonly url: string;
  /** The PR numbered `n`, if it has one. */
  pr(n: number): SimPr | undefined;
  /** Add a PR (a live cycle's deliver opened it); the oldest are dropped past MAX_SIM_PRS. */
  add(pr: SimPr): void;
  /** Set a PR's checks (CI finished on it); its mergeable state follows them. */
  setChecks(n: number, checks: readonly SimCheck[]): void;
  /** Comment on the rolling issue at `at` (a phase's dead-man comment); the oldest go past MAX_SIM_COMMENTS. */
  comment(at: Date, body: string): void;
  close(): Promise<void>;
}

/** The most PRs it keeps (a demo left playing for days opens one a cycle). */
export const MAX_SIM_PRS = 200;
/** The most comments the rolling issue keeps. */
export const MAX_SIM_COMMENTS = 1000;
/** The most of a request body it reads. */
const MAX_BODY_BYTES = 64 * 1024;

/** A fixed 40-hex head sha for a name (as GitHub's commits have). */
export function simSha(name: string): string {
  return createHash('sha1').update(name).digest('hex');
}

/**
 * The mergeable state GitHub computes from a head's checks, the demo's statuses being required:
 * blocked (a status failed, or any check is pending), unstable (only a check run failed), clean.
 */
export function mergeableOf(checks: readonly SimCheck[]): string {
  const required = checks.some((c) => c.kind === 'status' && c.state === 'failure');
  const pending = checks.some((c) => (c.kind === 'status' ? c.state === 'pending' : c.conclusion === null));
  const failed = checks.some((c) => c.kind === 'run' && c.conclusion === 'failure');
  return required || pending ? 'blocked' : failed ? 'unstable' : 'clean';
}

const etagOf = (body: unknown): string => `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32)}"`;

/** Start the stand-in on 127.0.0.1 (a free port). */
export async function startGithubSim(options: GithubSimOptions): Promise<GithubSim> {
  const [owner, name] = options.repo.split('/') as [string, string];
  const prs = new Map<number, SimPr>(options.prs.map((p) => [p.number, p]));
  const login = options.login ?? 'demo-operator';
  const sockets = new Set<Socket>();
  let url = '';
  const comments: { readonly id: number; readonly at: string; readonly body: string }[] = [];
  let commentId = 0;
  const web = (n: number): string => `https://github.com/${owner}/${name}/pull/${n}`;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', ...headers });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: ServerResponse): void => send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });

  const listed = (p: SimPr): Record<string, unknown> => ({
    number: p.number,
    state: p.state,
    html_url: web(p.number),
    url: `${url}/repos/${owner}/${name}/pulls/${p.number}`,
    title: p.title,
    user: { login: p.author, type: 'User' },
    body: p.body,
    created_at: p.createdAt,
    updated_at: p.mergedAt ?? p.createdAt,
    head: { ref: p.head, sha: p.sha, label: `${owner}:${p.head}` },
    base: { ref: 'main', label: `${owner}:main` },
  });
  const issueWeb = (i: SimIssue): string => `https://github.com/${owner}/${name}/issues/${i.number}`;
  const issueBody = (i: SimIssue): Record<string, unknown> => ({
    number: i.number,
    html_url: issueWeb(i),
    title: i.title,
    state: 'open',
    labels: [{ name: i.label }],
    user: { login: 'reliability-bot', type: 'User' },
    comments: comments.length,
    created_at: i.createdAt,
    updated_at: comments.at(-1)?.at ?? i.createdAt,
  });
  const pullBody = (p: SimPr): Record<string, unknown> => ({
    ...listed(p),
    merged: p.merged,
    merged_at: p.mergedAt,
    merged_by: p.mergedBy ? { login: p.mergedBy, type: 'User' } : null,
    closed_at: p.state === 'closed' ? p.mergedAt : null,
    additions: p.additions,
    deletions: p.deletions,
    changed_files: p.files.length,
    mergeable_state: p.state === 'open' ? p.mergeableState : 'unknown',
  });
  const statusBody = (p: SimPr): Record<string, unknown> => {
    const statuses = p.checks.flatMap((c) => (c.kind === 'status' ? [{ context: c.name, state: c.state, target_url: `${web(p.number)}/checks?check=${encodeURIComponent(c.name)}`, description: c.state }] : []));
    const state = statuses.some((s) => s.state === 'failure') ? 'failure' : statuses.some((s) => s.state === 'pending') ? 'pending' : 'success';
    return { sha: p.sha, state, total_count: statuses.length, statuses };
  };
  const runsBody = (p: SimPr): Record<string, unknown> => {
    const runs = p.checks.flatMap((c, i) =>
      c.kind === 'run' ? [{ id: p.number * 100 + i, name: c.name, head_sha: p.sha, status: c.conclusion === null ? 'in_progress' : 'completed', conclusion: c.conclusion, html_url: `${web(p.number)}/checks?run=${p.number * 100 + i}` }] : [],
    );
    return { total_count: runs.length, check_runs: runs };
  };
  const paged = <T>(items: readonly T[], q: URLSearchParams): T[] => {
    const per = Math.min(100, Math.max(1, Number(q.get('per_page') ?? 30) || 30));
    const page = Math.min(1000, Math.max(1, Number(q.get('page') ?? 1) || 1));
    return items.slice((page - 1) * per, page * per);
  };

  /** A merge: GitHub's precondition on `sha` (409), then its mergeable state (405), then merged. */
  const merge = (p: SimPr, body: unknown): { status: number; body: Record<string, unknown> } => {
    const doc = { documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request' };
    const b = (typeof body === 'object' && body !== null ? body : {}) as { sha?: unknown; merge_method?: unknown };
    if (b.merge_method !== undefined && !['merge', 'squash', 'rebase'].includes(String(b.merge_method))) return { status: 422, body: { message: 'Invalid request.\n\nmerge_method is not a valid value.', ...doc } };
    if (p.state !== 'open' || p.merged) return { status: 405, body: { message: 'Pull Request is not mergeable', ...doc } };
    if (typeof b.sha === 'string' && b.sha !== p.sha) return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.', ...doc } };
    if (!['clean', 'unstable', 'has_hooks'].includes(p.mergeableState)) return { status: 405, body: { message: 'Pull Request is not mergeable', ...doc } };
    Object.assign(p, { state: 'closed', merged: true, mergedAt: new Date().toISOString(), mergedBy: login });
    return { status: 200, body: { sha: simSha(`merge:${p.sha}`), merged: true, message: 'Pull Request successfully merged' } };
  };

  const readBody = async (req: IncomingMessage): Promise<string | null> => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY_BYTES) return null;
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const auth = req.headers.authorization ?? '';
    const m0 = /^(?:token|bearer)\s+(\S+)$/i.exec(auth);
    if (m0?.[1] !== options.token) return send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const answer = (body: unknown): void => {
      const etag = etagOf(body);
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        return void res.end();
      }
      send(res, 200, body, { etag });
    };
    const issues = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+)\/comments)?$/.exec(u.pathname);
    if (issues) {
      const issue = options.issue;
      if (req.method !== 'GET' || issues[1]?.toLowerCase() !== owner.toLowerCase() || issues[2]?.toLowerCase() !== name.toLowerCase()) return notFound(res);
      if (!issues[3]) {
        const labels = (u.searchParams.get('labels') ?? '').split(',').filter(Boolean);
        const st = u.searchParams.get('state') ?? 'open';
        const shown = issue && (st === 'open' || st === 'all') && labels.every((l) => l === issue.label);
        return answer(shown ? [issueBody(issue)] : []);
      }
      if (!issue || Number(issues[3]) !== issue.number) return notFound(res);
      const since = Date.parse(u.searchParams.get('since') ?? '');
      const chosen = comments.filter((c) => !Number.isFinite(since) || Date.parse(c.at) >= since);
      return answer(
        paged(chosen, u.searchParams).map((c) => ({ id: c.id, html_url: `${issueWeb(issue)}#issuecomment-${c.id}`, body: c.body, user: { login: 'reliability-bot', type: 'User' }, created_at: c.at, updated_at: c.at })),
      );
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)(?:\/(pulls)(?:\/(\d+)(?:\/(files|reviews|merge))?)?|\/commits\/([0-9a-f]{7,64})\/(status|check-runs))?\/?$/.exec(u.pathname);
    if (!m || m[1]?.toLowerCase() !== owner.toLowerCase() || m[2]?.toLowerCase() !== name.toLowerCase()) return notFound(res);
    const [, , , pulls, number, sub, sha, what] = m;
    if (sub === 'merge') {
      if (req.method !== 'PUT') return send(res, 404, { message: 'Not Found' });
      const p = prs.get(Number(number));
      if (!p) return notFound(res);
      const text = await readBody(req);
      if (text === null) return send(res, 413, { message: 'Request body too large' });
      let body: unknown;
      try {
        body = JSON.parse(text || 'null');
      } catch {
        return send(res, 400, { message: 'Problems parsing JSON' });
      }
      const done = merge(p, body);
      return send(res, done.status, done.body);
    }
    if (req.method !== 'GET') return notFound(res);
    if (!pulls && !sha) return answer({ name, full_name: `${owner}/${name}`, owner: { login: owner, type: 'Organization' }, html_url: `https://github.com/${owner}/${name}`, default_branch: 'main', private: true, permissions: { admin: false, maintain: false, push: true, triage: true, pull: true } });
    if (pulls && !number) {
      const st = u.searchParams.get('state') ?? 'open';
      const chosen = [...prs.values()].filter((p) => st === 'all' || p.state === st).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.number - a.number);
      return answer(paged(chosen, u.searchParams).map(listed));
    }
    const p = number ? prs.get(Number(number)) : [...prs.values()].find((x) => x.sha === sha);
    if (!p) return notFound(res);
    if (sub === 'files') return answer(paged(p.files.map((filename, i) => ({ sha: simSha(`${p.sha}:${i}`), filename, status: 'modified', additions: 1, deletions: 0, changes: 1 })), u.searchParams));
    if (sub === 'reviews') return answer(p.reviews.map((r, i) => ({ id: p.number * 10 + i, user: { login: r.login, type: 'User' }, state: r.state, commit_id: p.sha, body: '' })));
    if (what === 'status') return answer(statusBody(p));
    if (what === 'check-runs') return answer(runsBody(p));
    return answer(pullBody(p));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { message: 'Server Error' });
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    pr: (n) => prs.get(n),
    add: (pr) => {
      prs.set(pr.number, pr);
      for (const n of [...prs.keys()].sort((a, b) => a - b).slice(0, Math.max(0, prs.size - MAX_SIM_PRS))) prs.delete(n);
    },
    setChecks: (n, checks) => {
      const p = prs.get(n);
      if (!p) return;
      p.checks = checks;
      p.mergeableState = mergeableOf(checks);
    },
    comment: (at, body) => {
      commentId += 1;
      comments.push({ id: commentId, at: at.toISOString().replace(/\.\d{3}Z$/, 'Z'), body });
      comments.sort((a, b) => a.at.localeCompare(b.at) || a.id - b.id);
      if (comments.length > MAX_SIM_COMMENTS) comments.splice(0, comments.length - MAX_SIM_COMMENTS);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
