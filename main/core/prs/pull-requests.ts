import type { Cycle, Phase, Problem, PullRequest, Uncertified } from '../../../shared/domain';
import { cycleUncertified } from '../contract/phase-commits';
import { isPrUrl } from './pr-url';
import { messageOf } from '../../../shared/errors';

/** The loop's deliver record (FORMATS.md §2.6); a field missing or of the wrong type is null. */
export interface DeliverRecord {
  loop: string | null;
  branch: string | null;
  pr: number | null;
  url: string | null;
  status: 'pending' | 'green' | 'incomplete' | null;
  check: string | null;
  updatedAt: string | null;
}

/** Everything the PR list is derived from. */
export interface PullRequestInput {
  readonly loop: string;
  /** Newest first. */
  readonly cycles: readonly Cycle[];
  readonly deliverRecord: DeliverRecord | null;
  readonly now: Date;
}

type PrStatus = PullRequest['status'];

const RECORD_STATUSES = ['pending', 'green', 'incomplete'] as const;

/** Read a deliver record leniently: unknown fields ignored, each bad field a problem naming it. */
export function parseDeliverRecord(text: string, source: string): { record: DeliverRecord | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const problem = (message: string): void => void problems.push({ source, line: null, message });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    problem(`${source} is not valid JSON: ${messageOf(err)}`);
    return { record: null, problems };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problem(`${source} is not a JSON object`);
    return { record: null, problems };
  }
  const obj = raw as Record<string, unknown>;
  const str = (field: string): string | null => {
    const v = obj[field];
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') return v;
    problem(`field "${field}" should be a string, got ${JSON.stringify(v)}`);
    return null;
  };
  const pr = ((): number | null => {
    const v = obj.pr;
    if (v === undefined || v === null) return null;
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
    if (typeof v === 'string' && /^#?\d+$/.test(v.trim())) return Number(v.trim().replace('#', ''));
    problem(`field "pr" should be a PR number, got ${JSON.stringify(v)}`);
    return null;
  })();
  const status = ((): DeliverRecord['status'] => {
    const v = str('status');
    if (v === null) return null;
    const s = v.trim().toLowerCase();
    if ((RECORD_STATUSES as readonly string[]).includes(s)) return s as DeliverRecord['status'];
    problem(`field "status" should be one of ${RECORD_STATUSES.join(', ')}, got ${JSON.stringify(v)}`);
    return null;
  })();
  const updatedAt = ((): string | null => {
    const v = str('updated_at');
    if (v === null) return null;
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return new Date(t).toISOString();
    problem(`field "updated_at" is not a date: ${JSON.stringify(v)}`);
    return null;
  })();
  const url = ((): string | null => {
    const v = str('url')?.trim() ?? null;
    if (v === null || isPrUrl(v)) return v;
    problem(`field "url" should be an https URL, got ${JSON.stringify(v)}; not taken as the PR's link`);
    return null;
  })();
  return {
    record: { loop: str('loop'), branch: str('branch'), pr, url, status, check: str('check'), updatedAt },
    problems,
  };
}

/** The PR number in a `.../pull/<n>` (or `.../merge_requests/<n>`) URL. */
export function prNumber(url: string): number | null {
  const m = /\/(?:pull|pulls|merge_requests)\/(\d+)(?:[/?#]|$)/.exec(url);
  return m ? Number(m[1]) : null;
}

const URL_RE = /https:\/\/[^\s<>"'`]+/gi;

function urlsIn(text: string): string[] {
  return (text.match(URL_RE) ?? []).map((u) => u.replace(/[.,;:)\]}>]+$/, '')).filter(isPrUrl);
}

/** One piece of evidence about one PR URL. */
interface Sighting {
  readonly url: string;
  readonly status: PrStatus;
  readonly check: string | null;
  /** Epoch ms of the evidence (NaN when unknown). */
  readonly at: number;
  readonly cycle: string | null;
}

const ms = (iso: string | null): number => (iso === null ? NaN : Date.parse(iso));

/**
 * What one cycle's deliver phase says about its PRs: the verdict's URLs, then the wrapper stamp's
 * (the stamp decided the phase, so it wins for a URL both name). Only URLs visible in the phase
 * can be read: the stamp's text as its reason carries it, PR-like URLs in its detail lines.
 */
function cycleSightings(c: Cycle): Sighting[] {
  const out = new Map<string, Sighting>();
  for (const p of c.phases) {
    const at = ms(p.endedAt ?? p.startedAt);
    const add = (url: string, status: PrStatus, check: string | null): void => void out.set(url, { url, status, check, at, cycle: c.date });
    const v = p.verdict;
    if (v?.kind === 'deliver-ready') for (const u of v.urls) add(u, 'ready', null);
    if (v?.kind === 'deliver-incomplete') for (const u of v.urls) add(u, 'incomplete', v.check);
    for (const s of stampSightings(p)) add(s.url, s.status, s.check);
  }
  return [...out.values()];
}

