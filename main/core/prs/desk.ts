import type { DeskMerge, DeskPr, NextStep } from '../../../shared/pr-desk';
import type { RemotePr } from './github/desk-pull';

export type { RemotePr } from './github/desk-pull';
import type { LoopState } from '../../../shared/domain';
import type { PrsConfig } from '../config/schema';
import type { StepTick } from './desk-records';
import { cycleUncertified } from '../contract/phase-commits';

/** What the desk joins GitHub's PRs with. */
export interface DeskInput {
  readonly remote: readonly RemotePr[];
  readonly loops: readonly LoopState[];
  /** A loop's branch pattern (`reliability/{date}`). */
  readonly branchOf: (loop: string) => string | null;
  readonly prs: PrsConfig;
  readonly ticksOf: (loop: string, number: number) => ReadonlyMap<number, StepTick>;
  readonly mergeOf: (loop: string, number: number) => DeskMerge | null;
  readonly canWrite: (repo: string) => boolean | null;
  /** The body's Next section (prs/github/next-section.ts). */
  readonly nextOf: (body: string | null) => readonly string[] | null;
  readonly now: number;
}

const IDS = /\b(?:REL|R)-\d+\b/g;
const HOUR = 3_600_000;

/** The `/owner/repo/pull/n` of a PR URL, whatever its host (verdicts name github.com, a stand-in its own). */
const pullPath = (url: string): string | null => /\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(url)?.slice(1, 3).join('#') ?? null;

/** The cycle date a head branch names under the loop's pattern (`reliability/{date}` → `reliability/2026-12-01`), or null. */
export function cycleOfHead(pattern: string | null, head: string): string | null {
  if (!pattern?.includes('{date}')) return null;
  const [before, after] = pattern.split('{date}') as [string, string];
  if (!head.startsWith(before) || !head.endsWith(after)) return null;
  const date = head.slice(before.length, head.length - after.length);
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null;
}

/** Per loop: the PRs its deliver verdicts named (by `owner/repo#n`), with the cycle and whether it said READY. */
function named(loops: readonly LoopState[]): Map<string, { cycle: string; ready: boolean }> {
  const out = new Map<string, { cycle: string; ready: boolean }>();
  for (const loop of loops) {
    for (const cycle of loop.cycles) {
      for (const phase of cycle.phases) {
        for (const url of phase.verdict?.urls ?? []) {
          const path = pullPath(url);
          if (path && !out.has(`${loop.name}\u0000${path}`)) out.set(`${loop.name}\u0000${path}`, { cycle: cycle.date, ready: phase.verdict?.kind === 'deliver-ready' });
        }
      }
    }
  }
  return out;
}

/** The merge desk: GitHub's PRs joined with the loops' nights, findings and the console's records. */
export function deriveDesk(input: DeskInput): DeskPr[] {
  const said = named(input.loops);
  const cycleOf = new Map(input.loops.flatMap((l) => l.cycles.map((c) => [`${l.name}\u0000${c.date}`, c] as const)));
  const commitsOfCycle = new Map(input.loops.flatMap((l) => l.cycles.map((c) => [`${l.name}\u0000${c.date}`, c.phases.flatMap((p) => p.commits?.flatMap((x) => x.ids) ?? [])] as const)));
  // Which open PRs of a repository touch each file: for the overlaps.
  const touching = new Map<string, number[]>();
  for (const r of input.remote) {
    if (r.state !== 'open') continue;
    for (const f of r.files) {
      const k = `${r.repo}\u0000${f}`;
      const list = touching.get(k) ?? [];
      list.push(r.number);
      touching.set(k, list);
    }
  }
  return input.remote
    .map((r): DeskPr => {
      const path = pullPath(r.url);
      const verdict = path ? said.get(`${r.loop}\u0000${path}`) : undefined;
      const cycle = cycleOfHead(input.branchOf(r.loop), r.head) ?? verdict?.cycle ?? null;
      const ids = new Set<string>([...(`${r.title}\n${r.body ?? ''}`.match(IDS) ?? []), ...(cycle ? (commitsOfCycle.get(`${r.loop}\u0000${cycle}`) ?? []) : [])]);
      const ageHours = Math.max(0, (input.now - Date.parse(r.openedAt)) / HOUR);
      const overlaps = new Set<number>();
      if (r.state === 'open') for (const f of r.files) for (const n of touching.get(`${r.repo}\u0000${f}`) ?? []) if (n !== r.number) overlaps.add(n);
      const ticks = input.ticksOf(r.loop, r.number);
      const next = (input.nextOf(r.body) ?? []).map((text, i): NextStep => {
        const t = ticks.get(i);
        // A tick counts while the step still says what it said when it was ticked.
        return t && t.text === text ? { text, doneBy: t.by, doneAt: t.at } : { text, doneBy: null, doneAt: null };
      });
      return {
        loop: r.loop,
        repo: r.repo,
        number: r.number,
        url: r.url,
        state: r.state,
        title: r.title,
        author: r.author,
        head: r.head,
        headSha: r.headSha,
        base: r.base,
        additions: r.additions,
        deletions: r.deletions,
        changedFiles: r.changedFiles,
        checks: r.checks,
        mergeable: r.mergeable,
        reviewDecision: r.reviewDecision,
        cycle,
        ids: [...ids].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })),
        openedAt: r.openedAt,
        ageHours: Math.round(ageHours * 10) / 10,
        stale: r.state === 'open' && ageHours * HOUR > input.prs.staleAfter,
        large: r.changedFiles !== null && r.changedFiles > input.prs.largeFiles,
        overlaps: [...overlaps].sort((a, b) => a - b),
        redAfterReady: verdict?.ready === true && r.state === 'open' && r.checks.some((c) => c.state === 'failing'),
        uncertified: (() => {
          const c = cycle === null ? undefined : cycleOf.get(`${r.loop}\u0000${cycle}`);
          return c ? cycleUncertified(c) : null;
        })(),
        next,
        merged: input.mergeOf(r.loop, r.number),
        problem: r.problem,
        canWrite: input.canWrite(r.repo),
      };
    })
    .sort((a, b) => (a.state === 'open' ? 0 : 1) - (b.state === 'open' ? 0 : 1) || a.loop.localeCompare(b.loop) || b.number - a.number);
}
