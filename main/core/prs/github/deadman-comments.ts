import { sortBreaches, type ContractBreach } from '../../../../shared/contract-breach';
import type { LoopState, PhaseStatus, Problem } from '../../../../shared/domain';
import { messageOf } from '../../../../shared/errors';
import { ownEntry, phaseCap, type GithubConfig, type LoopConfig } from '../../config/schema';
import { log } from '../../logging/log';
import { GithubApi, PER_PAGE, type ApiFailure } from './github-api';
import { webHost } from './github-target';
import { githubToken, tokenOrigin } from './github-token';

// Contract kind `no-dead-man-comment` (issue 43, item 10; FORMATS.md §2.7): each phase comments
// on the loop's rolling GitHub issue, and "a missing daily comment means the runner did not fire".
// Read through the `github:` access, proportionally: nothing is asked until a phase is due
// (ended 30 minutes ago, not judged yet); the issue is found once (and asked again only before a
// breach is claimed, so a replaced issue is not taken for a silent runner); its comments are
// listed with `since` and If-None-Match, so an unchanged issue costs a 304; a judged phase is
// never asked about again. GitHub failing is a problem, never a breach: Loopdeck did not observe.

/** How long after a phase's end its comment may come. */
export const COMMENT_WINDOW_MS = 30 * 60_000;
/** A cached `since` is kept (and its ETags with it) while it is at most this much older than needed. */
const REUSE_SINCE_MS = 48 * 3_600_000;
/** The most comment pages read in one go (a rolling issue gets a few comments a day). */
const MAX_PAGES = 10;
/** Statuses a phase ends with (FORMATS.md §2.4). */
const FINAL: ReadonlySet<PhaseStatus> = new Set<PhaseStatus>(['ok', 'no-op', 'ready', 'incomplete', 'failed']);

/** What of a loop's config the check reads: its `deadman` and its caps (a phase without a start is judged from end − cap). */
export type DeadmanLoopConfig = Pick<LoopConfig, 'deadman' | 'cap' | 'caps'>;

/** What the check is built from. */
export interface DeadmanCommentsOptions {
  /** The `github:` section; absent: nothing is checked. */
  readonly github: GithubConfig | undefined;
  /** The loops' config by name; a loop without `deadman` is not checked. */
  readonly loops: Readonly<Record<string, DeadmanLoopConfig>>;
  /** Where `env:NAME` is read and what `gh` runs with (process.env by default). */
  readonly env?: NodeJS.ProcessEnv;
  /** Wall-clock ms, for the pacing after a failure and rate-limit resets (Date.now by default). */
  readonly clock?: () => number;
  /** The one problem of the check (no token, a refused token, GitHub failing, no rolling issue), or null when none. */
  readonly onProblem: (problem: Problem | null) => void;
}

/** A phase that ended and is not judged yet. */
interface Candidate {
  readonly key: string;
  readonly loop: string;
  readonly date: string;
  readonly phase: string;
  /** Its comment counts from here (its start, else end − cap) to end + COMMENT_WINDOW_MS (ms). */
  readonly start: number;
  readonly end: number;
}

/** One page of comments as last answered. */
interface Page {
  readonly etag: string | null;
  readonly created: readonly number[];
  readonly full: boolean;
}