function stampSightings(p: Phase): { url: string; status: PrStatus; check: string | null }[] {
  const stamp = /^wrapper stamp (.*)$/s.exec(p.reason)?.[1];
  if (stamp === undefined || (p.status !== 'ready' && p.status !== 'incomplete')) return [];
  const status: PrStatus = p.status;
  const check = status === 'incomplete' ? (/^INCOMPLETE:\s*(\S.*)$/i.exec(stamp)?.[1]?.trim() ?? null) : null;
  const fromStamp = status === 'ready' ? urlsIn(stamp.replace(/^.*?ready to merge:?/i, '')) : [];
  const fromDetail = p.detail.flatMap(urlsIn).filter((u) => prNumber(u) !== null);
  return [...new Set([...fromStamp, ...fromDetail])].map((url) => ({ url, status, check }));
}

const RANK: Readonly<Record<PrStatus, number>> = { ready: 0, incomplete: 1, pending: 2, merged: 3, closed: 4 };

/**
 * Everything of a cycle the PR list depends on, as one string: its sightings and its deliver
 * phase's start. A cycle whose evidence key did not change cannot change the loop's PRs, so the
 * engine re-derives them only when one did (a transcript line seldom names a PR).
 */
export function prEvidenceKey(c: Cycle): string {
  const deliver = c.phases.find((p) => p.name === 'deliver');
  return JSON.stringify([cycleSightings(c), deliver?.startedAt ?? null]);
}

/** The loop's PRs, one per URL, from deliver verdicts, wrapper stamps and the deliver record. */
export function derivePullRequests(input: PullRequestInput): PullRequest[] {
  const { loop, cycles } = input;
  // Per URL, sightings newest first (cycles come newest first; sort defensively by date).
  const byUrl = new Map<string, Sighting[]>();
  const ordered = [...cycles].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  for (const c of ordered) {
    for (const s of cycleSightings(c)) byUrl.set(s.url, [...(byUrl.get(s.url) ?? []), s]);
  }

  const rec = input.deliverRecord;
  const record = rec && (rec.loop === null || rec.loop === loop) ? rec : null;
  const recordUrl = record?.url ?? (record?.pr != null ? [...byUrl.keys()].find((u) => prNumber(u) === record.pr) : undefined) ?? null;
  if (record && recordUrl !== null && record.status !== null) {
    const status: PrStatus = record.status === 'green' ? 'ready' : record.status;
    const at = ms(record.updatedAt);
    const seen = byUrl.get(recordUrl) ?? [];
    const newest = seen[0];
    // The record wins unless a cycle's evidence of this URL is at least as new (or the record is undated).
    const recordWins = !newest || (!Number.isNaN(at) && (Number.isNaN(newest.at) || at > newest.at));
    if (recordWins) {
      const sighting: Sighting = { url: recordUrl, status, check: status === 'incomplete' ? record.check : null, at, cycle: deliveringCycle(ordered, at) ?? newest?.cycle ?? null };
      byUrl.set(recordUrl, [sighting, ...seen]);
    }
  }

  const out: PullRequest[] = [];
  for (const [url, seen] of byUrl) {
    const newest = seen[0];
    if (!newest) continue;
    // It reached its status at the oldest sighting of the newest unbroken run with that status.
    let reached = newest;
    for (const s of seen.slice(1)) {
      if (s.status !== newest.status) break;
      reached = s;
    }
    const fromRecord = record !== null && url === recordUrl;
    out.push({
      loop,
      url,
      number: (fromRecord ? record.pr : null) ?? prNumber(url),
      branch: fromRecord ? record.branch : null,
      status: newest.status,
      check: newest.check,
      since: Number.isNaN(reached.at) ? null : new Date(reached.at).toISOString(),
      cycle: reached.cycle,
      ...uncertifiedOf(ordered, reached.cycle),
    });
  }
  return out.sort((a, b) => RANK[a.status] - RANK[b.status] || newestFirst(a.since, b.since) || a.url.localeCompare(b.url));
}

/** The PR's delivering night's commits no suite ran on (contract/phase-commits.ts), as a field to spread. */
function uncertifiedOf(cycles: readonly Cycle[], date: string | null): { uncertified?: Uncertified } {
  const cycle = date === null ? undefined : cycles.find((c) => c.date === date);
  const u = cycle ? cycleUncertified(cycle) : null;
  return u ? { uncertified: u } : {};
}

function newestFirst(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return Date.parse(b) - Date.parse(a);
}

/** The newest cycle whose deliver phase had started by `at`: the run that wrote the record. */
function deliveringCycle(cyclesNewestFirst: readonly Cycle[], at: number): string | null {
  if (Number.isNaN(at)) return null;
  for (const c of cyclesNewestFirst) {
    const deliver = c.phases.find((p) => p.name === 'deliver');
    const start = ms(deliver?.startedAt ?? null);
    if (!Number.isNaN(start) && start <= at) return c.date;
  }
  return null;
}
