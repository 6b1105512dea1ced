import type { Problem } from '../../../../shared/domain';
import { messageOf } from '../../../../shared/errors';
import type { GithubConfig } from '../../config/schema';
import { log } from '../../logging/log';
import { Rounds } from './rounds';
import { askPull, emptyCache, fromList, type PullCache, type RemotePr } from './desk-pull';
import { GithubApi, PER_PAGE, type ApiFailure, type OpenPullJson, type PrRef } from './github-api';
import { prRef, webHost } from './github-target';
import { githubToken, tokenOrigin } from './github-token';

export type { RemotePr } from './desk-pull';

/** A loop's repository and which head branches are its PRs (its `branch` pattern). */
export interface DeskTarget {
  readonly loop: string;
  /** `owner/name`. */
  readonly repo: string;
  readonly headMatches: (ref: string) => boolean;
}

/**
 * A PR URL a loop's verdict or deliver record named: the URL alone (its loop then from the targets
 * of its repository; '' when none), or with the loop. URLs on another host than `github.apiUrl`'s are left alone.
 */
export type NamedPr = string | { readonly url: string; readonly loop: string };

/** What the desk reader is built from. */
export interface GithubDeskOptions {
  readonly config: GithubConfig;
  /** Where `env:NAME` is read and what `gh` runs with (process.env by default). */
  readonly env?: NodeJS.ProcessEnv;
  /** Wall-clock ms (rate-limit resets and answer times are real time). */
  readonly clock?: () => number;
  /** The one problem of the whole reader (no token, a refused token, the rate limit, a repository it cannot list), or null. */
  readonly onProblem: (problem: Problem | null) => void;
  /** `list()` changed. */
  readonly onChange: () => void;
}

/** What a merge came to: done (the merge commit's sha), or why not, as GitHub said it. */
export type DeskMergeResult = { readonly ok: true; readonly sha: string } | { readonly ok: false; readonly message: string };

/** How many PRs are asked about at once. */
const LANES = 4;
/** At most this many pages (of 100) of a repository's open PRs are read. */
const MAX_LIST_PAGES = 10;

interface RepoState {
  readonly owner: string;
  readonly repo: string;
  pages: { etag: string | null; items: readonly OpenPullJson[] }[];
  problem: string | null;
}

/** What the token may do in a repository (`permissions.push`), and the ETag of that answer. */
interface Perms {
  readonly owner: string;
  readonly repo: string;
  canWrite: boolean | null;
  etag: string | null;
}

interface Entry {
  readonly ref: PrRef;
  loop: string;
  url: string;
  pr: RemotePr | null;
  readonly cache: PullCache;
  named: boolean;
  /** The asks of this PR, one after the other (a merge's ask waits for the round's). */
  busy: Promise<void>;
}

const lower = (s: string): string => s.toLowerCase();
const keyOf = (ref: PrRef): string => lower(`${ref.owner}/${ref.repo}#${ref.number}`);
const isFinal = (pr: RemotePr | null): boolean => pr?.state === 'merged' || pr?.state === 'closed';

/**
 * The merge desk's GitHub: every open PR of each loop's repository whose head matches the loop's
 * branch pattern, plus the PRs the loops named, with title, author, size, files, checks by name
 * with their links, mergeable state and review decision; whether the token may merge; and the
 * merge itself. Proportional: per repository one conditional list request a round (a 304 costs no
 * rate limit); per open PR of interest the PR, its reviews and its checks, conditional, and its
 * files only when its head moved; a PR that left the open list is asked once more, then dropped
 * (kept while a loop names it, and then never asked again once merged or closed).
 */
export class GithubDesk {
  private readonly host: string;
  private readonly clock: () => number;
  private api: GithubApi | null = null;
  private disabled: string | null = null;
  private tokenFrom = '';
  private targets: readonly DeskTarget[] = [];
  /** Named PR key → its ref, URL and loop ('' when only the targets can say). */
  private named = new Map<string, { ref: PrRef; url: string; loop: string }>();
  private repos = new Map<string, RepoState>();
  private readonly perms = new Map<string, Perms>();
  private readonly entries = new Map<string, Entry>();
  private listed: readonly RemotePr[] = [];
  /** A repository's write permission changed since the last `onChange`. */
  private permsChanged = false;
  private pausedUntil = 0;
  private published: string | null = null;
  /** The rounds' schedule; its signal aborts the requests in flight when the service stops. */
  private readonly rounds = new Rounds({
    round: () => this.round(),
    next: () => Math.max(this.options.config.every, this.pausedUntil - this.clock()),
    what: "a round of the merge desk's requests",
  });