/** One rolling issue (a repository and label, shared by the loops naming them) and what GitHub last said of it. */
interface Rolling {
  readonly owner: string;
  readonly repo: string;
  readonly label: string;
  readonly loops: Set<string>;
  issue: { readonly number: number; readonly url: string; readonly createdAt: number } | null;
  issuesEtag: string | null;
  comments: { readonly issue: number; readonly since: number; readonly pages: Page[] } | null;
  /** Nothing is asked before this (wall clock): after a failure, `github.every`; a rate limit, its reset. */
  retryAt: number;
  problem: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The `no-dead-man-comment` breaches: a phase that ended with no comment on its loop's rolling
 * issue between its start and 30 minutes after its end. Call `check` with every loop Loopdeck
 * shows (the engine's poll); `breaches` is the list, the same array while unchanged.
 */
export class DeadmanComments {
  private readonly clock: () => number;
  private readonly env: NodeJS.ProcessEnv;
  private api: GithubApi | null = null;
  private tokenFrom = '';
  /** Set once the token is missing or refused: nothing is asked any more. */
  private disabled: string | null = null;
  /** Judged phases (`candidate.key`): their breach, or null (a comment came, or the issue did not exist yet). */
  private readonly judged = new Map<string, ContractBreach | null>();
  private readonly rolling = new Map<string, Rolling>();
  private list: readonly ContractBreach[] = [];
  private reported: string | null = null;
  private inFlight: Promise<unknown> = Promise.resolve();
  private readonly stopping = new AbortController();

  constructor(private readonly options: DeadmanCommentsOptions) {
    this.clock = options.clock ?? Date.now;
    this.env = options.env ?? process.env;
  }

  /** The breaches found so far, in the list's order: the same array until a check changes it. */
  breaches(): readonly ContractBreach[] {
    return this.list;
  }

  /**
   * Judge the phases of `loops` that are due at `now` (the engine's clock), asking GitHub only
   * when one is; true when the breaches changed. Calls run one after another. Never throws.
   */
  check(loops: readonly LoopState[], now: Date): Promise<boolean> {
    const run = this.inFlight.then(() => this.round(loops, now.getTime()));
    this.inFlight = run.catch(() => undefined);
    return run.catch((err: unknown) => {
      log.warn(`GitHub: checking the dead-man comments failed: ${messageOf(err)}`);
      return false;
    });
  }

  /** Stop: the requests in flight are given up and no more are made. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.inFlight;
  }

  private async round(loops: readonly LoopState[], now: number): Promise<boolean> {
    if (!this.options.github || this.stopping.signal.aborted) return false;
    const groups = new Map<Rolling, Candidate[]>();
    const shown = new Set<string>();
    for (const loop of loops) {
      const cfg = ownEntry(this.options.loops, loop.name);
      if (!cfg?.deadman) continue;
      const r = this.rollingOf(cfg.deadman.repo, cfg.deadman.label);
      r.loops.add(loop.name);
      for (const cycle of loop.cycles) {
        for (const phase of cycle.phases) {
          const end = phase.endedAt === null ? NaN : Date.parse(phase.endedAt);
          if (!FINAL.has(phase.status) || !Number.isFinite(end)) continue;
          const key = [loop.name, cycle.date, phase.name, phase.endedAt].join('\0');
          shown.add(key);
          if (this.judged.has(key)) continue;
          const started = phase.startedAt === null ? NaN : Date.parse(phase.startedAt);
          const start = Number.isFinite(started) && started <= end ? started : end - phaseCap(cfg, phase.name);
          groups.set(r, [...(groups.get(r) ?? []), { key, loop: loop.name, date: cycle.date, phase: phase.name, start, end }]);
        }
      }
    }
    // Phases no longer shown are forgotten (the judged map stays as small as the loops' windows).
    let changed = false;
    for (const [key, breach] of this.judged) {
      if (shown.has(key)) continue;
      this.judged.delete(key);
      if (breach) changed = true;
    }
    for (const [r, candidates] of groups) {
      if (this.disabled !== null || this.stopping.signal.aborted) break;
      if (!candidates.some((c) => now >= c.end + COMMENT_WINDOW_MS) || this.clock() < r.retryAt) continue;
      const api = await this.ready();
      if (!api) break;
      const out = await this.judge(api, r, candidates, now);
      if (typeof out === 'string') {
        r.problem = out;
        if (r.retryAt <= this.clock()) r.retryAt = this.clock() + this.options.github.every;
        continue;
      }
      r.problem = null;
      changed ||= out;
    }
    if (changed) this.list = sortBreaches([...this.judged.values()].filter((b): b is ContractBreach => b !== null));
    this.report();
    return changed;
  }

  private rollingOf(repoName: string, label: string): Rolling {
    const key = `${repoName}\0${label}`;
    const known = this.rolling.get(key);
    if (known) return known;
    const [owner = '', repo = ''] = repoName.split('/');
    const r: Rolling = { owner, repo, label, loops: new Set(), issue: null, issuesEtag: null, comments: null, retryAt: 0, problem: null };
    this.rolling.set(key, r);
    return r;
  }

  /** Judge `candidates` against the rolling issue; true when a breach was added, or the problem met. */
  private async judge(api: GithubApi, r: Rolling, candidates: readonly Candidate[], now: number): Promise<boolean | string> {
    let found = false;
    if (!r.issue) {
      const problem = await this.find(api, r);
      if (problem !== null) return problem;
      found = true;
    }
    let open = candidates;
    for (;;) {
      const issue = r.issue;
      if (!issue) return this.noIssue(r);
      const created = await this.comments(api, r, Math.min(...open.map((c) => c.start)));
      if (typeof created === 'string') return created;
      const due: Candidate[] = [];
      for (const c of open) {
        const until = c.end + COMMENT_WINDOW_MS;
        // A window closed before the issue was opened: its comment went to an earlier issue.
        if (until < issue.createdAt || created.some((t) => t >= c.start && t <= until)) this.judged.set(c.key, null);
        else if (now >= until) due.push(c);
      }
      if (due.length === 0) return false;
      // Before claiming a breach, the issue is asked for again (conditionally): a new rolling issue is judged afresh.
      if (!found) {
        found = true;
        const problem = await this.find(api, r);
        if (problem !== null) return problem;
        if (r.issue?.number !== issue.number) {
          open = due;
          continue;
        }
      }
      const repo = `${r.owner}/${r.repo}`;
      for (const c of due) {
        this.judged.set(c.key, {
          kind: 'no-dead-man-comment',
          loop: c.loop,
          date: c.date,
          phase: c.phase,
          id: null,
          detail: `No comment on ${repo}#${issue.number} from ${iso(c.start)} to ${iso(c.end + COMMENT_WINDOW_MS)}, 30 minutes after the phase ended (${iso(c.end)}).`,
          since: iso(c.end + COMMENT_WINDOW_MS),
          evidence: { file: null, line: null, url: issue.url },
        });
      }
      return true;
    }
  }

  /** Ask for the rolling issue: the open issue with the label, most recently updated; null, or the problem. */
  private async find(api: GithubApi, r: Rolling): Promise<string | null> {
    const answer = await api.openIssues(r.owner, r.repo, r.label, r.issuesEtag);
    if (answer.kind === 'failed') return this.failed(answer.failure, `the open issues of ${r.owner}/${r.repo} labelled ${r.label}`, r);
    if (answer.kind === 'not-modified') return r.issue ? null : this.noIssue(r);
    const issue = answer.data.find((i) => i.pull_request === undefined && Number.isSafeInteger(i.number) && typeof i.html_url === 'string');
    const createdAt = issue ? Date.parse(issue.created_at) : NaN;
    if (!issue || !Number.isFinite(createdAt)) {
      r.issue = null;
      r.issuesEtag = null;
      return this.noIssue(r);
    }
    r.issuesEtag = answer.etag;
    if (r.issue?.number !== issue.number) r.comments = null;
    r.issue = { number: issue.number, url: issue.html_url, createdAt };
    return null;
  }

  /**
   * The creation times of the issue's comments updated since `needed` (or an earlier `since`
   * whose pages are cached: their ETags make an unchanged issue a 304), or the problem.
   */
  private async comments(api: GithubApi, r: Rolling, needed: number): Promise<number[] | string> {
    const issue = r.issue;
    if (!issue) return this.noIssue(r);
    const kept = r.comments;
    const c = kept && kept.issue === issue.number && kept.since <= needed && needed - kept.since <= REUSE_SINCE_MS ? kept : { issue: issue.number, since: Math.floor(needed / 1000) * 1000, pages: [] };
    const what = `the comments of ${r.owner}/${r.repo}#${issue.number}`;
    const created: number[] = [];
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES) return `GitHub: ${what} since ${iso(c.since)} run past ${MAX_PAGES * PER_PAGE}; the dead-man comments are not judged from a partial list`;
      const before = c.pages[page - 1];
      const answer = await api.comments(r.owner, r.repo, issue.number, iso(c.since), page, before?.etag ?? null);
      if (answer.kind === 'failed') {
        // The issue is gone (deleted, transferred): it is looked for again next time.
        if (answer.failure.kind === 'not-found') [r.issue, r.issuesEtag, r.comments] = [null, null, null];
        return this.failed(answer.failure, what, r);
      }
      const got: Page | undefined =
        answer.kind === 'data'
          ? { etag: answer.etag, created: answer.data.map((x) => Date.parse(x.created_at)).filter(Number.isFinite), full: answer.data.length >= PER_PAGE }
          : before;
      if (!got) return `GitHub: ${what}: a 304 for a page Loopdeck never read`;
      c.pages[page - 1] = got;
      created.push(...got.created);
      if (!got.full) {
        c.pages.length = page;
        break;
      }
    }
    r.comments = c;
    return created;
  }

