import { Octokit } from '@octokit/core';
import { log } from '../../logging/log';
import { messageOf } from '../../../../shared/errors';

// The three REST calls Loopdeck makes, through Octokit (its auth header, base URL for GitHub
// Enterprise, error shape). Each is conditional (If-None-Match with the last ETag: a 304 costs
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
}

/** `GET /repos/{owner}/{repo}/commits/{ref}/status`: the fields read. */
export interface CombinedStatusJson {
  readonly state: string;
  readonly total_count: number;
  readonly statuses: readonly { readonly context: string; readonly state: string }[];
}

/** `GET /repos/{owner}/{repo}/commits/{ref}/check-runs`: the fields read. */
export interface CheckRunsJson {
  readonly total_count: number;
  readonly check_runs: readonly { readonly name: string; readonly status: string; readonly conclusion: string | null }[];
}

/** Why a call got no usable answer. */
export type ApiFailure =
  | { readonly kind: 'unauthorized'; readonly message: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'rate-limited'; readonly until: number }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'other'; readonly message: string };

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

/** The calls, conditional and each with its deadline: a PR, its checks, and the rolling issue's comments. */
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

  /** One conditional GET; `shape` is what the answer must be (a JSON object, or a list). */
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
    return { kind: 'other', message: `HTTP ${err.status}: ${err.message}`.slice(0, 300) };
  }
}
