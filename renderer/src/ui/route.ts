// The console's views live in the URL hash (`#/loops`, `#/findings/reliability/R-123`, `#/prs`) so they can be
// linked to and the back button works. The query string stays the transport's (the serve token).

import { findingHash, hostHash, transcriptHash } from '../../../shared/links';

/** Which view is shown, and for findings, which one is open. */
export type Route =
  | { readonly view: 'review' }
  | { readonly view: 'loops'; readonly loop?: string }
  | { readonly view: 'notices' }
  | { readonly view: 'drills'; readonly runId?: string }
  /** The findings, opened on one (by loop and id; `loop` null: an old bare-id link, the first with that id). */
  | { readonly view: 'findings'; readonly loop: string | null; readonly id: string | null }
  | { readonly view: 'prs' }
  | { readonly view: 'capacity' }
  | { readonly view: 'trends' }
  /** The ledgers beyond findings: implementer tasks, the audit ledger, the lessons. */
  | { readonly view: 'ledgers' }
  /** The hosts Loopdeck reads, opened on one (a notice about it lands here). */
  | { readonly view: 'hosts'; readonly host: string | null }
  /** A phase's transcript, opened at a line (1-based) or on its last screen (null). */
  | { readonly view: 'log'; readonly loop: string; readonly date: string; readonly phase: string; readonly line: number | null }
  /** Two nights of a loop side by side: `a` against `b`, or against the last good night before it (`b` null). */
  | { readonly view: 'compare'; readonly loop: string; readonly a: string; readonly b: string | null };

/** A finding named by a link: by loop and id (`loop` null: an old bare-id link, the first finding with that id). */
export interface FindingRef {
  readonly loop: string | null;
  readonly id: string;
}

/** Whether a finding is the one a link names. */
export function isFinding(f: { readonly loop: string; readonly id: string }, ref: FindingRef | null): boolean {
  return ref !== null && f.id === ref.id && (ref.loop === null || f.loop === ref.loop);
}

/** The finding a route has open, if any. */
export function openFinding(route: Route): FindingRef | null {
  return route.view === 'findings' && route.id !== null ? { loop: route.loop, id: route.id } : null;
}

/** The name of a view. */
export type ViewName = Route['view'];

/** Parse a location hash; an empty or unknown hash is the review view (the old `#loops` still works). */
function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** `#/loops/<loop>/<date>/<phase>/log?line=N`: the segments after `loops`, or null when they are not a transcript's. */
function logRoute(rest: readonly string[]): Route | null {
  const [loop, date, phase, tail] = rest;
  if (rest.length !== 4 || !loop || !date || !phase || !tail) return null;
  const m = /^log(?:\?(.*))?$/.exec(tail);
  if (!m) return null;
  const line = Number(new URLSearchParams(m[1] ?? '').get('line') ?? NaN);
  return { view: 'log', loop: decoded(loop), date: decoded(date), phase: decoded(phase), line: Number.isSafeInteger(line) && line >= 1 ? line : null };
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const [head, ...rest] = path.split('/');
  if (head === 'loops') {
    const log = logRoute(rest);
    if (log) return log;
  }
  const raw = rest.join('/');
  let id: string | null = null;
  if (raw) {
    try {
      id = decodeURIComponent(raw);
    } catch {
      id = raw;
    }
  }
  if (head === 'findings') {
    // `#/findings/<loop>/<id>`, or an old `#/findings/<id>` (ids are encoded, so a `/` splits them).
    const [a, b] = rest.map(decoded);
    return rest.length >= 2 && a && b ? { view: 'findings', loop: a, id: b } : { view: 'findings', loop: null, id };
  }
  if (head === 'compare') {
    // `#/compare/<loop>/<date>[/<date>]`: anything else is the Review.
    const [loop, a, b] = rest.map(decoded);
    const date = /^\d{4}-\d{2}-\d{2}$/;
    if (loop && a && date.test(a) && (b === undefined || date.test(b)) && rest.length <= 3) return { view: 'compare', loop, a, b: b ?? null };
    return { view: 'review' };
  }
  if (head === 'prs') return { view: 'prs' };
  if (head === 'capacity') return { view: 'capacity' };
  if (head === 'trends') return { view: 'trends' };
  if (head === 'ledgers') return { view: 'ledgers' };
  if (head === 'loops') return id ? { view: 'loops', loop: id } : { view: 'loops' };
  if (head === 'notices') return { view: 'notices' };
  if (head === 'hosts') return { view: 'hosts', host: id };
  if (head === 'drills') return id ? { view: 'drills', runId: id } : { view: 'drills' };
  return { view: 'review' };
}

/** The hash for a route; finding ids are encoded (review findings carry a `#`). */
export function routeHash(route: Route): string {
  if (route.view === 'findings') return route.id ? findingHash({ loop: route.loop, id: route.id }) : '#/findings';
  if (route.view === 'loops' && route.loop) return `#/loops/${encodeURIComponent(route.loop)}`;
  if (route.view === 'drills' && route.runId) return `#/drills/${encodeURIComponent(route.runId)}`;
  if (route.view === 'log') return transcriptHash(route, route.line);
  if (route.view === 'hosts') return route.host === null ? '#/hosts' : hostHash(route.host);
  if (route.view === 'compare') return `#/compare/${encodeURIComponent(route.loop)}/${route.a}${route.b === null ? '' : `/${route.b}`}`;
  return `#/${route.view}`;
}
