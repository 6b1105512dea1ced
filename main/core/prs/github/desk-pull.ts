import type { DeskCheck, DeskPr } from '../../../../shared/pr-desk';
import { MAX_FILE_PAGES, PER_PAGE, type ApiFailure, type CheckRunsJson, type CombinedStatusJson, type GithubApi, type OpenPullJson, type PrRef, type PullJson, type ReviewJson } from './github-api';
import { deskChecks } from './github-checks';

// One PR of the merge desk as GitHub has it, and how it is asked about: the PR (conditional), its
// files only when its head moved, its reviews and its head's checks (conditional).

/** A review decision: approved, changes requested, or none yet. */
export type ReviewDecision = NonNullable<DeskPr['reviewDecision']>;

/** One PR of a loop as GitHub has it (the desk joins it with the night, the findings and the Next checklist). */
export interface RemotePr {
  readonly loop: string;
  /** `owner/name`. */
  readonly repo: string;
  readonly number: number;
  readonly url: string;
  readonly state: 'open' | 'merged' | 'closed';
  readonly title: string;
  readonly author: string | null;
  readonly body: string | null;
  readonly head: string;
  readonly headSha: string;
  readonly base: string;
  readonly additions: number | null;
  readonly deletions: number | null;
  readonly changedFiles: number | null;
  /** The paths it changes, as GitHub lists them (read again only when the head moves). */
  readonly files: readonly string[];
  /** GitHub listed fewer files than it changes (it lists at most 3000): `files` is not all of them. */
  readonly filesCut: boolean;
  readonly checks: readonly DeskCheck[];
  /** GitHub's `mergeable_state`, or null before it is known. */
  readonly mergeable: string | null;
  readonly reviewDecision: ReviewDecision | null;
  readonly openedAt: string;
  readonly mergedAt: string | null;
  /** Why GitHub could not be asked about it just now, or null. */
  readonly problem: string | null;
  /** When GitHub's answer last changed it (ISO), or null while only the list has been read. */
  readonly answeredAt: string | null;
}

/** One PR's last answers, for the next conditional requests. */
export interface PullCache {
  pullEtag: string | null;
  /** The head whose files `files` are. */
  filesSha: string | null;
  files: readonly string[];
  filesCut: boolean;
  reviewsEtag: string | null;
  reviews: readonly ReviewJson[] | null;
  statusEtag: string | null;
  status: CombinedStatusJson | null;
  runsEtag: string | null;
  runs: CheckRunsJson | null;
}

/** A cache with nothing in it yet. */
export const emptyCache = (): PullCache => ({ pullEtag: null, filesSha: null, files: [], filesCut: false, reviewsEtag: null, reviews: null, statusEtag: null, status: null, runsEtag: null, runs: null });

/**
 * The decision GitHub's reviews make: each reviewer's latest approval or change request counts
 * (a comment changes nothing, a dismissal withdraws it); any change request wins, then any
 * approval; else a review is still required.
 */
export function reviewDecision(reviews: readonly ReviewJson[]): ReviewDecision {
  const latest = new Map<string, string>();
  for (const r of reviews) {
    const who = r.user?.login;
    if (typeof who !== 'string') continue;
    if (r.state === 'APPROVED' || r.state === 'CHANGES_REQUESTED') latest.set(who, r.state);
    else if (r.state === 'DISMISSED') latest.delete(who);
  }
  const states = new Set(latest.values());
  return states.has('CHANGES_REQUESTED') ? 'changes-requested' : states.has('APPROVED') ? 'approved' : 'review-required';
}

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
const login = (u: { readonly login: string } | null | undefined): string | null => (typeof u?.login === 'string' ? u.login.slice(0, 100) : null);

/** A PR as the open list shows it, before its own answer (no size, checks or reviews yet). */
export function fromList(ref: PrRef, loop: string, p: OpenPullJson): RemotePr {
  return {
    loop,
    repo: `${ref.owner}/${ref.repo}`,
    number: ref.number,
    url: text(p.html_url, 500),
    state: 'open',
    title: text(p.title, 500),
    author: login(p.user),
    body: typeof p.body === 'string' ? p.body.slice(0, 65_536) : null,
    head: text(p.head.ref, 255),
    headSha: text(p.head.sha, 64),
    base: text(p.base.ref, 255),
    additions: null,
    deletions: null,
    changedFiles: null,
    files: [],
    filesCut: false,
    checks: [],
    mergeable: null,
    reviewDecision: null,
    openedAt: text(p.created_at, 40),
    mergedAt: null,
    problem: null,
    answeredAt: null,
  };
}

