import type { LoopState, PullRequest } from '../../../shared/domain';
import { mergeBlockers, type DeskMerge, type DeskPr } from '../../../shared/pr-desk';
import type { Config } from '../config/schema';
import type { Store } from '../store/store';
import { DeskRecords } from './desk-records';
import { deriveDesk, type RemotePr } from './desk';
import { nextSection } from './github/next-section';

/** What the desk reads GitHub through (prs/github/desk-reader.ts's GithubDesk). */
export interface DeskReader {
  /** Which PRs to follow: each loop's repository and head pattern, and the PR URLs the loops named. */
  track(targets: readonly { readonly loop: string; readonly repo: string; readonly headMatches: (ref: string) => boolean }[], named: readonly { readonly url: string; readonly loop: string }[]): void;
  list(): readonly RemotePr[];
  canWrite(repo: string): boolean | null;
  merge(repo: string, number: number, sha: string, method: DeskMerge['method']): Promise<{ readonly ok: true; readonly sha: string } | { readonly ok: false; readonly message: string }>;
  /** One round of asking GitHub now (the CLI's, and tests'). */
  pollOnce(): Promise<void>;
  /** Ask on its own schedule (`github.every`) until stopped. */
  start(): void;
  stop(): Promise<void>;
}

/** What the desk service is made with. */
export interface DeskServiceOptions {
  readonly config: Config;
  readonly store: Store;
  /** Null without a `github:` section: the desk is then empty, and says why. */
  readonly reader: DeskReader | null;
  readonly loops: () => Iterable<LoopState>;
  readonly prs: () => readonly PullRequest[];
  readonly now: () => Date;
  readonly publish: (desk: readonly DeskPr[]) => void;
}

/** How long a PR merged from the console stays on the desk after GitHub's open list dropped it. */
export const KEEP_MERGED_MS = 7 * 86_400_000;

/** A command the desk refuses, with a sentence for the person who sent it. */
export class DeskRefusal extends Error {}

/** A loop's head pattern as a test: `reliability/{date}` matches `reliability/2026-12-01`. */
export function headMatcher(pattern: string): (ref: string) => boolean {
  const [before, after] = pattern.includes('{date}') ? (pattern.split('{date}') as [string, string]) : [pattern, null];
  return (ref) => (after === null ? ref === before : ref.startsWith(before) && ref.endsWith(after) && /^\d{4}-\d{2}-\d{2}$/.test(ref.slice(before.length, ref.length - after.length)));
}

/**
 * The merge desk: every open PR of every loop as GitHub has it, joined with the nights, findings
 * and checks (deriveDesk); the Next section ticked step by step; the merge of the head the operator
 * saw. Published (`desk.changed`) when it moves.
 */
export class DeskService {
  private readonly records: DeskRecords;
  private desk: readonly DeskPr[] = [];
  private text = '[]';
  /** Stopped with the core: nothing is derived (the store may be closed) and nothing asked. */
  private stopped = false;

  constructor(private readonly o: DeskServiceOptions) {
    this.records = new DeskRecords(o.store);
  }

  /** Follow the loops' repositories and the PRs their verdicts and deliver records named. */
  track(): void {
    if (!this.o.reader) return;
    const targets = Object.entries(this.o.config.loops).flatMap(([loop, l]) => (l.repo ? [{ loop, repo: l.repo, headMatches: headMatcher(l.branch) }] : []));
    const named = new Map(this.o.prs().map((p) => [p.url, { url: p.url, loop: p.loop }]));
    this.o.reader.track(targets, [...named.values()]);
  }

  /** Derive the desk again; published when it changed. */
  refresh(): readonly DeskPr[] {
    const reader = this.o.reader;
    if (!reader || this.stopped) return this.desk;
    const derived = deriveDesk({
      remote: reader.list(),
      loops: [...this.o.loops()],
      branchOf: (loop) => this.o.config.loops[loop]?.branch ?? null,
      prs: this.o.config.prs,
      ticksOf: (loop, n) => this.records.ticksOf(loop, n),
      mergeOf: (loop, n) => this.records.mergeOf(loop, n),
      canWrite: (repo) => reader.canWrite(repo),
      nextOf: nextSection,
      now: this.o.now().getTime(),
    });
    const desk = [...derived, ...this.keptMerged(derived)];
    // Ages move with the clock: compared without them, so a quiet desk publishes nothing.
    const text = JSON.stringify(desk.map(({ ageHours: _a, ...rest }) => rest));
    if (text !== this.text) {
      this.text = text;
      this.desk = desk;
      this.o.publish(desk);
    } else this.desk = desk;
    return this.desk;
  }

