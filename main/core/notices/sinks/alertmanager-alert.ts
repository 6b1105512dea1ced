import type { Finding, LoopState, Notice, PhaseStatus } from '../../../../shared/domain';
import { noticeLine } from '../notice-text';
import type { RuleName } from '../notify-config';

/** An alert as Alertmanager's `POST /api/v2/alerts` takes it. */
export interface AmAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly generatorURL?: string;
}

/** What the labels need that a notice does not carry: the host each loop and drill run is on. */
export interface AlertContext {
  readonly loopHost: (loop: string) => string | undefined;
  readonly drillHost: (runId: string) => string | undefined;
}

/** `fleet:<proxy>:<host>:<kind>:<since>` (fleet-rules.ts); a host name may hold `:`, the kinds and the ISO time do not vary. */
const FLEET_KEY = /^fleet:[^:]+:(.*):(error-burst|heap|shed-threshold):\d{4}-\d\d-\d\dT[\d:.]+Z$/;

/**
 * The rule that raised a notice, read back from its key (the rules build keys from the identity of
 * the thing: `phase:<loop>:<date>:<phase>:<status>`, `finding:<loop>:<id>`, ...); null for a key
 * no rule builds (it is then posted as `loopdeck-notice`).
 */
export function ruleOfKey(key: string): RuleName | null {
  if (key.startsWith('deadman:')) return key.endsWith(':stalled') ? 'loop-stalled' : 'loop-missed';
  if (key.startsWith('phase:')) {
    const status = key.slice(key.lastIndexOf(':') + 1);
    return status === 'failed' ? 'phase-failed' : status === 'incomplete' ? 'phase-incomplete' : status === 'no-op' ? 'phase-no-op' : null;
  }
  if (key.startsWith('signal:')) {
    const kind = key.slice(key.lastIndexOf(':') + 1);
    return kind === 'hung' ? 'phase-hung' : kind === 'spinning' ? 'phase-spinning' : kind === 'watchdog' ? 'phase-watchdog' : null;
  }
  if (key.startsWith('finding:')) return 'finding-p0';
  if (key.startsWith('pr:') && key.endsWith(':ready')) return 'prs-ready';
  if (key.startsWith('host-down:')) return 'host-down';
  if (key.startsWith('host-recovered:')) return 'host-recovered';
  if (key.startsWith('drill:')) return 'drill-finished';
  if (key.startsWith('hollow:')) return 'contract-hollow';
  if (key.startsWith('contract:')) return `contract-${key.split(':')[1]}` as RuleName;
  if (key.startsWith('preflight:')) return 'preflight-at-risk';
  if (key.startsWith('pr-stale:')) return 'pr-stale';
  if (key.startsWith('pr-red:')) return 'pr-red-after-ready';
  if (key.startsWith('budget:')) return 'budget';
  const fleet = FLEET_KEY.exec(key);
  if (fleet) return `fleet-${fleet[2] as 'error-burst' | 'heap' | 'shed-threshold'}`;
  const waiting = /^waiting:(blocked|operator-only|stopped|uncovered|drill-due):/.exec(key);
  if (waiting) return `waiting-${waiting[1] as 'blocked' | 'operator-only' | 'stopped' | 'uncovered' | 'drill-due'}`;
  return null;
}

/** Rules announcing something that happened rather than a state that lasts: their alerts end on their own. */
export function isEventRule(rule: RuleName | null): boolean {
  return rule === 'host-recovered' || rule === 'drill-finished';
}

function afterPrefix(source: string, prefix: string): string | undefined {
  return source.startsWith(prefix) ? source.slice(prefix.length) : undefined;
}

/**
 * The identifying labels of a notice's alert. They must not change while the alert lives
 * (Alertmanager tells alerts apart by their labels), so the caller computes them once per notice.
 * Labels without a value are left out: Alertmanager treats an empty label as absent.
 */
export function alertLabels(n: Pick<Notice, 'key' | 'priority' | 'source'>, ctx: AlertContext): Record<string, string> {
  const labels: Record<string, string> = { alertname: ruleOfKey(n.key) ?? 'loopdeck-notice' };
  const loop = afterPrefix(n.source, 'loop:');
  const proxy = afterPrefix(n.source, 'proxy:');
  const drill = afterPrefix(n.source, 'drill:');
  let host = afterPrefix(n.source, 'host:');
  if (loop) {
    labels.loop = loop;
    host = ctx.loopHost(loop);
  }
  if (proxy) {
    labels.proxy = proxy;
    // `host-down:<proxy>/<host>:<since>`, or `<proxy>` alone for a single-server proxy.
    const label = /^host-(?:down|recovered):([^:]+):/.exec(n.key)?.[1];
    host = label?.includes('/') ? label.slice(label.indexOf('/') + 1) : label;
    const fleet = FLEET_KEY.exec(n.key);
    if (fleet) host = fleet[1];
  }
  if (drill) {
    labels.drill = drill;
    host = ctx.drillHost(n.key.slice('drill:'.length));
  }
  if (host) labels.host = host;
  labels.priority = String(n.priority);
  labels.key = n.key;
  return labels;
}