  constructor(private readonly options: GithubDeskOptions) {
    this.host = webHost(options.config.apiUrl);
    this.clock = options.clock ?? Date.now;
  }

  /** The loops' repositories and branch patterns, and the PR URLs their verdicts and deliver records named. */
  track(targets: readonly DeskTarget[], named: readonly NamedPr[]): void {
    this.targets = targets.filter((t) => /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(t.repo));
    const next = new Map<string, { ref: PrRef; url: string; loop: string }>();
    for (const n of named) {
      const url = typeof n === 'string' ? n : n.url;
      const ref = prRef(url, this.host);
      if (ref) next.set(keyOf(ref), { ref, url, loop: typeof n === 'string' ? (next.get(keyOf(ref))?.loop ?? '') : n.loop });
    }
    const fresh = [...next.keys()].some((k) => !this.named.has(k)) || this.targets.some((t) => !this.repos.has(lower(t.repo)));
    this.named = next;
    const repos = new Map<string, RepoState>();
    for (const t of this.targets) {
      const [owner = '', repo = ''] = t.repo.split('/');
      repos.set(lower(t.repo), this.repos.get(lower(t.repo)) ?? { owner, repo, pages: [], problem: null });
    }
    this.repos = repos;
    if (fresh) this.rounds.soon();
  }

  /** The PRs as GitHub has them (the same array while nothing changed). */
  list(): readonly RemotePr[] {
    return this.listed;
  }

  /** Whether this token may merge in `repo` (push permission), or null while not known. */
  canWrite(repo: string): boolean | null {
    return this.perms.get(lower(repo))?.canWrite ?? null;
  }

  /** Ask now and then every `github.every`, until `stop`. */
  start(): void {
    this.rounds.start();
  }

  /** Stop asking: the requests in flight are given up. */
  stop(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round now, awaited. */
  pollOnce(): Promise<void> {
    return this.rounds.now();
  }

  /**
   * Merge `repo`#`number` if its head is still `sha` (GitHub refuses it otherwise), then ask
   * about the PR again at once. GitHub's refusal comes back as it said it.
   */
  async merge(repo: string, number: number, sha: string, method: 'merge' | 'squash' | 'rebase'): Promise<DeskMergeResult> {
    const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repo);
    if (!m?.[1] || !m[2] || !Number.isSafeInteger(number) || number <= 0) return { ok: false, message: `not a PR: ${repo}#${number}` };
    if (!/^[0-9a-f]{7,64}$/i.test(sha)) return { ok: false, message: `not a commit sha: ${sha.slice(0, 80)}` };
    if (!(await this.ready())) return { ok: false, message: this.disabled ?? 'GitHub is not available' };
    if (this.clock() < this.pausedUntil) return { ok: false, message: `GitHub's API rate limit is used up until ${new Date(this.pausedUntil).toISOString()}; merge after then` };
    const api = this.api;
    if (!api) return { ok: false, message: 'GitHub is not available' };
    const ref: PrRef = { owner: m[1], repo: m[2], number };
    const name = `${repo}#${number}`;
    const answer = await api.merge(ref, sha, method);
    const entry = this.entries.get(keyOf(ref)) ?? this.entry(ref, `https://${this.host}/${repo}/pull/${number}`, this.loopOf(ref, null));
    if (answer.kind !== 'failed' || answer.failure.kind === 'timeout') {
      await this.ask(entry);
      this.publish();
    }
    if (answer.kind === 'merged') return { ok: true, sha: answer.sha };
    if (answer.kind === 'refused') return { ok: false, message: answer.message };
    const f = answer.failure;
    if (f.kind === 'timeout') return { ok: false, message: `GitHub did not answer the merge of ${name} within ${Math.round(this.options.config.timeout / 1000)} s: it may have merged; its state is asked again` };
    this.problemOf(f, `the merge of ${name}`);
    return { ok: false, message: f.kind === 'other' ? `GitHub: the merge of ${name}: ${f.message}` : (this.disabled ?? this.pauseMessage() ?? `GitHub could not merge ${name}`) };
  }


  private stopped(): boolean {
    return this.disabled !== null || this.rounds.signal.aborted || this.clock() < this.pausedUntil;
  }