  /**
   * PRs merged from the console that GitHub's open list no longer holds: kept on the desk, merged,
   * for KEEP_MERGED_MS after the merge, so the Review and the desk say who merged what. The card is
   * the one stored with the merge (its age is the age it had when merged): a round that dropped
   * the PR while the merge was in flight, or a restart, does not lose it.
   */
  private keptMerged(derived: readonly DeskPr[]): DeskPr[] {
    const now = this.o.now().getTime();
    const on = new Set(derived.map((p) => `${p.loop}\u0000${p.number}`));
    const out: DeskPr[] = [];
    for (const { loop, number, merge, card } of this.records.allMerged()) {
      if (!card || on.has(`${loop}\u0000${number}`) || now - Date.parse(merge.at) > KEEP_MERGED_MS) continue;
      out.push({ ...card, state: 'merged', merged: merge, stale: false, overlaps: [], redAfterReady: false, problem: null });
    }
    return out;
  }

  /** The desk as last derived. */
  list(): readonly DeskPr[] {
    return this.desk;
  }

  /** One round of asking GitHub now, then the desk derived again. */
  async pollOnce(): Promise<void> {
    this.track();
    await this.o.reader?.pollOnce();
    this.refresh();
  }

  /** Ask GitHub on its own schedule until `stop`. */
  start(): void {
    this.track();
    this.o.reader?.start();
  }

  /** Stop asking GitHub and deriving (the core closes); for good. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.o.reader?.stop();
  }

  /** Tick step `step` (from 0) of a PR's Next section done, by `by`; who and when are kept and shown to everyone. */
  nextDone(loop: string, number: number, step: number, by: string): { readonly doneBy: string; readonly doneAt: string } {
    const pr = this.find(loop, number);
    const text = pr.next[step]?.text;
    if (text === undefined) throw new DeskRefusal(`PR #${number} of ${loop} has no Next step ${step} (its Next section has ${pr.next.length}).`);
    const at = this.o.now().toISOString();
    this.records.tick(loop, number, step, text, by, at);
    this.refresh();
    return { doneBy: by, doneAt: at };
  }

  /**
   * Merge a PR, only of the head the operator saw (`sha`, also GitHub's own precondition), only
   * when every check passed and every Next step is ticked; GitHub's refusal is said as it said it.
   */
  async merge(loop: string, number: number, sha: string, method: DeskMerge['method'] | undefined, by: string): Promise<DeskMerge> {
    const reader = this.o.reader;
    if (!reader) throw new DeskRefusal('Merging needs a github: section in the config.');
    const pr = this.find(loop, number);
    const blockers = mergeBlockers(pr);
    if (blockers.length > 0) throw new DeskRefusal(`Not merged: PR #${number} of ${loop} cannot be merged from the console now: ${blockers.join('; ')}.`);
    if (sha !== pr.headSha) throw new DeskRefusal(`Not merged: PR #${number} moved since you saw it (you saw ${sha.slice(0, 10)}, its head is now ${pr.headSha.slice(0, 10)}): review it again.`);
    const how = method ?? this.o.config.prs.mergeMethod;
    const answer = await reader.merge(pr.repo, number, sha, how);
    if (!answer.ok) throw new DeskRefusal(`GitHub refused the merge of PR #${number}: ${answer.message}`);
    const merge: DeskMerge = { by, at: this.o.now().toISOString(), sha, method: how };
    this.records.merged(pr, merge);
    this.refresh();
    return merge;
  }

  private find(loop: string, number: number): DeskPr {
    const pr = this.desk.find((p) => p.loop === loop && p.number === number);
    if (!pr) throw new DeskRefusal(`No PR #${number} of loop ${loop} is on the desk.`);
    return pr;
  }
}
