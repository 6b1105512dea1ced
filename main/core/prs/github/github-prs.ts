import { PrRemoteSchema, type Problem, type PrRemote, type PullRequest } from '../../../../shared/domain';
import type { GithubConfig } from '../../config/schema';
import { log } from '../../logging/log';
import { Rounds } from './rounds';
import { GithubApi, type ApiFailure, type CheckRunsJson, type CombinedStatusJson, type PrRef } from './github-api';
import { combineChecks } from './github-checks';
import { prRef, webHost } from './github-target';
import { githubToken, tokenOrigin } from './github-token';
import { nextSection } from './next-section';
import { messageOf } from '../../../../shared/errors';

/** How many PRs are asked about at once: a slow answer holds up one lane, not the round. */
const LANES = 4;

/** What the service is built from. */
export interface GithubPrsOptions {
  readonly config: GithubConfig;
  /** Where `env:NAME` is read and what `gh` runs with (process.env by default). */
  readonly env?: NodeJS.ProcessEnv;
  /** Wall-clock ms: rate-limit resets and answer times are real time, whatever the engine's clock says. */
  readonly clock?: () => number;
  /** GitHub's view of the PRs changed (a new map each time). */
  readonly onChange: (remote: ReadonlyMap<string, PrRemote>) => void;
  /** The one problem of the whole service (no token, a refused token, the rate limit), or null when none. */
  readonly onProblem: (problem: Problem | null) => void;
  /**
   * Where the merged and closed PRs are kept between runs (the store's meta), so a restart neither
   * asks about them again nor shows them ready to merge (and raises their merge cue) until GitHub answers.
   */
  readonly keep?: { readonly load: () => string | null; readonly save: (json: string) => void };
}

/** At most this many merged or closed PRs are kept between runs (the loops' windows hold far fewer). */
const MAX_KEPT = 1000;

const isFinal = (r: PrRemote | undefined): boolean => r?.state === 'merged' || r?.state === 'closed';

/** The merged and closed PRs kept by an earlier run; anything of another shape is dropped. */
function loadFinals(json: string | null): [string, PrRemote][] {
  if (json === null) return [];
  try {
    const raw: unknown = JSON.parse(json);
    if (!Array.isArray(raw)) return [];
    return raw.slice(0, MAX_KEPT).flatMap((entry: unknown): [string, PrRemote][] => {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string') return [];
      const r = PrRemoteSchema.safeParse(entry[1]);
      return r.success && isFinal(r.data) ? [[entry[0], r.data]] : [];
    });
  } catch {
    return [];
  }
}

/** What one PR's last answers were, for the next conditional requests. */
interface Cached {
  pullEtag: string | null;
  sha: string | null;
  statusEtag: string | null;
  status: CombinedStatusJson | null;
  runsEtag: string | null;
  runs: CheckRunsJson | null;
}

const EMPTY: PrRemote = { state: null, mergedBy: null, mergedAt: null, closedAt: null, checks: null, checkNames: [], next: null, answeredAt: null, problem: null };

/**
 * Asks GitHub about the open PRs Loopdeck shows, each every `github.every`: its state (merged by
 * whom and when, closed), its head commit's checks and the body's Next section. Proportional: only
 * PRs on the configured GitHub's host, never again once merged or closed, conditional requests
 * (a 304 is free), nothing while a rate limit lasts, nothing at all after the token is refused.
 * It runs on its own timer, so a slow GitHub holds up nothing but itself.
 */
export class GithubPrs {
  private readonly host: string;
  private readonly clock: () => number;
  private readonly env: NodeJS.ProcessEnv;
  private api: GithubApi | null = null;
  /** Set once the token is known to be missing or refused: then nothing is asked any more. */
  private disabled: string | null = null;
  private tokenFrom = '';
  private readonly remote = new Map<string, PrRemote>();
  private readonly cache = new Map<string, Cached>();
  /** When each PR was last asked about (wall clock). */
  private readonly askedAt = new Map<string, number>();
  /** URL → repository and number of the PRs to ask about (open, or not yet answered). */
  private tracked = new Map<string, PrRef>();
  /** Every PR URL Loopdeck shows (what is kept between runs is bounded by it). */
  private shown = new Set<string>();
  private pausedUntil = 0;
  /** The rounds' schedule; its signal aborts the requests in flight when the service stops. */
  private readonly rounds = new Rounds({
    round: (scheduled) => this.round(!scheduled),
    next: () => Math.max(this.options.config.every, this.pausedUntil - this.clock()),
    what: 'a round of PR requests',
  });