  /** The repositories' lists, then each PR of interest, then what the token may do. */
  private async round(): Promise<void> {
    if (this.disabled !== null || this.rounds.signal.aborted) return;
    if (this.repos.size === 0 && this.named.size === 0) return;
    if (!(await this.ready()) || this.clock() < this.pausedUntil) return;
    this.pausedUntil = 0;
    await Promise.all([...this.repos.values()].map((r) => this.readList(r)));
    if (this.stopped()) return this.publish();
    const ask: Entry[] = [];
    const wanted = new Set<string>();
    const inList = new Set<string>();
    for (const r of this.repos.values()) {
      for (const item of r.pages.flatMap((p) => p.items)) {
        const ref: PrRef = { owner: r.owner, repo: r.repo, number: item.number };
        const key = keyOf(ref);
        inList.add(key);
        const target = this.targets.find((t) => lower(t.repo) === lower(`${r.owner}/${r.repo}`) && typeof item.head?.ref === 'string' && t.headMatches(item.head.ref));
        if (!target && !this.named.has(key)) continue;
        const entry = this.entries.get(key) ?? this.entry(ref, item.html_url, '');
        entry.loop = target?.loop ?? this.loopOf(ref, item.head.ref);
        entry.pr ??= fromList(ref, entry.loop, item);
        wanted.add(key);
        ask.push(entry);
      }
    }
    for (const [key, n] of this.named) {
      if (wanted.has(key)) continue;
      wanted.add(key);
      const entry = this.entries.get(key) ?? this.entry(n.ref, n.url, this.loopOf(n.ref, null));
      entry.named = true;
      if (!isFinal(entry.pr)) ask.push(entry);
    }
    for (const [key, entry] of this.entries) {
      entry.named = this.named.has(key);
      if (wanted.has(key)) continue;
      // Left the open list: asked once more (merged or closed), dropped once final (or no longer of interest).
      if (entry.pr === null || isFinal(entry.pr) || inList.has(key)) this.entries.delete(key);
      else ask.push(entry);
    }
    const queue = [...ask];
    const lane = async (): Promise<void> => {
      for (let e = queue.shift(); e && !this.stopped(); e = queue.shift()) await this.ask(e);
    };
    await Promise.all(Array.from({ length: Math.min(LANES, queue.length) }, lane));
    const where = [...this.repos.values(), ...[...this.entries.values()].filter((e) => e.pr?.state === 'open').map((e) => e.ref)];
    for (const { owner, repo } of where) {
      if (!this.perms.has(lower(`${owner}/${repo}`))) this.perms.set(lower(`${owner}/${repo}`), { owner, repo, canWrite: null, etag: null });
    }
    const asking = new Set(where.map((w) => lower(`${w.owner}/${w.repo}`)));
    for (const [k, p] of this.perms) if (asking.has(k) && !this.stopped()) await this.readPermissions(p);
    this.publish();
  }

  /** A new entry for `ref`. */
  private entry(ref: PrRef, url: string, loop: string): Entry {
    const e: Entry = { ref, loop, url, pr: null, cache: emptyCache(), named: this.named.has(keyOf(ref)), busy: Promise.resolve() };
    this.entries.set(keyOf(ref), e);
    return e;
  }

  /** The loop of a PR: the one that named it, else the one whose repository and head pattern match, else the repository's first. */
  private loopOf(ref: PrRef, head: string | null): string {
    const named = this.named.get(keyOf(ref))?.loop;
    if (named) return named;
    const repo = lower(`${ref.owner}/${ref.repo}`);
    const same = this.targets.filter((t) => lower(t.repo) === repo);
    return (head !== null ? same.find((t) => t.headMatches(head)) : undefined)?.loop ?? same[0]?.loop ?? '';
  }

  /** A repository's open PRs, each page conditional (an unchanged repository: one 304 per page). */
  private async readList(r: RepoState): Promise<void> {
    const api = this.api;
    if (!api) return;
    const name = `${r.owner}/${r.repo}`;
    const pages: RepoState['pages'] = [];
    for (let page = 1; page <= MAX_LIST_PAGES; page += 1) {
      const had = r.pages[page - 1];
      const a = await api.openPulls(r.owner, r.repo, had?.etag ?? null, page);
      if (a.kind === 'failed') {
        const keys = this.targets.filter((t) => lower(t.repo) === lower(name)).map((t) => `loops.${t.loop}.repo`);
        r.problem = this.problemOf(a.failure, `the open PRs of ${name} (${keys.join(', ') || 'a named PR'})`);
        return;
      }
      const items = a.kind === 'data' ? a.data.filter((p) => typeof p?.number === 'number' && typeof p.head === 'object' && p.head !== null) : (had?.items ?? []);
      pages.push({ etag: a.kind === 'data' ? a.etag : (had?.etag ?? null), items });
      if (items.length < PER_PAGE) break;
    }
    r.pages = pages;
    r.problem = null;
  }

