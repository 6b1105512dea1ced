import { Octokit } from '@octokit/core';
import { log } from '../../logging/log';
import { messageOf } from '../../../../shared/errors';

// The REST calls Loopdeck makes, through Octokit (its auth header, base URL for GitHub
// Enterprise, error shape). Each GET is conditional (If-None-Match with the last ETag: a 304 costs
// nothing against the rate limit) and has its own deadline, and every failure comes back as a
// value a person can read, never as a thrown error carrying the request (or the token).

/** One PR as `GET /repos/{owner}/{repo}/pulls/{n}` returns it: the fields read. */
export interface PullJson {
  readonly state: 'open' | 'closed';
  readonly merged: boolean;
  readonly merged_at: string | null;
  readonly closed_at: string | null;
  readonly merged_by: { readonly login: string } | null;
  readonly body: string | null;
  readonly head: { readonly sha: string; readonly ref?: string };
  /** The fields the merge desk reads (GitHub always sends them; read defensively all the same). */
  readonly number?: number;
  readonly html_url?: string;
  readonly title?: string;
  readonly user?: { readonly login: string } | null;
  readonly base?: { readonly ref: string };
  readonly created_at?: string;
  readonly additions?: number;
  readonly deletions?: number;
  readonly changed_files?: number;
  /** clean, blocked, behind, dirty, unstable, has_hooks, draft, unknown (GitHub computes it lazily). */
  readonly mergeable_state?: string;
}

/** One PR as `GET /repos/{owner}/{repo}/pulls` lists it: the fields read. */
export interface OpenPullJson {
  readonly number: number;
  readonly html_url: string;
  readonly title: string;
  readonly user: { readonly login: string } | null;
  readonly created_at: string;
  readonly body: string | null;
  readonly head: { readonly ref: string; readonly sha: string };
  readonly base: { readonly ref: string };
}

/** One changed file as `GET /repos/{owner}/{repo}/pulls/{n}/files` lists it: the field read. */
export interface PullFileJson {
  readonly filename: string;
}

/** One review as `GET /repos/{owner}/{repo}/pulls/{n}/reviews` lists it (oldest first): the fields read. */
export interface ReviewJson {
  readonly user: { readonly login: string } | null;
  /** APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING. */
  readonly state: string;
}

/** `GET /repos/{owner}/{repo}`: the field read (`permissions` is there for an authenticated caller). */
export interface RepoJson {
  readonly permissions?: { readonly push?: boolean };
}

/** `PUT /repos/{owner}/{repo}/pulls/{n}/merge`'s 200 answer. */
export interface MergeJson {
  readonly merged: boolean;
  readonly sha: string;
  readonly message: string;
}

/**
 * What a merge came to: merged (the merge commit's sha), refused by GitHub (405 not mergeable,
 * 409 head moved, 422 invalid, 403 no write access: its status and its message as it said it), or
 * no answer (a timeout, the token refused, a rate limit).
 */
export type MergeAnswer =
  | { readonly kind: 'merged'; readonly sha: string; readonly message: string }
  | { readonly kind: 'refused'; readonly status: number; readonly message: string }
  | { readonly kind: 'failed'; readonly failure: ApiFailure };

/** How many pages of a PR's files are read: GitHub lists at most 3000 files (30 pages of 100). */
export const MAX_FILE_PAGES = 30;

/** `GET /repos/{owner}/{repo}/commits/{ref}/status`: the fields read. */
export interface CombinedStatusJson {
  readonly state: string;
  readonly total_count: number;
  readonly statuses: readonly { readonly context: string; readonly state: string; readonly target_url?: string | null }[];
}

/** `GET /repos/{owner}/{repo}/commits/{ref}/check-runs`: the fields read. */
export interface CheckRunsJson {
  readonly total_count: number;
  readonly check_runs: readonly { readonly name: string; readonly status: string; readonly conclusion: string | null; readonly html_url?: string | null; readonly details_url?: string | null }[];
}

/** Why a call got no usable answer. */
export type ApiFailure =
  | { readonly kind: 'unauthorized'; readonly message: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'rate-limited'; readonly until: number }
  | { readonly kind: 'timeout' }
  | {
      readonly kind: 'other';
      readonly message: string;
      /** The HTTP status, when GitHub answered one. */
      readonly status?: number;
      /** GitHub's own `message` in the answer, as it said it (without the documentation link). */
      readonly said?: string;
    };

/** An answer: new data with its ETag, `not-modified` (the ETag still holds), or a failure. */
export type ApiAnswer<T> = { readonly kind: 'data'; readonly data: T; readonly etag: string | null } | { readonly kind: 'not-modified' } | { readonly kind: 'failed'; readonly failure: ApiFailure };

/** A repository and PR number on the configured GitHub. */
export interface PrRef {
  readonly owner: string;
  readonly repo: string;
  readonly number: number;
}

/** What the client is built from. */
export interface GithubApiOptions {
  readonly token: string;
  readonly apiUrl: string;
  readonly timeoutMs: number;
  readonly now: () => number;
  /** Aborted when the service stops: what is in flight is given up at once. */
  readonly stop: AbortSignal;
}

