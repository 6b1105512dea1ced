import { Octokit } from '@octokit/core';
import { log } from '../../logging/log';
import { messageOf } from '../../../../shared/errors';
import { MAX_ANSWER_BYTES, type ApiAnswer, type ApiFailure, type GithubApiOptions } from './github-api';

// The two issue calls the dead-man comment check makes (deadman-comments.ts), made exactly as
// GithubApi makes the PR calls: through Octokit, conditional (If-None-Match with the last ETag: a
// 304 costs nothing against the rate limit), each with its own deadline and the service's stop,
// the answer bounded, and every failure a value a person can read (never the token).
// GithubApi keeps its request private, so its few lines are repeated here; fold these two calls
// into it when github-api.ts is next changed.

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

/** How many items a page holds (GitHub's most). */
export const PER_PAGE = 100;

interface HttpErrorLike {
  readonly status: number;
  readonly message: string;
  readonly response?: { readonly headers: Readonly<Record<string, string | number | undefined>> };
}

const isHttpError = (err: unknown): err is HttpErrorLike => err instanceof Error && typeof (err as { status?: unknown }).status === 'number';

/** fetch, with the body cut off past MAX_ANSWER_BYTES; `cut.hit` says it was (as GithubApi's). */
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

/** The rolling issue's two calls, conditional and each with its deadline. */
export class GithubIssuesApi {
  private readonly octokit: Octokit;

  constructor(private readonly options: GithubApiOptions) {
    this.octokit = new Octokit({
      auth: options.token,
      baseUrl: options.apiUrl.replace(/\/+$/, ''),
      userAgent: 'loopdeck',
      log: { debug: () => undefined, info: () => undefined, warn: (m: string) => log.warn(`GitHub: ${m}`), error: (m: string) => log.warn(`GitHub: ${m}`) },
    });
  }

  /** The open issues of `owner/repo` carrying `label`, most recently updated first (one page). */
  openIssues(owner: string, repo: string, label: string, etag: string | null): Promise<ApiAnswer<readonly IssueJson[]>> {
    return this.get<readonly IssueJson[]>('GET /repos/{owner}/{repo}/issues', { owner, repo, labels: label, state: 'open', sort: 'updated', direction: 'desc', per_page: 10 }, etag);
  }

  /** One page of an issue's comments updated at or after `since` (ISO), oldest first. */
  comments(owner: string, repo: string, issue: number, since: string, page: number, etag: string | null): Promise<ApiAnswer<readonly IssueCommentJson[]>> {
    return this.get<readonly IssueCommentJson[]>('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue, since, per_page: PER_PAGE, page }, etag);
  }

  private async get<T>(route: string, params: Record<string, string | number>, etag: string | null): Promise<ApiAnswer<T>> {
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
      if (!Array.isArray(res.data)) return { kind: 'failed', failure: { kind: 'other', message: 'the answer is not a JSON list' } };
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
    // The primary limit: 403 (or 429) with nothing remaining, until the reset; a secondary one says retry-after.
    const retryAfter = Number(header('retry-after'));
    if ((err.status === 403 || err.status === 429) && (header('x-ratelimit-remaining') === '0' || (Number.isFinite(retryAfter) && header('retry-after') !== null))) {
      const reset = Number(header('x-ratelimit-reset'));
      const until = header('x-ratelimit-remaining') === '0' && Number.isFinite(reset) && reset > 0 ? reset * 1000 : this.options.now() + (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 60) * 1000;
      return { kind: 'rate-limited', until };
    }
    return { kind: 'other', message: `HTTP ${err.status}: ${err.message}`.slice(0, 300) };
  }
}