/** A PR from its own answer; what the answer lacks is kept from `before`. */
function fromPull(ref: PrRef, loop: string, url: string, p: PullJson, before: RemotePr | null): RemotePr {
  return {
    ...(before ?? { files: [], filesCut: false, checks: [], reviewDecision: null, problem: null, answeredAt: null }),
    loop,
    repo: `${ref.owner}/${ref.repo}`,
    number: ref.number,
    url: text(p.html_url, 500) || url,
    state: p.merged || p.merged_at ? 'merged' : p.state === 'closed' ? 'closed' : 'open',
    title: text(p.title, 500),
    author: login(p.user),
    body: typeof p.body === 'string' ? p.body.slice(0, 65_536) : null,
    head: text(p.head.ref, 255),
    headSha: text(p.head.sha, 64),
    base: text(p.base?.ref, 255),
    additions: count(p.additions),
    deletions: count(p.deletions),
    changedFiles: count(p.changed_files),
    mergeable: typeof p.mergeable_state === 'string' ? p.mergeable_state.slice(0, 40) : null,
    openedAt: text(p.created_at, 40),
    mergedAt: typeof p.merged_at === 'string' ? p.merged_at : null,
  };
}

/** What one ask came to: the PR as far as known (null when nothing is; its answeredAt unchanged on a failure), and the failure that stopped it. */
export interface Asked {
  readonly pr: RemotePr | null;
  readonly failure: { readonly failure: ApiFailure; readonly what: string } | null;
}

/** Up to 3000 files of `ref` (30 pages); `cut` when GitHub has more than were listed. */
async function readFiles(api: GithubApi, ref: PrRef, changed: number | null): Promise<{ files: string[]; cut: boolean } | { failure: ApiFailure }> {
  const files: string[] = [];
  for (let page = 1; page <= MAX_FILE_PAGES; page += 1) {
    const a = await api.pullFiles(ref, page, null);
    if (a.kind === 'failed') return { failure: a.failure };
    if (a.kind !== 'data') return { failure: { kind: 'other', message: 'GitHub answered 304 to an unconditional request' } };
    for (const f of a.data) if (typeof f.filename === 'string') files.push(f.filename.slice(0, 1000));
    if (a.data.length < PER_PAGE) return { files, cut: changed !== null && changed > files.length };
  }
  return { files, cut: true };
}

/**
 * Ask about one PR: the PR (conditional on `cache`), then while it is open its files (only when
 * its head is not the one they were read for), its reviews and its head's checks (conditional).
 * The PR comes back as `before` itself when nothing changed (all 304s, or the same answers).
 */
export async function askPull(api: GithubApi, ref: PrRef, loop: string, url: string, before: RemotePr | null, cache: PullCache, nowIso: () => string): Promise<Asked> {
  const name = `${ref.owner}/${ref.repo}#${ref.number}`;
  const pull = await api.pull(ref, before && before.answeredAt !== null ? cache.pullEtag : null);
  if (pull.kind === 'failed') return { pr: before, failure: { failure: pull.failure, what: name } };
  let pr: RemotePr | null = before;
  if (pull.kind === 'data') {
    cache.pullEtag = pull.etag;
    pr = fromPull(ref, loop, url, pull.data, before);
  }
  if (pr === null) return { pr: null, failure: { failure: { kind: 'other', message: 'GitHub answered 304 to a first request' }, what: name } };
  pr = { ...pr, loop };
  if (pr.state === 'open') {
    if (cache.filesSha !== pr.headSha) {
      const read = await readFiles(api, ref, pr.changedFiles);
      if ('failure' in read) return { pr, failure: { failure: read.failure, what: `${name}'s files` } };
      [cache.files, cache.filesCut, cache.filesSha] = [read.files, read.cut, pr.headSha];
    }
    const [reviews, status, runs] = await Promise.all([api.reviews(ref, cache.reviewsEtag), api.status(ref, pr.headSha, cache.statusEtag), api.checkRuns(ref, pr.headSha, cache.runsEtag)]);
    if (reviews.kind === 'failed') return { pr, failure: { failure: reviews.failure, what: `${name}'s reviews` } };
    if (status.kind === 'failed') return { pr, failure: { failure: status.failure, what: `${name}'s checks` } };
    if (runs.kind === 'failed') return { pr, failure: { failure: runs.failure, what: `${name}'s checks` } };
    if (reviews.kind === 'data') [cache.reviews, cache.reviewsEtag] = [reviews.data, reviews.etag];
    if (status.kind === 'data') [cache.status, cache.statusEtag] = [status.data, status.etag];
    if (runs.kind === 'data') [cache.runs, cache.runsEtag] = [runs.data, runs.etag];
    pr = { ...pr, files: cache.files, filesCut: cache.filesCut, checks: deskChecks(cache.status, cache.runs), reviewDecision: cache.reviews ? reviewDecision(cache.reviews) : null };
  }
  const same = (a: RemotePr | null, b: RemotePr): boolean => a !== null && JSON.stringify({ ...a, problem: null, answeredAt: null }) === JSON.stringify({ ...b, problem: null, answeredAt: null });
  if (before !== null && before.answeredAt !== null && before.problem === null && same(before, pr)) return { pr: before, failure: null };
  return { pr: { ...pr, problem: null, answeredAt: nowIso() }, failure: null };
}
