import { fleetIncidents, INCIDENT_LABEL, type FleetIncident, type FleetIncidentKind } from '../../../../shared/fleet-incidents';
import { FLEET_HASH } from '../../../../shared/links';
import type { Capacity, NoticePriority } from '../../../../shared/domain';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { consoleLink } from '../notice-text';
import type { RuleName } from '../notify-config';

/**
 * The rule of each fleet incident that is noticed. A host down has its own rule (`host-down`,
 * after five minutes); a saturated host is shown on the tray and the Review, not pushed.
 */
export const FLEET_RULES: Readonly<Partial<Record<FleetIncidentKind, RuleName>>> = {
  'error-burst': 'fleet-error-burst',
  heap: 'fleet-heap',
  'shed-threshold': 'fleet-shed-threshold',
};

/** `<proxy>:<host>:<kind>`: what an episode of a fleet incident is tracked by. */
export function incidentId(i: Pick<FleetIncident, 'proxy' | 'host' | 'kind'>): string {
  return `${i.proxy}:${i.host}:${i.kind}`;
}

/** The noticed incidents of the current capacity. */
function noticed(capacity: readonly Capacity[]): FleetIncident[] {
  return fleetIncidents(capacity).filter((i) => FLEET_RULES[i.kind] !== undefined);
}

/**
 * The next record of when each noticed incident began: an incident that lasts keeps the start it
 * was first seen with (its notice key does not change while it lasts, across restarts when the
 * caller persists the record); one that cleared is dropped, so its next episode is a new notice.
 * Proxy names hold no `:` (the config's names), so an id's proxy is what comes before the first.
 */
export function trackIncidentSince(previous: Readonly<Record<string, string>>, capacity: readonly Capacity[], now: Date): Record<string, string> {
  const next: Record<string, string> = {};
  // A proxy not polled yet since a start keeps its incidents' starts until its first answer.
  const polled = new Set(capacity.map((c) => c.proxy));
  for (const [id, since] of Object.entries(previous)) if (!polled.has(id.slice(0, id.indexOf(':')))) next[id] = since;
  for (const i of noticed(capacity)) {
    const id = incidentId(i);
    next[id] = previous[id] ?? now.toISOString();
  }
  return next;
}

/**
 * A notice per noticed fleet incident, keyed `fleet:<proxy>:<host>:<kind>:<since>` (the episode's
 * start, from `since`; `now` where it is not tracked): raised once per episode, derived while it
 * lasts (an Alertmanager alert resolves when it clears), linking the Capacity view.
 */
export function fleetDrafts(input: {
  readonly capacity: readonly Capacity[];
  readonly since: Readonly<Record<string, string>>;
  readonly now: Date;
  readonly prio: (rule: RuleName) => NoticePriority;
  readonly consoleUrl?: string;
}): NoticeDraft[] {
  const out: NoticeDraft[] = [];
  for (const i of noticed(input.capacity)) {
    const rule = FLEET_RULES[i.kind];
    if (!rule) continue;
    const id = incidentId(i);
    const since = input.since[id] ?? input.now.toISOString();
    const label = i.host === i.proxy ? i.proxy : `${i.proxy}/${i.host}`;
    out.push(
      makeDraft({
        key: `fleet:${id}:${since}`,
        priority: input.prio(rule),
        source: `proxy:${i.proxy}`,
        title: `${label}: ${INCIDENT_LABEL[i.kind]}`,
        message: `${label}: ${i.detail.replace(/\.$/, '')}. Since ${since}.`,
        url: consoleLink(input.consoleUrl, FLEET_HASH),
        urlTitle: 'The fleet in Loopdeck',
      }),
    );
  }
  return out;
}