  constructor(private readonly options: GithubPrsOptions) {
    this.host = webHost(options.config.apiUrl);
    this.clock = options.clock ?? Date.now;
    this.env = options.env ?? process.env;
    for (const [url, remote] of loadFinals(options.keep?.load() ?? null)) this.remote.set(url, remote);
  }

  /** What is known before any request: the merged and closed PRs kept by the last run. */
  known(): ReadonlyMap<string, PrRemote> {
    return new Map(this.remote);
  }

  /** The PRs Loopdeck shows changed: ask about those on this GitHub not yet merged or closed there; a new one soon. */
  track(prs: readonly PullRequest[]): void {
    this.shown = new Set(prs.map((p) => p.url));
    const next = new Map<string, PrRef>();
    let fresh = false;
    for (const pr of prs) {
      const final = this.remote.get(pr.url)?.state;
      if (final === 'merged' || final === 'closed') continue;
      const ref = prRef(pr.url, this.host);
      if (!ref) continue;
      next.set(pr.url, ref);
      if (!this.tracked.has(pr.url)) fresh = true;
    }
    this.tracked = next;
    if (fresh) this.rounds.soon();
  }

  /** Ask now and then every `github.every`, until `stop`. */
  start(): void {
    this.rounds.start();
  }

  /** Stop asking: the requests in flight are given up (the round then ends at once). */
  stop(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round now, awaited (the CLI's `review` and `snapshot`). */
  pollOnce(): Promise<void> {
    return this.rounds.now();
  }


  /**
   * Ask about the tracked PRs: all of them (`all`), else those not asked about for half of
   * `every` (so a new PR's round asks only it, and it is asked again in the next round or the one after).
   */
  private async round(all: boolean): Promise<void> {
    if (this.disabled !== null || this.tracked.size === 0 || this.rounds.signal.aborted) return;
    if (!(await this.ready())) return;
    if (this.clock() < this.pausedUntil) return;
    if (this.pausedUntil !== 0) {
      this.pausedUntil = 0;
      this.options.onProblem(null);
    }
    const due = this.clock() - this.options.config.every / 2;
    const queue = [...this.tracked].filter(([url]) => all || (this.askedAt.get(url) ?? -Infinity) <= due);
    let changed = false;
    let finals = false;
    const lane = async (): Promise<void> => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const [url, ref] = item;
        if (this.disabled !== null || this.rounds.signal.aborted || this.clock() < this.pausedUntil) return;
        this.askedAt.set(url, this.clock());
        const before = this.remote.get(url) ?? EMPTY;
        const after = await this.ask(url, ref, before).catch((err: unknown): PrRemote => {
          // An answer of an unexpected shape (a field missing): said on the PR, the others go on.
          const problem = `GitHub: ${ref.owner}/${ref.repo}#${ref.number}: an answer Loopdeck could not read (${messageOf(err)})`.slice(0, 300);
          return before.problem === problem ? before : { ...before, problem };
        });
        // Not answered for a spent rate limit: asked again as soon as it resets.
        if (this.clock() < this.pausedUntil) this.askedAt.delete(url);
        if (after !== before && !this.rounds.signal.aborted) {
          this.remote.set(url, after);
          changed = true;
          if (isFinal(after)) {
            finals = true;
            this.tracked.delete(url);
            this.cache.delete(url);
            this.askedAt.delete(url);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LANES, queue.length) }, lane));
    if (changed && !this.rounds.signal.aborted) this.options.onChange(new Map(this.remote));
    if (finals) this.keepFinals();
  }

  /** Keep the merged and closed PRs Loopdeck still shows, for the next run. */
  private keepFinals(): void {
    const kept = [...this.remote].filter(([url, r]) => isFinal(r) && (this.shown.size === 0 || this.shown.has(url))).slice(-MAX_KEPT);
    this.options.keep?.save(JSON.stringify(kept));
  }

  /** The client, once the token is known; false (and said once) when there is none. */
  private async ready(): Promise<boolean> {
    if (this.api) return true;
    const token = await githubToken(this.options.config, this.host, this.env);
    if ('error' in token) return this.disable(token.error);
    this.tokenFrom = token.from;
    this.api = new GithubApi({ token: token.token, apiUrl: this.options.config.apiUrl, timeoutMs: this.options.config.timeout, now: this.clock, stop: this.rounds.signal });
    return true;
  }