  private noIssue(r: Rolling): string {
    const keys = [...r.loops].map((l) => `loops.${l}.deadman`).join(', ');
    return `GitHub: no open issue of ${r.owner}/${r.repo} carries the label ${r.label} (${keys}): the dead-man comments are not checked until one does`;
  }

  /** A failed request: the problem to say (the check is paced until the rate limit resets, or off for a refused token). */
  private failed(failure: ApiFailure, what: string, r: Rolling): string {
    const github = this.options.github;
    const every = Math.round((github?.every ?? 0) / 1000);
    switch (failure.kind) {
      case 'unauthorized':
        return this.disable(`GitHub refused the token from ${this.tokenFrom} (401 ${failure.message.slice(0, 120)}) asking for ${what}: set a valid token there and restart Loopdeck; the dead-man comments are not checked until then`);
      case 'rate-limited':
        r.retryAt = Math.max(r.retryAt, failure.until);
        return `GitHub's API rate limit for ${github ? tokenOrigin(github) : 'the token'} is used up until ${iso(failure.until)}: the dead-man comments are checked again after then`;
      case 'not-found':
        return `GitHub answers 404 for ${what}: not visible with this token (a private repository it cannot read, or a wrong ${[...r.loops].map((l) => `loops.${l}.deadman.repo`).join(', ')})`;
      case 'timeout':
        return `GitHub did not answer for ${what} within ${Math.round((github?.timeout ?? 0) / 1000)} s: no dead-man comment is judged; asked again in ${every} s`;
      case 'other':
        return `GitHub: ${what}: ${failure.message}: no dead-man comment is judged; asked again in ${every} s`;
    }
  }

  /** The client, once the token is known; null (and said once) when there is none. */
  private async ready(): Promise<GithubApi | null> {
    if (this.api) return this.api;
    const github = this.options.github;
    if (!github || this.disabled !== null) return null;
    const token = await githubToken(github, webHost(github.apiUrl), this.env);
    if ('error' in token) {
      this.disable(token.error);
      return null;
    }
    this.tokenFrom = token.from;
    this.api = new GithubApi({ token: token.token, apiUrl: github.apiUrl, timeoutMs: github.timeout, now: this.clock, stop: this.stopping.signal });
    return this.api;
  }

  private disable(message: string): string {
    if (this.disabled === null) {
      this.disabled = message;
      log.warn(message);
    }
    return message;
  }

  /** Say the problem when it changed: the refused token first, else the first issue's. */
  private report(): void {
    const message = this.disabled ?? [...this.rolling.values()].find((r) => r.problem !== null)?.problem ?? null;
    if (message === this.reported) return;
    if (message !== null && message !== this.disabled) log.warn(message);
    this.reported = message;
    this.options.onProblem(message === null ? null : { source: 'github', line: null, message });
  }
}
