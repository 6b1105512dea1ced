import { FLEET_HASH, hostHash } from '../../../../shared/links';
import type { Capacity, HostState, NoticePriority } from '../../../../shared/domain';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { consoleLink, humanDuration } from '../notice-text';

/** A host counts as down for a notice once it has been down longer than this. */
export const HOST_DOWN_AFTER_MS = 5 * 60_000;

/** Something that can be down: an SSH/local host, or an inference host behind a proxy. */
export interface DownSubject {
  /** Key into `hostDownSince`: `host:<name>` or `proxy:<proxy>/<host>`. */
  readonly id: string;
  /** How keys and messages name it: `mac`, or `crossbar/gpu-1`. */
  readonly label: string;
  /** The notice's source: `host:<name>` or `proxy:<proxy>`. */
  readonly source: string;
  readonly down: boolean;
  /** When its current state began, by its own account (may be null or stale). */
  readonly since: string | null;
  /** What is wrong, for the message. */
  readonly detail: string;
  /** Where a notice about it lands in the console. */
  readonly hash: string;
}

/** Every host and inference host, up or down. */
export function downSubjects(hosts: readonly HostState[], capacity: readonly Capacity[]): DownSubject[] {
  const out: DownSubject[] = hosts.map((h) => ({
    id: `host:${h.name}`,
    label: h.name,
    source: `host:${h.name}`,
    down: h.state !== 'connected',
    since: h.since,
    detail: `${h.kind} host ${h.name} is ${h.state}${h.error ? `: ${h.error}` : ''}`,
    hash: hostHash(h.name),
  }));
  for (const c of capacity) {
    const label = c.host === c.proxy ? c.proxy : `${c.proxy}/${c.host}`;
    out.push({
      id: `proxy:${label}`,
      label,
      source: `proxy:${c.proxy}`,
      down: !c.up,
      since: c.since,
      detail: `inference host ${c.host} behind ${c.proxy} (${c.kind}) is down${c.error ? `: ${c.error}` : ''}`,
      hash: FLEET_HASH,
    });
  }
  return out;
}

/** An outage: `since` alone while it lasts, `since/until` (an ISO 8601 interval) once it ended. */
function parseEpisode(value: string | undefined): { since: string; until: string | null } | null {
  if (!value) return null;
  const [since, until] = value.split('/');
  if (!since || Number.isNaN(Date.parse(since))) return null;
  return { since, until: until && !Number.isNaN(Date.parse(until)) ? until : null };
}

/**
 * The next `hostDownSince` record from the current states: an outage keeps the start it was first
 * seen with (so its notice key never changes while it lasts, even across restarts when the caller
 * persists the record), and is closed as `since/until` when the subject is back, so the rules can
 * announce the recovery. A new outage starts at the subject's own `since` when that is plausible.
 */
export function trackDownSince(
  previous: Readonly<Record<string, string>>,
  hosts: readonly HostState[],
  capacity: readonly Capacity[],
  now: Date,
): Record<string, string> {
  const next: Record<string, string> = {};
  const nowIso = now.toISOString();
  for (const s of downSubjects(hosts, capacity)) {
    const ep = parseEpisode(previous[s.id]);
    if (s.down) {
      if (ep && ep.until === null) {
        next[s.id] = ep.since;
        continue;
      }
      const own = s.since === null ? Number.NaN : Date.parse(s.since);
      const floor = ep?.until ? Date.parse(ep.until) : Number.NEGATIVE_INFINITY;
      next[s.id] = !Number.isNaN(own) && own <= now.getTime() && own >= floor ? new Date(own).toISOString() : nowIso;
    } else if (ep) {
      next[s.id] = ep.until === null ? `${ep.since}/${nowIso}` : `${ep.since}/${ep.until}`;
    }
  }
  return next;
}

/** `host-down` and `host-recovered` drafts from the subjects' states and their tracked outages. */
export function hostDrafts(input: {
  hosts: readonly HostState[];
  capacity: readonly Capacity[];
  hostDownSince: Readonly<Record<string, string>>;
  now: Date;
  downPriority: NoticePriority;
  recoveredPriority: NoticePriority;
  consoleUrl?: string;
}): NoticeDraft[] {
  const out: NoticeDraft[] = [];
  for (const s of downSubjects(input.hosts, input.capacity)) {
    const ep = parseEpisode(input.hostDownSince[s.id]);
    const url = consoleLink(input.consoleUrl, s.hash);
    if (s.down) {
      // Without a tracked outage, the subject's own account of when it went down will do.
      const since = ep && ep.until === null ? ep.since : s.since;
      const start = since === null ? Number.NaN : Date.parse(since);
      if (Number.isNaN(start)) continue;
      const downFor = input.now.getTime() - start;
      if (downFor <= HOST_DOWN_AFTER_MS) continue;
      const sinceIso = new Date(start).toISOString();
      out.push(
        makeDraft({
          key: `host-down:${s.label}:${sinceIso}`,
          priority: input.downPriority,
          source: s.source,
          title: `${s.label} down for ${humanDuration(downFor)}`,
          message: `${s.detail}. Down since ${sinceIso} (${humanDuration(downFor)}).`,
          url,
          urlTitle: `${s.label} in Loopdeck`,
        }),
      );
    } else if (ep) {
      const sinceIso = new Date(Date.parse(ep.since)).toISOString();
      const until = ep.until ?? input.now.toISOString();
      const lasted = Date.parse(until) - Date.parse(sinceIso);
      out.push(
        makeDraft({
          key: `host-recovered:${s.label}:${sinceIso}`,
          priority: input.recoveredPriority,
          source: s.source,
          title: `${s.label} is back`,
          message: `${s.label} is reachable again after ${humanDuration(lasted)} down (${sinceIso} to ${until}).`,
          url,
          urlTitle: `${s.label} in Loopdeck`,
          requires: `host-down:${s.label}:${sinceIso}`,
        }),
      );
    }
  }
  return out;
}
