import type { Cycle, LoopState, Phase, PullRequest } from '../../../shared/domain';
import type { ContractBreach } from '../../../shared/contract-breach';
import { commitsIn, type ReflogEntry } from '../loops/branch-reflog';
import { PerCycle } from './per-cycle';

// The rules the nightly branch's reflog shows broken: a NO-OP declared after a commit, commits with
// no PR, two PRs for one branch. Pure over the reflog's moves as read, the phases and the PRs.

/** What is known of a loop's nightly branches. */
export interface BranchEvidence {
  /** The branch of a cycle (`reliability/2026-12-01`). */
  readonly branch: (date: string) => string;
  /** The reflog file of a cycle's branch, or null (no clone configured). */
  readonly path: (date: string) => string | null;
  /** The moves read from it. */
  readonly entries: (date: string) => readonly ReflogEntry[];
}

const short = (sha: string): string => sha.slice(0, 10);
const finished = (p: Phase): boolean => p.status !== 'pending' && p.status !== 'running';

/** `no-op-after-commit`: a phase that declared NO-OP while its branch moved by a commit in its window. */
function noOpAfterCommit(loop: string, cycle: Cycle, ev: BranchEvidence): ContractBreach[] {
  const out: ContractBreach[] = [];
  const entries = ev.entries(cycle.date);
  if (entries.length === 0) return out;
  for (const phase of cycle.phases) {
    if (phase.status !== 'no-op' || !phase.startedAt) continue;
    const made = commitsIn(entries, phase.startedAt, phase.endedAt);
    const first = made[0];
    if (!first) continue;
    const ids = [...new Set(made.flatMap((c) => c.ids))];
    out.push({
      kind: 'no-op-after-commit',
      loop,
      date: cycle.date,
      phase: phase.name,
      id: short(first.newSha),
      detail: `${phase.name} declared NO-OP, but ${ev.branch(cycle.date)} moved by ${made.length} commit(s) during the phase (${made.map((c) => `${short(c.newSha)} at ${c.at}`).join(', ')})${ids.length ? `, naming ${ids.join(', ')}` : ''}`,
      since: phase.endedAt,
      evidence: { file: ev.path(cycle.date), line: first.line, url: null },
    });
  }
  return out;
}

/** A PR's head branch: the deliver record's, else GitHub's; null when neither said. */
const headOf = (p: PullRequest): string | null => p.branch ?? p.github?.head ?? null;

/** The PRs of a list by loop and head branch, and by loop and cycle date for those whose head is not known. */
interface PrIndex {
  readonly byHead: ReadonlyMap<string, readonly PullRequest[]>;
  readonly byCycle: ReadonlyMap<string, readonly PullRequest[]>;
}

const key = (loop: string, name: string): string => `${loop}\u0000${name}`;

/** One pass over the PRs, so that each cycle finds its own without going through all of them. */
function indexPrs(prs: readonly PullRequest[]): PrIndex {
  const byHead = new Map<string, PullRequest[]>();
  const byCycle = new Map<string, PullRequest[]>();
  for (const p of prs) {
    const head = headOf(p);
    const [map, k] = head !== null ? [byHead, key(p.loop, head)] : p.cycle !== null ? [byCycle, key(p.loop, p.cycle)] : [null, ''];
    if (!map) continue;
    const list = map.get(k);
    if (list) list.push(p);
    else map.set(k, [p]);
  }
  return { byHead, byCycle };
}

/** The PRs known for a cycle: any whose head is its branch, or (head not known) that its deliver named. */
function prsOf(loop: string, cycle: Cycle, branch: string, prs: PrIndex): readonly PullRequest[] {
  const byHead = prs.byHead.get(key(loop, branch)) ?? [];
  const byCycle = prs.byCycle.get(key(loop, cycle.date));
  return byCycle ? [...byHead, ...byCycle] : byHead;
}

/** `no-pr` and `two-prs`: a finished cycle whose branch has commits but no PR; two PRs for one branch. */
function prBreaches(loop: string, cycle: Cycle, ev: BranchEvidence, prs: PrIndex): ContractBreach[] {
  const branch = ev.branch(cycle.date);
  const known = prsOf(loop, cycle, branch, prs);
  // Two PRs of one night are allowed (one a finding group): two whose head is known to be the same branch are not.
  const distinct = [...new Map(known.filter((p) => headOf(p) === branch).map((p) => [p.number ?? p.url, p])).values()];
  if (distinct.length >= 2) {
    return [
      {
        kind: 'two-prs',
        loop,
        date: cycle.date,
        phase: null,
        id: branch,
        detail: `${distinct.length} PRs have ${branch} as their head: ${distinct.map((p) => (p.number === null ? p.url : `#${p.number}`)).join(', ')}`,
        since: distinct.map((p) => p.since).filter((s): s is string => s !== null).sort()[1] ?? null,
        evidence: { file: null, line: null, url: distinct[1]?.url ?? null },
      },
    ];
  }
  if (known.length > 0) return [];
  // Only once the cycle has run its course: a deliver still to come opens the PR.
  if (cycle.phases.length === 0 || !cycle.phases.every(finished)) return [];
  const commits = ev.entries(cycle.date).filter((e) => e.kind === 'commit' || e.kind === 'merge' || e.kind === 'rebase');
  const last = commits.at(-1);
  if (!last) return [];
  return [
    {
      kind: 'no-pr',
      loop,
      date: cycle.date,
      phase: null,
      id: branch,
      detail: `${branch} has ${commits.length} commit(s) (last ${short(last.newSha)} at ${last.at}) but no PR is known for it: none in the verdicts, the deliver record or GitHub's PRs for that head`,
      since: cycle.phases.map((p) => p.endedAt).filter((s): s is string => s !== null).sort().at(-1) ?? last.at,
      evidence: { file: ev.path(cycle.date), line: last.line, url: null },
    },
  ];
}

/** One cycle's breaches of its branch. */
function cycleBreaches(loop: string, cycle: Cycle, ev: BranchEvidence, prs: PrIndex): readonly ContractBreach[] {
  return [...noOpAfterCommit(loop, cycle, ev), ...prBreaches(loop, cycle, ev, prs)];
}

/** Every breach the loop's nightly branches show, over its followed cycles. */
export function branchBreaches(loop: LoopState, ev: BranchEvidence, prs: readonly PullRequest[]): ContractBreach[] {
  return new BranchBreaches().of(loop, ev, prs, 0);
}

/**
 * A loop's branch breaches kept cycle by cycle: each cycle's, keyed by the cycle object (the loop
 * state keeps the same object for a night nothing moved), for as long as the branch's moves and the
 * PRs are those they were made from. A poll that moved tonight's cycle (a line of its running
 * phase, a load sample) looks at tonight's branch, not at a year of nights against every PR.
 */
export class BranchBreaches {
  private readonly perCycle = new PerCycle<readonly ContractBreach[]>();
  private index: PrIndex = { byHead: new Map(), byCycle: new Map() };

  /** The loop's breaches; `read` counts the reads that moved the branch's moves (`ev.entries`): a new count looks at every cycle again. */
  of(loop: LoopState, ev: BranchEvidence, prs: readonly PullRequest[], read: number): ContractBreach[] {
    if (this.perCycle.renew([prs, read])) this.index = indexPrs(prs);
    return loop.cycles.flatMap((cycle) => this.perCycle.of(cycle, (c) => cycleBreaches(loop.name, c, ev, this.index)));
  }
}
