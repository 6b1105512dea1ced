import { PHASE_COMMITS_MAX, type Cycle, type Phase, type PhaseCommit } from '../../../shared/domain';
import { commitsIn, type ReflogEntry } from '../loops/branch-reflog';

/** A phase's commits: the branch's moves inside its window (see commitsIn), at most PHASE_COMMITS_MAX. */
export function phaseCommits(phase: Phase, entries: readonly ReflogEntry[]): PhaseCommit[] {
  if (!phase.startedAt || entries.length === 0) return [];
  return commitsIn(entries, phase.startedAt, phase.endedAt)
    .slice(0, PHASE_COMMITS_MAX)
    .map((e) => ({ sha: e.newSha, at: e.at, message: e.message, ids: e.ids }));
}

const sameCommits = (a: readonly PhaseCommit[] | undefined, b: readonly PhaseCommit[]): boolean =>
  (a?.length ?? 0) === b.length && b.every((c, i) => a?.[i]?.sha === c.sha && a[i]?.at === c.at);

/** A loop's cycles with each phase's commits from its night's reflog; the same objects where nothing changed. */
export function markCommits(cycles: readonly Cycle[], entriesOf: (date: string) => readonly ReflogEntry[]): Cycle[] {
  return cycles.map((c) => {
    const entries = entriesOf(c.date);
    let changed = false;
    const phases = c.phases.map((p) => {
      const commits = phaseCommits(p, entries);
      if (sameCommits(p.commits, commits)) return p;
      changed = true;
      const { commits: _old, ...rest } = p;
      return commits.length > 0 ? { ...rest, commits } : rest;
    });
    return changed ? { ...c, phases } : c;
  });
}