  private disable(message: string): false {
    // Said once: lanes answered 401 at the same time say nothing more.
    if (this.disabled !== null) return false;
    this.disabled = message;
    log.warn(message);
    this.options.onProblem({ source: 'github', line: null, message });
    return false;
  }

  /** One PR: its state, then (while open) its checks; `before` itself when nothing changed. */
  private async ask(url: string, ref: PrRef, before: PrRemote): Promise<PrRemote> {
    const api = this.api;
    if (!api) return before;
    const cached = this.cache.get(url) ?? { pullEtag: null, sha: null, statusEtag: null, status: null, runsEtag: null, runs: null };
    this.cache.set(url, cached);
    const name = `${ref.owner}/${ref.repo}#${ref.number}`;
    let remote = before;
    const pull = await api.pull(ref, cached.pullEtag);
    if (pull.kind === 'failed') return this.failed(pull.failure, name, before);
    if (pull.kind === 'data') {
      const p = pull.data;
      cached.pullEtag = pull.etag;
      cached.sha = p.head.sha;
      const state = p.merged || p.merged_at ? 'merged' : p.state === 'closed' ? 'closed' : 'open';
      remote = { ...remote, state, mergedBy: p.merged_by?.login ?? null, mergedAt: p.merged_at, closedAt: p.closed_at, next: nextSection(p.body), ...(typeof p.head.ref === 'string' ? { head: p.head.ref.slice(0, 255) } : {}) };
    }
    // A limit another lane hit meanwhile: ask nothing more until it resets.
    if (this.clock() < this.pausedUntil || this.disabled !== null) return remote === before ? before : { ...remote, answeredAt: this.iso() };
    if (remote.state === 'open' && cached.sha !== null) {
      const sha = cached.sha;
      const [status, runs] = await Promise.all([api.status(ref, sha, cached.statusEtag), api.checkRuns(ref, sha, cached.runsEtag)]);
      if (status.kind === 'failed') return this.failed(status.failure, `${name}'s checks`, remote);
      if (runs.kind === 'failed') return this.failed(runs.failure, `${name}'s checks`, remote);
      if (status.kind === 'data') [cached.status, cached.statusEtag] = [status.data, status.etag];
      if (runs.kind === 'data') [cached.runs, cached.runsEtag] = [runs.data, runs.etag];
      const { checks, names } = combineChecks(cached.status, cached.runs);
      remote = { ...remote, checks, checkNames: names };
    }
    const updated: PrRemote = { ...remote, problem: null };
    // Unchanged (all 304s, or the same answer): the same object, so nothing is published.
    if (JSON.stringify({ ...updated, answeredAt: null }) === JSON.stringify({ ...before, answeredAt: null })) return before;
    return { ...updated, answeredAt: this.iso() };
  }

  /** A failed request: said on the PR (not visible, no answer in time), or for the whole service (token, rate limit). */
  private failed(failure: ApiFailure, name: string, before: PrRemote): PrRemote {
    const on = (problem: string): PrRemote => (before.problem === problem ? before : { ...before, problem });
    switch (failure.kind) {
      case 'unauthorized':
        this.disable(
          `GitHub refused the token from ${this.tokenFrom} (401 ${failure.message.slice(0, 120)}): set a valid token there${this.options.config.token === undefined ? ' (`gh auth login`)' : ''} and restart Loopdeck; PRs are not read from GitHub until then`,
        );
        return before;
      case 'rate-limited': {
        const until = new Date(failure.until).toISOString();
        if (failure.until > this.pausedUntil) {
          this.pausedUntil = failure.until;
          const message = `GitHub's API rate limit for ${tokenOrigin(this.options.config)} is used up until ${until}: Loopdeck asks about PRs again after then`;
          log.warn(message);
          this.options.onProblem({ source: 'github', line: null, message });
        }
        return before;
      }
      case 'not-found':
        return on(`GitHub answers 404 for ${name}: not visible with this token (a private repository it cannot read, or a wrong URL)`);
      case 'timeout':
        return on(`GitHub did not answer for ${name} within ${Math.round(this.options.config.timeout / 1000)} s; asked again at the next round`);
      case 'other':
        return on(`GitHub: ${name}: ${failure.message}`);
    }
  }

  private iso(): string {
    return new Date(this.clock()).toISOString();
  }
}