  /** What the token may do in `r`: `permissions.push` (conditional). */
  private async readPermissions(p: Perms): Promise<void> {
    const a = await this.api?.repoPermissions(p.owner, p.repo, p.etag);
    if (!a || a.kind === 'not-modified') return;
    if (a.kind === 'failed') return void this.problemOf(a.failure, `${p.owner}/${p.repo}'s permissions`);
    const can = a.data.permissions?.push === true;
    if (can !== p.canWrite) this.permsChanged = true;
    [p.etag, p.canWrite] = [a.etag, can];
  }

  /** Ask about one PR (after any ask of it in flight); its new state is kept on the entry. */
  private ask(e: Entry): Promise<void> {
    const run = async (): Promise<void> => {
      const api = this.api;
      if (!api || this.stopped()) return;
      const before = e.pr;
      const asked = await askPull(api, e.ref, e.loop || this.loopOf(e.ref, before?.head ?? null), e.url, before, e.cache, () => new Date(this.clock()).toISOString()).catch(
        (err: unknown) => ({ pr: before, failure: { failure: { kind: 'other', message: `an answer Loopdeck could not read (${messageOf(err)})` } as ApiFailure, what: `${e.ref.owner}/${e.ref.repo}#${e.ref.number}` } }),
      );
      if (this.rounds.signal.aborted) return;
      let pr = asked.pr;
      if (asked.failure) {
        const problem = this.problemOf(asked.failure.failure, asked.failure.what);
        if (pr && problem !== null && pr.problem !== problem) pr = { ...pr, problem };
      }
      e.pr = pr;
    };
    e.busy = e.busy.then(run).catch((err: unknown) => log.warn(`GitHub: asking about ${e.ref.owner}/${e.ref.repo}#${e.ref.number} failed: ${messageOf(err)}`));
    return e.busy;
  }

  /** Rebuild the list and the problem; say what changed. */
  private publish(): void {
    const next = [...this.entries.values()]
      .flatMap((e) => (e.pr ? [e.pr] : []))
      .sort((a, b) => a.repo.localeCompare(b.repo) || a.number - b.number);
    const changed = next.length !== this.listed.length || next.some((p, i) => p !== this.listed[i]);
    if (changed) this.listed = next;
    const message = this.disabled ?? this.pauseMessage() ?? [...this.repos.values()].find((r) => r.problem !== null)?.problem ?? null;
    if (message !== this.published) {
      this.published = message;
      this.options.onProblem(message === null ? null : { source: 'github', line: null, message });
    }
    if ((changed || this.permsChanged) && !this.rounds.signal.aborted) this.options.onChange();
    this.permsChanged = false;
  }

  private pauseMessage(): string | null {
    if (this.clock() >= this.pausedUntil) return null;
    return `GitHub's API rate limit for ${tokenOrigin(this.options.config)} is used up until ${new Date(this.pausedUntil).toISOString()}: the merge desk asks again after then`;
  }

  /** The client, once the token is known; false (said once) without one. */
  private async ready(): Promise<boolean> {
    if (this.disabled !== null) return false;
    if (this.api) return true;
    const token = await githubToken(this.options.config, this.host, this.options.env ?? process.env);
    if ('error' in token) return this.disable(token.error);
    this.tokenFrom = token.from;
    this.api = new GithubApi({ token: token.token, apiUrl: this.options.config.apiUrl, timeoutMs: this.options.config.timeout, now: this.clock, stop: this.rounds.signal });
    return true;
  }

  private disable(message: string): false {
    if (this.disabled !== null) return false;
    this.disabled = message;
    log.warn(message);
    this.publish();
    return false;
  }

  /** A failure in words, for the PR or repository it is about; the token's and the rate limit's go to the whole reader (null then). */
  private problemOf(failure: ApiFailure, what: string): string | null {
    switch (failure.kind) {
      case 'unauthorized':
        this.disable(`GitHub refused the token from ${this.tokenFrom} (401 ${failure.message.slice(0, 120)}): set a valid token there and restart Loopdeck; the merge desk reads nothing from GitHub until then`);
        return null;
      case 'rate-limited':
        if (failure.until > this.pausedUntil) {
          this.pausedUntil = failure.until;
          log.warn(this.pauseMessage() ?? '');
        }
        return null;
      case 'not-found':
        return `GitHub answers 404 for ${what}: not visible with this token (a private repository it cannot read, or a wrong name)`;
      case 'timeout':
        return `GitHub did not answer for ${what} within ${Math.round(this.options.config.timeout / 1000)} s; asked again at the next round`;
      case 'other':
        return `GitHub: ${what}: ${failure.message}`.slice(0, 300);
    }
  }
}