/** The annotations: what Alertmanager's templates show (`summary`/`description` are its usual names). */
export function alertAnnotations(n: Pick<Notice, 'title' | 'message' | 'url'>): Record<string, string> {
  const out: Record<string, string> = { title: n.title, summary: n.title };
  if (n.message) {
    out.text = n.message;
    out.description = n.message;
  }
  if (n.url) out.url = n.url;
  return out;
}

/** The notice's link when it is an http(s) URL, which Alertmanager accepts as `generatorURL`. */
export function generatorUrl(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Phase statuses that say the phase ran through: a later cycle with one of these clears an earlier failure. */
const FINISHED: ReadonlySet<PhaseStatus> = new Set(['ok', 'ready', 'no-op']);

/** What one update of the notifier saw, to tell whether a notice's condition still holds. */
export interface ConditionScope {
  /** The whole state was derived (the first update of a process), not only what changed. */
  readonly full: boolean;
  /** Keys the rules derived from this state. */
  readonly derived: ReadonlySet<string>;
  /** The loops in this state (with all their cycles when `full`, the changed ones otherwise). */
  readonly loops: ReadonlyMap<string, LoopState>;
  /** `finding:<loop>:<id>` of every finding in this state. */
  readonly findings: ReadonlySet<string>;
  /** False: the PR list did not change and was not derived again (its alerts hold as they were). */
  readonly prs?: boolean;
}

/** The `finding:<loop>:<id>` key a finding's notice has (escaped as makeDraft escapes it, so an odd id still matches). */
export function findingKey(f: Pick<Finding, 'loop' | 'id'>): string {
  return noticeLine(`finding:${f.loop}:${f.id}`);
}

/**
 * Whether the condition a notice reports still holds, judging by one update: 'holds', 'cleared',
 * or 'unknown' when the update did not cover it (a delta without its loop or finding). Host and PR
 * notices are judged on every update (those slices come whole). A failed or incomplete phase is a
 * fact of its cycle, so it clears when the same phase later runs through (or its own cycle's
 * status changes).
 */
export function conditionOf(n: Pick<Notice, 'key' | 'source'>, scope: ConditionScope): 'holds' | 'cleared' | 'unknown' {
  const rule = ruleOfKey(n.key);
  const loopName = afterPrefix(n.source, 'loop:');
  switch (rule) {
    case 'loop-missed':
    case 'loop-stalled':
      if (!scope.full && !(loopName && scope.loops.has(loopName))) return 'unknown';
      return scope.derived.has(n.key) ? 'holds' : 'cleared';
    case 'phase-failed':
    case 'phase-incomplete':
    case 'phase-no-op':
    case 'phase-hung':
    case 'phase-spinning':
    case 'phase-watchdog': {
      const loop = loopName ? scope.loops.get(loopName) : undefined;
      if (!loop) return scope.full ? 'cleared' : 'unknown';
      const rest = n.key.slice(n.key.indexOf(`:${loop.name}:`) + loop.name.length + 2).split(':');
      const [date, phaseName] = rest;
      let covered = scope.full;
      for (const c of loop.cycles) {
        if (c.date === date) {
          covered = true;
          if (!scope.derived.has(n.key)) return 'cleared';
        } else if (date !== undefined && c.date > date && c.phases.some((p) => p.name === phaseName && FINISHED.has(p.status))) return 'cleared';
      }
      return covered ? 'holds' : 'unknown';
    }
    case 'finding-p0':
      if (!scope.full && !scope.findings.has(n.key)) return 'unknown';
      return scope.derived.has(n.key) ? 'holds' : 'cleared';
    case 'prs-ready':
      if (!scope.full && scope.prs === false) return 'unknown';
      return scope.derived.has(n.key) ? 'holds' : 'cleared';
    case 'host-down':
    case 'fleet-error-burst':
    case 'fleet-heap':
    case 'fleet-shed-threshold':
    case 'preflight-at-risk':
      // The capacity and the pre-flights are always in the state whole: what they no longer call for has cleared.
      return scope.derived.has(n.key) ? 'holds' : 'cleared';
    default:
      // Events end on their own; a key no rule builds ends when acknowledged.
      return 'holds';
  }
}
