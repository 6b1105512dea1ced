import { isSaturated, type Capacity, type IncidentLimits } from './capacity-domain';
import type { MaintenanceMark } from './maintenance';

// The fleet's incidents, one set of rules for the Review screen, the Markdown summary, the notices
// (main) and the warning beside the charts: a host down or saturated, an error burst, a gateway
// shed threshold far above the capacity it has shown, a gateway heap near its limit.

/** The thresholds a proxy without an `incidents:` block has (and a Capacity saved before they existed). */
export const DEFAULT_INCIDENT_LIMITS: IncidentLimits = { errorPct: 5, errorMinRequests: 20, shedFactor: 2, heapPct: 85, fleet: null };

/** The window an error burst is measured over unless `incidents.errorWindow` says otherwise: 15 minutes. */
export const DEFAULT_ERROR_WINDOW_MS = 15 * 60_000;

/** What can be wrong with an inference host or a gateway. */
export type FleetIncidentKind = 'down' | 'saturated' | 'error-burst' | 'shed-threshold' | 'heap';

/** The order incidents are listed in: what users feel now first, configuration findings last. */
export const INCIDENT_KINDS: readonly FleetIncidentKind[] = ['down', 'error-burst', 'saturated', 'heap', 'shed-threshold'];

/** How a person reads each kind (the Review's tag, the Markdown, notice titles). */
export const INCIDENT_LABEL: Readonly<Record<FleetIncidentKind, string>> = {
  down: 'down',
  saturated: 'saturated',
  'error-burst': 'error burst',
  'shed-threshold': 'shed threshold above capacity',
  heap: 'heap near its limit',
};

/** A fleet problem on one (proxy, host). */
export interface FleetIncident {
  readonly proxy: string;
  readonly host: string;
  readonly kind: FleetIncidentKind;
  readonly since: string | null;
  /** One line for a person. */
  readonly detail: string;
  /** Inside a maintenance window of its proxy (the Capacity row's mark): planned, not an outage. Absent otherwise. */
  readonly planned?: MaintenanceMark;
}

/** Whether a status counts as an error (>= 400, or not a number at all but present): what the error charts show. */
export function isErrorStatus(status: string | null): boolean {
  if (status === null) return false;
  const n = Number(status);
  return Number.isFinite(n) ? n >= 400 : true;
}

/**
 * Whether a status counts toward an error burst: a server failure (5xx), or a status that is not
 * a number (`shed`, a proxy's own word). A 4xx is the client's doing (a prompt too large, a
 * cancelled request), not the fleet failing.
 */
export function isServerFailure(status: string): boolean {
  const n = Number(status);
  return Number.isFinite(n) ? n >= 500 : status !== '';
}

/** The server failures among error counts by status. */
export function serverFailures(errors: Readonly<Record<string, number>>): number {
  let n = 0;
  for (const [status, v] of Object.entries(errors)) if (isServerFailure(status)) n += v;
  return n;
}

/** A Capacity's thresholds: its own, else the defaults. */
export function limitsOf(c: Pick<Capacity, 'limits'>): IncidentLimits {
  return c.limits ?? DEFAULT_INCIDENT_LIMITS;
}

const pct = (v: number): string => `${Math.round(v * 10) / 10} %`;
const minutes = (ms: number): string => `${Math.round(ms / 60_000)} min`;
const NUM = new Intl.NumberFormat('en-US');

/**
 * An error burst: over the window, more than `errorPct` % of the requests failed with a server
 * error, out of at least `errorMinRequests` requests (one failure of two requests is not a burst).
 */
export function errorBurst(c: Pick<Capacity, 'errorShare' | 'limits'>): { readonly pct: number; readonly errors: number; readonly requests: number; readonly windowMs: number } | null {
  const s = c.errorShare;
  const lim = limitsOf(c);
  if (!s || s.requests <= 0 || s.requests < lim.errorMinRequests) return null;
  const share = (100 * s.errors) / s.requests;
  return share > lim.errorPct ? { pct: share, errors: s.errors, requests: s.requests, windowMs: s.windowMs } : null;
}

/** Whether a shed threshold is more than `factor` times a capacity level: shedding cannot engage before the capacity is spent. */
export function shedAbove(threshold: number, level: number, factor: number): boolean {
  return level > 0 && threshold > factor * level;
}

