import type { FakePr } from './github-server';

// The merge desk's answers of the GitHub stand-in (testing/github-server.ts): a repository's open
// PRs, a PR's files and reviews, a repository with the caller's permissions, and the merge. Bodies
// carry the documented fields Loopdeck reads, with the example PR's shape where it has one.

/** A merge the stand-in made: which PR, the head sha it was asked for, the method, and whose token. */
export interface FakeMerge {
  readonly key: string;
  readonly sha: string;
  readonly method: string;
  readonly by: string;
  readonly at: string;
}

/** The fields of a PR that the list and the PR itself share. */
export function pullFields(owner: string, repo: string, number: number, pr: FakePr, sha: string, example: Record<string, unknown>): Record<string, unknown> {
  const exHead = (example.head as Record<string, unknown> | undefined) ?? {};
  const exBase = (example.base as Record<string, unknown> | undefined) ?? {};
  return {
    number,
    html_url: `https://127.0.0.1/${owner}/${repo}/pull/${number}`,
    title: pr.title ?? (example.title as string | undefined) ?? `PR ${number}`,
    user: { ...(example.user as object), login: pr.author ?? ((example.user as { login?: string } | undefined)?.login ?? 'octocat') },
    created_at: pr.createdAt ?? (example.created_at as string | undefined) ?? '2026-08-24T05:00:00Z',
    body: pr.body,
    head: { ...exHead, sha, ...(pr.head ? { ref: pr.head } : {}) },
    base: { ...exBase, ref: pr.base ?? (exBase.ref as string | undefined) ?? 'main' },
  };
}

/** The extra fields of `GET /pulls/{n}` for the desk: its size and mergeable state. */
export function pullSize(pr: FakePr): Record<string, unknown> {
  return {
    ...(pr.additions !== undefined ? { additions: pr.additions } : {}),
    ...(pr.deletions !== undefined ? { deletions: pr.deletions } : {}),
    changed_files: pr.changedFiles ?? pr.files?.length ?? 0,
    mergeable_state: pr.mergeableState ?? 'clean',
  };
}

/** `GET /pulls/{n}/files`: each file as GitHub lists it (capped at 3000, as GitHub's). */
export function filesBody(pr: FakePr, sha: string): Record<string, unknown>[] {
  return (pr.files ?? []).slice(0, 3000).map((filename, n) => ({
    sha: `${sha.slice(0, 30)}${String(n).padStart(10, '0')}`,
    filename,
    status: 'modified',
    additions: 1,
    deletions: 0,
    changes: 1,
  }));
}

/** `GET /pulls/{n}/reviews`: oldest first, each with its reviewer and state. */
export function reviewsBody(pr: FakePr, sha: string): Record<string, unknown>[] {
  return (pr.reviews ?? []).map((r, n) => ({ id: 80 + n, user: { login: r.login, id: 100 + n, type: 'User' }, body: '', state: r.state, commit_id: sha, submitted_at: '2026-08-24T06:00:00Z', author_association: 'MEMBER' }));
}

/** `GET /repos/{o}/{r}`: the repository, with what the caller may do there. */
export function repoBody(api: string, owner: string, repo: string, push: boolean): Record<string, unknown> {
  return {
    id: 1296269,
    name: repo,
    full_name: `${owner}/${repo}`,
    private: false,
    owner: { login: owner, id: 1, type: 'Organization' },
    html_url: `https://127.0.0.1/${owner}/${repo}`,
    url: `${api}/repos/${owner}/${repo}`,
    default_branch: 'main',
    permissions: { admin: false, maintain: false, push, triage: true, pull: true },
  };
}

/** The mergeable states GitHub merges in (others answer 405). */
const MERGEABLE = new Set(['clean', 'unstable', 'has_hooks']);

/**
 * `PUT /pulls/{n}/merge` with {sha, merge_method}: 409 when `sha` is not the head's, 405 when the
 * PR is not open or its mergeable state is not clean/unstable/has_hooks, 422 for an unknown
 * method, 403 without push access; else 200 and the PR is merged (recorded in `merges`).
 */
export function mergePr(key: string, pr: FakePr, headSha: string, body: unknown, push: boolean, by: string, merges: FakeMerge[]): { status: number; body: Record<string, unknown> } {
  const doc = { documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request' };
  const b = (typeof body === 'object' && body !== null ? body : {}) as { sha?: unknown; merge_method?: unknown };
  const method = b.merge_method ?? 'merge';
  if (!push) return { status: 403, body: { message: 'Resource not accessible by integration', ...doc } };
  if (typeof method !== 'string' || !['merge', 'squash', 'rebase'].includes(method)) return { status: 422, body: { message: 'Invalid request.\n\nmerge_method is not a valid value.', ...doc } };
  if (pr.state !== 'open' || pr.merged) return { status: 405, body: { message: 'Pull Request is not mergeable', ...doc } };
  if (typeof b.sha === 'string' && b.sha !== headSha) return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.', ...doc } };
  if (!MERGEABLE.has(pr.mergeableState ?? 'clean')) return { status: 405, body: { message: 'Pull Request is not mergeable', ...doc } };
  const at = new Date().toISOString();
  const mergeSha = [...headSha].reverse().join('');
  Object.assign(pr, { state: 'closed', merged: true, mergedBy: by, mergedAt: at, closedAt: at });
  merges.push({ key, sha: headSha, method, by, at });
  return { status: 200, body: { sha: mergeSha, merged: true, message: 'Pull Request successfully merged' } };
}