interface HttpErrorLike {
  readonly status: number;
  readonly message: string;
  readonly response?: { readonly headers: Readonly<Record<string, string | number | undefined>>; readonly data?: unknown };
}

/** The most of one answer read (100 check runs with their output summaries stay well under it). */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * fetch, with the answer's body cut off past MAX_ANSWER_BYTES (whatever a server sends is
 * bounded); `cut.hit` says it was (Octokit reads a body it cannot finish as "", so it must be told).
 */
function boundedFetch(cut: { hit: boolean }): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    let seen = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen <= MAX_ANSWER_BYTES) return controller.enqueue(chunk);
        cut.hit = true;
        controller.error(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
      },
    });
    return new Response(res.body.pipeThrough(limit), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const isHttpError = (err: unknown): err is HttpErrorLike => err instanceof Error && typeof (err as { status?: unknown }).status === 'number';

/** An issue as `GET /repos/{owner}/{repo}/issues` lists it: the fields read. */
export interface IssueJson {
  readonly number: number;
  readonly html_url: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** Present when the item is a pull request (the issues list holds both). */
  readonly pull_request?: unknown;
}

/** A comment as `GET /repos/{owner}/{repo}/issues/{n}/comments` lists it: the fields read. */
export interface IssueCommentJson {
  readonly id: number;
  readonly created_at: string;
}

/** How many items a page of a list holds (GitHub's most). */
export const PER_PAGE = 100;

/**
 * The calls, conditional and each with its deadline: a PR, its checks, and the rolling issue's
 * comments; for the merge desk, a repository's open PRs, a PR's files and reviews, the token's
 * permissions on a repository, and the merge (the one call that writes).
 */
export class GithubApi {
  private readonly octokit: Octokit;

  constructor(private readonly options: GithubApiOptions) {
    this.octokit = new Octokit({
      auth: options.token,
      baseUrl: options.apiUrl.replace(/\/+$/, ''),
      userAgent: 'loopdeck',
      // Octokit logs deprecations and its own warnings; they go to our log, which never sees the token.
      log: { debug: () => undefined, info: () => undefined, warn: (m: string) => log.warn(`GitHub: ${m}`), error: (m: string) => log.warn(`GitHub: ${m}`) },
    });
  }

  /** The PR itself. */
  pull(ref: PrRef, etag: string | null): Promise<ApiAnswer<PullJson>> {
    return this.get<PullJson>('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner: ref.owner, repo: ref.repo, pull_number: ref.number }, etag);
  }

  /** The combined commit status of a sha. */
  status(ref: PrRef, sha: string, etag: string | null): Promise<ApiAnswer<CombinedStatusJson>> {
    return this.get<CombinedStatusJson>('GET /repos/{owner}/{repo}/commits/{ref}/status', { owner: ref.owner, repo: ref.repo, ref: sha, per_page: 100 }, etag);
  }

  /** The check runs of a sha. */
  checkRuns(ref: PrRef, sha: string, etag: string | null): Promise<ApiAnswer<CheckRunsJson>> {
    return this.get<CheckRunsJson>('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner: ref.owner, repo: ref.repo, ref: sha, per_page: 100 }, etag);
  }

  /** The open issues of `owner/repo` carrying `label`, most recently updated first (one page). */
  openIssues(owner: string, repo: string, label: string, etag: string | null): Promise<ApiAnswer<readonly IssueJson[]>> {
    return this.get<readonly IssueJson[]>('GET /repos/{owner}/{repo}/issues', { owner, repo, labels: label, state: 'open', sort: 'updated', direction: 'desc', per_page: 10 }, etag, 'list');
  }

  /** One page of an issue's comments updated at or after `since` (ISO), oldest first. */
  comments(owner: string, repo: string, issue: number, since: string, page: number, etag: string | null): Promise<ApiAnswer<readonly IssueCommentJson[]>> {
    return this.get<readonly IssueCommentJson[]>('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue, since, per_page: PER_PAGE, page }, etag, 'list');
  }

  /** One page (100) of the open PRs of `owner/repo`, newest first. */
  openPulls(owner: string, repo: string, etag: string | null, page = 1): Promise<ApiAnswer<readonly OpenPullJson[]>> {
    return this.get<readonly OpenPullJson[]>('GET /repos/{owner}/{repo}/pulls', { owner, repo, state: 'open', per_page: PER_PAGE, page }, etag, 'list');
  }

  /** One page (100) of the files a PR changes; GitHub lists at most MAX_FILE_PAGES of them. */
  pullFiles(ref: PrRef, page: number, etag: string | null): Promise<ApiAnswer<readonly PullFileJson[]>> {
    return this.get<readonly PullFileJson[]>('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', { owner: ref.owner, repo: ref.repo, pull_number: ref.number, per_page: PER_PAGE, page }, etag, 'list');
  }

  /** The first 100 reviews of a PR, oldest first. */
  reviews(ref: PrRef, etag: string | null): Promise<ApiAnswer<readonly ReviewJson[]>> {
    return this.get<readonly ReviewJson[]>('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { owner: ref.owner, repo: ref.repo, pull_number: ref.number, per_page: PER_PAGE }, etag, 'list');
  }

  /** The repository, for what this token may do there (`permissions.push`: it can merge). */
  repoPermissions(owner: string, repo: string, etag: string | null): Promise<ApiAnswer<RepoJson>> {
    return this.get<RepoJson>('GET /repos/{owner}/{repo}', { owner, repo }, etag);
  }

  /**
   * Merge a PR if its head is still `sha` (GitHub's precondition: a PR that moved is refused with
   * 409, not merged). Not conditional, and never retried here.
   */
  async merge(ref: PrRef, sha: string, method: 'merge' | 'squash' | 'rebase'): Promise<MergeAnswer> {
    const answer = await this.get<MergeJson>('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', { owner: ref.owner, repo: ref.repo, pull_number: ref.number, sha, merge_method: method }, null);
    if (answer.kind === 'not-modified') return { kind: 'failed', failure: { kind: 'other', message: 'GitHub answered a merge with 304' } };
    if (answer.kind === 'data') {
      const d = answer.data;
      const message = typeof d.message === 'string' ? d.message.slice(0, 500) : '';
      if (d.merged === true && typeof d.sha === 'string') return { kind: 'merged', sha: d.sha, message };
      return { kind: 'refused', status: 200, message: message || 'GitHub did not merge it (merged: false)' };
    }
    const f = answer.failure;
    if (f.kind === 'other' && f.status !== undefined) return { kind: 'refused', status: f.status, message: (f.said ?? f.message).slice(0, 500) };
    if (f.kind === 'not-found') return { kind: 'refused', status: 404, message: 'Not Found' };
    return answer;
  }

  /** One conditional GET (or, without an ETag, the merge's PUT); `shape` is what the answer must be (a JSON object, or a list). */
  private async get<T>(route: string, params: Record<string, string | number>, etag: string | null, shape: 'object' | 'list' = 'object'): Promise<ApiAnswer<T>> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const signal = AbortSignal.any([deadline, this.options.stop]);
    const cut = { hit: false };
    const tooLarge = { kind: 'failed', failure: { kind: 'other', message: `the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; not read` } } as const;
    try {
      const res = await this.octokit.request(route, {
        ...params,
        headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', ...(etag ? { 'if-none-match': etag } : {}) },
        request: { signal, fetch: boundedFetch(cut) },
      });
      if (cut.hit) return tooLarge;
      // Octokit reads a body it could not finish as "": one cut short by the deadline is a timeout, not bad JSON.
      if (deadline.aborted) return { kind: 'failed', failure: { kind: 'timeout' } };
      if (shape === 'list' ? !Array.isArray(res.data) : typeof res.data !== 'object' || res.data === null || Array.isArray(res.data)) {
        return { kind: 'failed', failure: { kind: 'other', message: `the answer is not a JSON ${shape}` } };
      }
      const tag = res.headers.etag;
      return { kind: 'data', data: res.data as T, etag: typeof tag === 'string' ? tag : null };
    } catch (err) {
      if (this.options.stop.aborted) return { kind: 'failed', failure: { kind: 'other', message: 'stopped' } };
      if (deadline.aborted) return { kind: 'failed', failure: { kind: 'timeout' } };
      if (cut.hit) return tooLarge;
      if (!isHttpError(err)) return { kind: 'failed', failure: { kind: 'other', message: messageOf(err) } };
      if (err.status === 304) return { kind: 'not-modified' };
      return { kind: 'failed', failure: this.failure(err) };
    }
  }

  private failure(err: HttpErrorLike): ApiFailure {
    const headers = err.response?.headers ?? {};
    const header = (name: string): string | null => {
      const v = headers[name];
      return v === undefined ? null : String(v);
    };
    if (err.status === 401) return { kind: 'unauthorized', message: err.message };
    if (err.status === 404) return { kind: 'not-found' };
    // The primary limit: 403 (or 429) with nothing remaining, until the reset (epoch seconds).
    // A secondary limit says how long in retry-after.
    const retryAfter = Number(header('retry-after'));
    if ((err.status === 403 || err.status === 429) && (header('x-ratelimit-remaining') === '0' || Number.isFinite(retryAfter) && header('retry-after') !== null)) {
      const reset = Number(header('x-ratelimit-reset'));
      const until = header('x-ratelimit-remaining') === '0' && Number.isFinite(reset) && reset > 0 ? reset * 1000 : this.options.now() + (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 60) * 1000;
      return { kind: 'rate-limited', until };
    }
    const data = err.response?.data;
    const said = typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string' ? (data as { message: string }).message : undefined;
    return { kind: 'other', message: `HTTP ${err.status}: ${err.message}`.slice(0, 300), status: err.status, ...(said !== undefined ? { said: said.slice(0, 500) } : {}) };
  }
}