/**
 * The capacity a gateway has shown: the total slots of the fleet its `incidents.fleet` names (the
 * provider-bound capacity, known at once), else its in-flight high-water mark once it is evidence
 * of capacity — it failed requests with server errors in the window, so its backend gave out at
 * or below that level. A quiet gateway's high-water mark is only its load, never a finding.
 */
export function shownCapacity(c: Capacity, all: readonly Capacity[]): { readonly level: number; readonly basis: string } | null {
  const lim = limitsOf(c);
  if (lim.fleet !== null) {
    const slots = all.filter((x) => x.proxy === lim.fleet && x.slotsTotal !== null).reduce((a, x) => a + (x.slotsTotal ?? 0), 0);
    if (slots > 0) return { level: slots, basis: `the ${slots} slots of fleet ${lim.fleet}` };
  }
  if (c.highWater !== null && c.highWater > 0 && c.errorShare && c.errorShare.errors > 0) {
    return { level: c.highWater, basis: `its in-flight high-water mark of ${NUM.format(c.highWater)}, with server errors in the last ${minutes(c.errorShare.windowMs)}` };
  }
  return null;
}

/** A gateway whose shed threshold is more than `shedFactor` × the capacity it has shown (see shownCapacity). */
export function shedThresholdFinding(c: Capacity, all: readonly Capacity[]): string | null {
  if (c.kind !== 'gateway' || !c.up || c.shedThreshold === null) return null;
  const shown = shownCapacity(c, all);
  if (!shown || !shedAbove(c.shedThreshold, shown.level, limitsOf(c).shedFactor)) return null;
  const shed = c.totalShed === 0 ? '; nothing has been shed' : '';
  return `shed threshold ${NUM.format(c.shedThreshold)} is over ${limitsOf(c).shedFactor}× ${shown.basis}: load shedding cannot engage before the backend fails${shed}. Lower it to about ${NUM.format(shown.level)}.`;
}

/** A gateway whose heap is above `heapPct` % of its limit. */
export function heapHigh(c: Pick<Capacity, 'heapUtilizationPct' | 'heapSizeLimitMb' | 'limits' | 'up'>): string | null {
  const used = c.heapUtilizationPct ?? null;
  const lim = limitsOf(c);
  if (!c.up || used === null || used <= lim.heapPct) return null;
  const limit = c.heapSizeLimitMb != null ? ` of its ${NUM.format(Math.round(c.heapSizeLimitMb))} MB limit` : '';
  return `heap ${pct(used)}${limit} (above ${pct(lim.heapPct)}): it risks running out of memory`;
}

function saturatedDetail(c: Capacity): string {
  const queued = c.queued ?? 0;
  const parts: string[] = [];
  if (c.slotsBusy !== null && c.slotsTotal !== null) parts.push(`${c.slotsBusy}/${c.slotsTotal} slots busy`);
  if (queued > 0) parts.push(`${queued} queued`);
  return parts.join(' · ');
}

/** The incidents in the current capacity, in INCIDENT_KINDS order (down hosts first), each kind in capacity order. */
export function fleetIncidents(capacity: readonly Capacity[]): FleetIncident[] {
  const byKind = new Map<FleetIncidentKind, FleetIncident[]>(INCIDENT_KINDS.map((k) => [k, []]));
  const add = (c: Capacity, kind: FleetIncidentKind, since: string | null, detail: string): void => {
    byKind.get(kind)?.push({ proxy: c.proxy, host: c.host, kind, since, detail, ...(c.maintenance ? { planned: c.maintenance } : {}) });
  };
  for (const c of capacity) {
    if (!c.up) {
      add(c, 'down', c.since, c.error ?? 'Not answering.');
      continue;
    }
    const burst = errorBurst(c);
    if (burst) add(c, 'error-burst', c.polledAt, `${NUM.format(burst.errors)} of ${NUM.format(burst.requests)} requests (${pct(burst.pct)}) failed with a server error in the last ${minutes(burst.windowMs)}; the threshold is ${pct(limitsOf(c).errorPct)}`);
    if (isSaturated(c)) add(c, 'saturated', c.polledAt, saturatedDetail(c));
    const heap = heapHigh(c);
    if (heap) add(c, 'heap', c.polledAt, heap);
    const shed = shedThresholdFinding(c, capacity);
    if (shed) add(c, 'shed-threshold', c.polledAt, shed);
  }
  return INCIDENT_KINDS.flatMap((k) => byKind.get(k) ?? []);
}
