import type { Store } from '../store/store';
import type { z } from 'zod';
import type { NoticePriority } from '../../../shared/domain';
import type { NotifyConfigSchema } from '../config/schema';
import { CONTRACT_KINDS, type ContractKind } from '../../../shared/contract-breach';

/** The validated `notify` section (durations already in milliseconds). */
export type NotifyConfig = z.output<typeof NotifyConfigSchema>;

/** Names of the notice rules, as `notify.rules` spells them. */
export const RULE_NAMES = [
  'loop-missed',
  'loop-stalled',
  'phase-incomplete',
  'phase-failed',
  'finding-p0',
  'prs-ready',
  'phase-no-op',
  'host-down',
  'host-recovered',
  'drill-finished',
  'phase-hung',
  'phase-spinning',
  'phase-watchdog',
  'waiting-blocked',
  'waiting-operator-only',
  'waiting-stopped',
  'waiting-uncovered',
  'waiting-drill-due',
  'fleet-error-burst',
  'fleet-heap',
  'fleet-shed-threshold',
  'preflight-at-risk',
  'pr-stale',
  'pr-red-after-ready',
  // A night whose pace would pass costs.budget.monthly (rules/budget-rules.ts).
  'budget',
  // Broken contract (shared/contract-breach.ts), one rule a kind; contract-hollow was remediate-hollow.
  ...CONTRACT_KINDS.map((k) => `contract-${k}` as const),
] as const;

/** The name of a notice rule. */
export type RuleName = (typeof RULE_NAMES)[number];

/** Each rule's priority unless `notify.rules` says otherwise. */
export const DEFAULT_RULES: Readonly<Record<RuleName, NoticePriority>> = {
  'loop-missed': 1,
  'loop-stalled': 1,
  // The ceiling of an incomplete phase: one that resumes itself (exit 75, a resumable deliver record)
  // is capped at 0, unless it was incomplete on the previous fire too (rules.ts, incompleteLevel).
  'phase-incomplete': 1,
  'phase-failed': 1,
  'finding-p0': 2,
  'prs-ready': 0,
  'phase-no-op': -1,
  'host-down': 1,
  'host-recovered': 0,
  'drill-finished': 0,
  'phase-hung': 1,
  'phase-spinning': 0,
  'phase-watchdog': 1,
  'waiting-blocked': 1,
  'waiting-operator-only': 1,
  'waiting-stopped': 1,
  'waiting-uncovered': 1,
  'waiting-drill-due': 0,
  // Requests failing now, or a gateway about to run out of memory: someone should look soon.
  'fleet-error-burst': 1,
  'fleet-heap': 1,
  // A configuration finding (an env var to lower), not an outage.
  'fleet-shed-threshold': 0,
  // Tonight's run will fail unless someone acts before the fire.
  'preflight-at-risk': 1,
  // An open PR past prs.staleAfter: the morning's look, not a page.
  'pr-stale': 0,
  // CI red after the loop said green: a merge now would ship a red build.
  'pr-red-after-ready': 1,
  // Money, not an outage: the morning's look, once a month.
  budget: 0,
  // What the loop did against its own manual: worth the morning's look, not a page at night.
  ...(Object.fromEntries(CONTRACT_KINDS.map((k) => [`contract-${k}`, 0])) as Record<`contract-${ContractKind}`, NoticePriority>),
};

/** Rule names of earlier versions, still read from `notify.rules`: the rule they became. */
const RENAMED_RULES: Readonly<Record<string, RuleName>> = { 'remediate-hollow': 'contract-hollow' };

/** Pushover's bounds: an emergency repeats at least 30 s apart and for at most 3 h. */
export const MIN_RETRY_MS = 30_000;
/** The longest an emergency may keep repeating (Pushover's 10800 s). */
export const MAX_EXPIRE_MS = 10_800_000;

function isRuleName(name: string): name is RuleName {
  return (RULE_NAMES as readonly string[]).includes(name);
}

/**
 * `notify.rules` as rule priorities, plus the names no rule has: the config schema accepts any
 * name, so the caller reports those (as `notify.rules.<name>`) instead of silently ignoring them.
 */
export function ruleOverrides(rules: Readonly<Record<string, number>> | undefined): {
  rules: Partial<Record<RuleName, NoticePriority>>;
  unknown: string[];
} {
  const out: Partial<Record<RuleName, NoticePriority>> = {};
  const unknown: string[] = [];
  for (const [written, value] of Object.entries(rules ?? {})) {
    const name = RENAMED_RULES[written] ?? written;
    if (!isRuleName(name)) unknown.push(written);
    else if (name === written || out[name] === undefined) out[name] = Math.max(-2, Math.min(2, Math.round(value))) as NoticePriority;
  }
  return { rules: out, unknown };
}

/** Emergency timing from the config: retry (default 60 s, at least 30 s), expire (default 1 h, at most 3 h). */
export function emergencyTiming(notify: NotifyConfig): { retryMs: number; expireMs: number } {
  return {
    retryMs: Math.max(MIN_RETRY_MS, notify.retry ?? 60_000),
    expireMs: Math.min(MAX_EXPIRE_MS, notify.expire ?? 3_600_000),
  };
}

/**
 * Whether `now` (local time) is inside `HH:MM-HH:MM`; the range may wrap midnight
 * (`22:00-07:00`). The start minute is inside, the end minute is not; equal ends mean none.
 */
export function inQuietHours(spec: string | undefined, now: Date): boolean {
  if (!spec) return false;
  const m = /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(spec);
  if (!m) return false;
  const start = Number(m[1]) * 60 + Number(m[2]);
  const end = Number(m[3]) * 60 + Number(m[4]);
  const t = now.getHours() * 60 + now.getMinutes();
  if (start === end) return false;
  return start < end ? t >= start && t < end : t >= start || t < end;
}

/** What a sink that posts to a service (Pushover, Alertmanager) is made from. */
export interface RemoteSinkOptions {
  readonly store: Store;
  readonly notify: NotifyConfig;
  readonly now?: () => Date;
  /** The HTTP client; tests give one that counts or fails. */
  readonly fetch?: typeof fetch;
  readonly log?: (message: string) => void;
}
