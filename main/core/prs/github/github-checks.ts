import type { PrRemote } from '../../../../shared/domain';
import type { DeskCheck } from '../../../../shared/pr-desk';
import type { CheckRunsJson, CombinedStatusJson } from './github-api';

/** How many failing or pending check names a PR keeps. */
export const MAX_CHECK_NAMES = 8;

/** Check-run conclusions that fail the head commit (`neutral`, `skipped` and `success` do not). */
const FAILING_CONCLUSIONS = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale']);

/**
 * The head commit's checks from its combined status and its check runs (CI reports through
 * either): failing if any fails, else pending if any has not finished, else passing; `none` when
 * neither has anything (GitHub's combined status says `pending` for a commit with no statuses).
 * The names are those failing, else those still pending.
 */
export function combineChecks(status: CombinedStatusJson | null, runs: CheckRunsJson | null): { checks: NonNullable<PrRemote['checks']>; names: string[] } {
  const failing: string[] = [];
  const pending: string[] = [];
  let any = false;
  for (const s of status?.statuses ?? []) {
    any = true;
    if (s.state === 'failure' || s.state === 'error') failing.push(s.context);
    else if (s.state === 'pending') pending.push(s.context);
  }
  for (const r of runs?.check_runs ?? []) {
    any = true;
    if (r.status !== 'completed') pending.push(r.name);
    else if (r.conclusion !== null && FAILING_CONCLUSIONS.has(r.conclusion)) failing.push(r.name);
  }
  const uniq = (xs: string[]): string[] => [...new Set(xs.map((x) => String(x).slice(0, 120)))].slice(0, MAX_CHECK_NAMES);
  if (failing.length > 0) return { checks: 'failing', names: uniq(failing) };
  if (pending.length > 0) return { checks: 'pending', names: uniq(pending) };
  return { checks: any ? 'passing' : 'none', names: [] };
}

/** How many checks a desk PR keeps (one page each of statuses and check runs). */
export const MAX_DESK_CHECKS = 200;

/** A link GitHub gave, if it is an http(s) URL (a status's target_url is whatever its poster set). */
const linkOf = (url: string | null | undefined): string | null => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url.slice(0, 2000) : null);

/**
 * The head commit's checks by name, for the merge desk: each commit status (by context, its
 * `target_url`) and each check run (by name, its `html_url`), passing, failing or pending as
 * combineChecks reads them (`neutral` and `skipped` runs pass). A name seen twice keeps its first
 * (GitHub lists the newest status per context and, by default, the latest run per name).
 */
export function deskChecks(status: CombinedStatusJson | null, runs: CheckRunsJson | null): DeskCheck[] {
  const out = new Map<string, DeskCheck>();
  const add = (name: string, state: DeskCheck['state'], url: string | null | undefined): void => {
    const key = String(name).slice(0, 120);
    if (!out.has(key) && out.size < MAX_DESK_CHECKS) out.set(key, { name: key, state, url: linkOf(url) });
  };
  for (const s of status?.statuses ?? []) add(s.context, s.state === 'failure' || s.state === 'error' ? 'failing' : s.state === 'pending' ? 'pending' : 'passing', s.target_url);
  for (const r of runs?.check_runs ?? []) {
    const state = r.status !== 'completed' ? 'pending' : r.conclusion !== null && FAILING_CONCLUSIONS.has(r.conclusion) ? 'failing' : 'passing';
    add(r.name, state, r.html_url ?? r.details_url);
  }
  return [...out.values()];
}
