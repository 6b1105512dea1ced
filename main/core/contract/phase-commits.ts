import { PHASE_COMMITS_MAX, type Cycle, type Phase, type PhaseCommit, type Uncertified } from '../../../shared/domain';
import { commitsIn, type ReflogEntry } from '../loops/branch-reflog';

/** A step that runs the full suite: its name says so (`suite_rc`, `SUITE_RC`, `full_suite_rc`). */
const SUITE_STEP = /suite/i;

const toCommit = (e: ReflogEntry): PhaseCommit => ({ sha: e.newSha, at: e.at, message: e.message, ids: e.ids });

/** A phase's commits: the branch's moves inside its window (see commitsIn), at most PHASE_COMMITS_MAX. */
export function phaseCommits(phase: Phase, entries: readonly ReflogEntry[]): PhaseCommit[] {
  if (!phase.startedAt || entries.length === 0) return [];
  return commitsIn(entries, phase.startedAt, phase.endedAt).slice(0, PHASE_COMMITS_MAX).map(toCommit);
}

/** The phase's last full suite stage that finished: a done stage with a suite step, by when it ended. */
export function lastSuite(phase: Phase): { endedAt: string; suite: string } | null {
  let best: { endedAt: string; suite: string; ms: number } | null = null;
  for (const s of phase.stages) {
    const step = s.done && s.endedAt ? s.steps.find((x) => SUITE_STEP.test(x.name) && x.rc !== null) : undefined;
    const ms = s.endedAt ? Date.parse(s.endedAt) : NaN;
    if (!step || !s.endedAt || Number.isNaN(ms) || (best && best.ms >= ms)) continue;
    best = { endedAt: s.endedAt, suite: `${s.name} › ${step.name}`, ms };
  }
  return best && { endedAt: best.endedAt, suite: best.suite };
}

/**
 * The branch's moves after the phase's last full suite ended (FORMATS.md §2.7: the reflog), in
 * whichever phase they came: the commits that suite did not run on. Null when the phase ran no
 * full suite, or nothing moved after it. A move within the suite's own second is not after it.
 */
export function uncertifiedCommits(phase: Phase, entries: readonly ReflogEntry[]): Uncertified | null {
  const suite = lastSuite(phase);
  if (!suite || entries.length === 0) return null;
  const after = commitsIn(entries, new Date(Date.parse(suite.endedAt) + 1000).toISOString(), null);
  if (after.length === 0) return null;
  return { suiteEndedAt: suite.endedAt, suite: suite.suite, commits: after.slice(0, PHASE_COMMITS_MAX).map(toCommit), more: Math.max(0, after.length - PHASE_COMMITS_MAX) };
}

const sameCommits = (a: readonly PhaseCommit[] | undefined, b: readonly PhaseCommit[]): boolean =>
  (a?.length ?? 0) === b.length && b.every((c, i) => a?.[i]?.sha === c.sha && a[i]?.at === c.at);

const sameUncertified = (a: Uncertified | undefined, b: Uncertified | null): boolean =>
  a === undefined ? b === null : b !== null && a.suiteEndedAt === b.suiteEndedAt && a.more === b.more && sameCommits(a.commits, b.commits);

/** A loop's cycles with each phase's commits (and those no suite ran on) from its night's reflog; the same objects where nothing changed. */
export function markCommits(cycles: readonly Cycle[], entriesOf: (date: string) => readonly ReflogEntry[]): Cycle[] {
  return cycles.map((c) => {
    const entries = entriesOf(c.date);
    let changed = false;
    const phases = c.phases.map((p) => {
      const commits = phaseCommits(p, entries);
      const uncertified = uncertifiedCommits(p, entries);
      if (sameCommits(p.commits, commits) && sameUncertified(p.uncertified, uncertified)) return p;
      changed = true;
      const { commits: _old, uncertified: _was, ...rest } = p;
      return { ...rest, ...(commits.length > 0 ? { commits } : {}), ...(uncertified ? { uncertified } : {}) };
    });
    return changed ? { ...c, phases } : c;
  });
}

/**
 * What a cycle's PR was delivered without a suite on: the commits after the night's last full
 * suite (of whichever phase ran it last). Null when no suite ran or nothing moved after it.
 */
export function cycleUncertified(cycle: Cycle): Uncertified | null {
  let last: { phase: Phase; ms: number } | null = null;
  for (const p of cycle.phases) {
    const s = lastSuite(p);
    const ms = s ? Date.parse(s.endedAt) : NaN;
    if (!Number.isNaN(ms) && (!last || ms > last.ms)) last = { phase: p, ms };
  }
  return last?.phase.uncertified ?? null;
}
