import * as z from 'zod';
import { UncertifiedSchema } from './loop-domain';

// The merge desk (issue 44): every open PR of every loop as GitHub has it, joined with the night,
// the findings and the checks that produced it; what to look at before merging; the Next section
// as a checklist; and the merge itself, of the head the operator saw.

/** A check on the PR's head, by name: a check run or a commit status. */
export const DeskCheckSchema = z
  .object({
    name: z.string(),
    /** `passing`, `failing` (failure, error, cancelled, timed out…), or `pending` (queued, in progress, expected). */
    state: z.enum(['passing', 'failing', 'pending']),
    /** Its page (the run's or the status's target), or null. */
    url: z.string().nullable(),
  })
  .readonly();
/** A check on a PR's head. */
export type DeskCheck = z.infer<typeof DeskCheckSchema>;

/** A step of the PR body's Next section, and whether someone ticked it done in the console. */
export const NextStepSchema = z
  .object({
    text: z.string(),
    /** Who ticked it (a sign-in name or the local account) and when (ISO); null while not done. */
    doneBy: z.string().nullable(),
    doneAt: z.string().nullable(),
  })
  .readonly();
/** A pre-merge step. */
export type NextStep = z.infer<typeof NextStepSchema>;

/** A merge made from the console. */
export const DeskMergeSchema = z.object({ by: z.string(), at: z.string(), sha: z.string(), method: z.enum(['merge', 'squash', 'rebase']) }).readonly();
/** A merge made from the console. */
export type DeskMerge = z.infer<typeof DeskMergeSchema>;

/** One PR of the desk. */
export const DeskPrSchema = z
  .object({
    loop: z.string(),
    /** `owner/name`. */
    repo: z.string(),
    number: z.number().int().positive(),
    url: z.string(),
    state: z.enum(['open', 'merged', 'closed']),
    title: z.string(),
    author: z.string().nullable(),
    /** The head branch and commit, and the base it merges into. */
    head: z.string(),
    headSha: z.string(),
    base: z.string(),
    additions: z.number().int().nonnegative().nullable(),
    deletions: z.number().int().nonnegative().nullable(),
    changedFiles: z.number().int().nonnegative().nullable(),
    checks: z.array(DeskCheckSchema).readonly(),
    /** GitHub's `mergeable_state` (clean, blocked, behind, dirty, unstable, unknown…), or null before it is known. */
    mergeable: z.string().nullable(),
    /** From its reviews: approved, changes-requested, review-required (none yet), or null when not known. */
    reviewDecision: z.enum(['approved', 'changes-requested', 'review-required']).nullable(),
    /** The cycle that delivered it (its head's date, or the verdict that named it), or null. */
    cycle: z.string().nullable(),
    /** The REL/R ids it fixes: from its title, body and head branch's commits as Loopdeck read them. */
    ids: z.array(z.string()).readonly(),
    /** When it was opened (ISO), and its age in hours at `takenAt` of the list. */
    openedAt: z.string(),
    ageHours: z.number().nonnegative(),
    /** Open longer than `prs.staleAfter`. */
    stale: z.boolean(),
    /** Changes more files than `prs.largeFiles`. */
    large: z.boolean(),
    /** The numbers of the other open PRs (of any loop, same repository) touching a file this one does. */
    overlaps: z.array(z.number().int()).readonly(),
    /** Its checks went red after the loop's READY verdict named it green. */
    redAfterReady: z.boolean(),
    /** Its night's branch moved after the night's last full suite (Phase.uncertified): no suite ran on those commits. Null when none; absent in older records. */
    uncertified: UncertifiedSchema.nullable().optional(),
    /** The body's Next section as a checklist (empty when it has none). */
    next: z.array(NextStepSchema).readonly(),
    /** The merge made from the console, or null. */
    merged: DeskMergeSchema.nullable(),
    /** Why GitHub could not be asked about it just now (a timeout, a rate limit), or null. */
    problem: z.string().nullable(),
    /** Whether Loopdeck's GitHub token may merge in its repository (null: not known yet). */
    canWrite: z.boolean().nullable(),
  })
  .readonly();
/** One PR of the merge desk. */
export type DeskPr = z.infer<typeof DeskPrSchema>;

/** Why the console will not merge a PR now, one sentence each; empty when it may. */
export function mergeBlockers(pr: Pick<DeskPr, 'state' | 'checks' | 'next' | 'canWrite'>): string[] {
  const out: string[] = [];
  if (pr.state !== 'open') out.push(`it is ${pr.state}`);
  if (pr.canWrite === null) out.push('whether the GitHub token may merge in this repository is not known yet');
  else if (!pr.canWrite) out.push('the GitHub token cannot write to this repository (merging needs a token with write access to its pull requests and contents)');
  const notPassing = pr.checks.filter((c) => c.state !== 'passing');
  if (pr.checks.length === 0) out.push('it has no checks: nothing says it is green');
  else if (notPassing.length > 0) out.push(`${notPassing.length === 1 ? 'a check has' : `${notPassing.length} checks have`} not passed: ${notPassing.map((c) => `${c.name} (${c.state})`).join(', ')}`);
  const open = pr.next.map((s, i) => ({ s, i })).filter(({ s }) => s.doneAt === null);
  if (open.length > 0) out.push(`${open.length === 1 ? 'a Next step is' : `${open.length} Next steps are`} not ticked: ${open.map(({ i }) => i + 1).join(', ')}`);
  return out;
}
