import { isSaturated, type Capacity, type HostState, type LoopState, type Notice, type PullRequest } from '../../../../shared/domain';
import { HOST_DOWN_AFTER_MS } from '../rules/host-rules';

/** The tray's three looks, worst last. */
export type TrayLevel = 'ok' | 'attention' | 'failing';

/** What the tray icon reads: the live state, handed over without copies (see `Engine.liveState`). */
export interface TrayInput {
  /** Every configured loop, its cycles newest first. */
  readonly loops: readonly LoopState[];
  readonly hosts: readonly HostState[];
  readonly prs: readonly PullRequest[];
  /** The inference fleet as last polled. */
  readonly capacity: readonly Capacity[];
  /** The notice list (newest first; unacknowledged ones are never cut off by its limit). */
  readonly notices: readonly Notice[];
  /** Sources that currently cannot be read (a runs folder, a loop's ledgers). */
  readonly sourceErrors: number;
  readonly now: Date;
}

/** What the tray shows: the icon's level, the badge count, and a tooltip naming both and why. */
export interface TrayState {
  readonly level: TrayLevel;
  /** Unacknowledged, unsnoozed notices of priority ≥ 1: what waits for a person. */
  readonly count: number;
  /** Why the level is what it is, worst first, one short phrase each. */
  readonly reasons: readonly string[];
  readonly tooltip: string;
}

/** Windows cuts tray tooltips at 127 characters; the level and count come first so they survive. */
export const TRAY_TOOLTIP_MAX = 127;

const HOST_FAILING: ReadonlySet<HostState['state']> = new Set(['unreachable', 'auth-failed', 'hostkey-mismatch']);

/** Whether something down since `since` has been down longer than a blip (the host-down notice's threshold). */
function downLong(since: string | null, now: Date): boolean {
  const t = since === null ? NaN : Date.parse(since);
  return !Number.isFinite(t) || now.getTime() - t >= HOST_DOWN_AFTER_MS;
}

/** Whether a notice still waits for a person at `now`: priority ≥ 1, not acknowledged, not snoozed, not held by a maintenance window. */
export function noticeWaits(n: Notice, now: Date): boolean {
  if (n.priority < 1 || n.acknowledgedAt !== null || n.silenced?.state === 'held') return false;
  const until = n.snoozedUntil === null ? NaN : Date.parse(n.snoozedUntil);
  return !(Number.isFinite(until) && until > now.getTime());
}

/**
 * The worst current state, for the tray icon. Decided as follows:
 *
 * - **failing**: something stopped and will not fix itself — a loop's newest cycle is `failed` or
 *   `incomplete`; a loop's dead-man is `missed` or `stalled`; a host is `unreachable`,
 *   `auth-failed` or `hostkey-mismatch`, or has been `reconnecting` for longer than
 *   HOST_DOWN_AFTER_MS; an inference host has been down that long.
 * - **attention**: a person is wanted, nothing is broken — unacknowledged notices of priority ≥ 1
 *   (not snoozed); PRs ready to merge; a dead-man `late` or `overrun`; a host `untrusted` (a key to
 *   confirm) or only just `reconnecting`, an inference host only just down; a saturated inference
 *   host (every slot busy, or a queue); sources that cannot be read.
 * - **ok** otherwise (a host still `connecting` on start is not news).
 *
 * An older failed cycle does not count: the newest one is where the loop stands now (its
 * notice, while unacknowledged, still raises attention). The count is the waiting notices only,
 * so acknowledging them brings it to 0 while a failing state stays on the icon until it clears.
 */
export function trayStateOf(input: TrayInput): TrayState {
  const failing: string[] = [];
  const attention: string[] = [];

  for (const loop of input.loops) {
    const newest = loop.cycles[0];
    if (newest && (newest.status === 'failed' || newest.status === 'incomplete')) failing.push(`${loop.name} ${newest.date} ${newest.status}`);
    const dm = loop.deadman?.state;
    if (dm === 'missed' || dm === 'stalled') failing.push(`${loop.name} ${dm}`);
    else if (dm === 'late' || dm === 'overrun') attention.push(`${loop.name} ${dm}`);
  }
  for (const h of input.hosts) {
    if (HOST_FAILING.has(h.state) || (h.state === 'reconnecting' && downLong(h.since, input.now))) failing.push(`host ${h.name} ${h.state}`);
    else if (h.state === 'reconnecting' || h.state === 'untrusted') attention.push(`host ${h.name} ${h.state}`);
  }
  for (const c of input.capacity) {
    const label = c.host === c.proxy ? c.proxy : `${c.proxy}/${c.host}`;
    if (!c.up) (downLong(c.since, input.now) ? failing : attention).push(`${label} down`);
    else if (isSaturated(c)) attention.push(`${label} saturated`);
  }

  let count = 0;
  for (const n of input.notices) if (noticeWaits(n, input.now)) count += 1;
  // Attention reasons in order of what a person does first: answer notices, then merge.
  const ready = input.prs.filter((p) => p.status === 'ready').length;
  const head: string[] = [];
  if (count > 0) head.push(`${count} ${count === 1 ? 'notice' : 'notices'} to acknowledge`);
  if (ready > 0) head.push(`${ready} ${ready === 1 ? 'PR' : 'PRs'} ready to merge`);
  if (input.sourceErrors > 0) attention.push(`${input.sourceErrors} ${input.sourceErrors === 1 ? 'source' : 'sources'} unreadable`);

  const level: TrayLevel = failing.length > 0 ? 'failing' : head.length > 0 || attention.length > 0 ? 'attention' : 'ok';
  const reasons = [...failing, ...head, ...attention];
  return { level, count, reasons, tooltip: trayTooltip(level, count, failing.length > 0 ? failing : [...head, ...attention].slice(count > 0 ? 1 : 0)) };
}

/** `Loopdeck: failing · 2 notices · reliability 2026-08-23 failed, host mac unreachable`, cut to TRAY_TOOLTIP_MAX. */
function trayTooltip(level: TrayLevel, count: number, why: readonly string[]): string {
  const parts = [`Loopdeck: ${level}`];
  if (count > 0) parts.push(`${count} ${count === 1 ? 'notice' : 'notices'} to acknowledge`);
  if (why.length > 0) parts.push(why.join(', '));
  const text = parts.join(' · ');
  return text.length <= TRAY_TOOLTIP_MAX ? text : `${text.slice(0, TRAY_TOOLTIP_MAX - 1)}…`;
}

/** Whether two tray states look the same (the tray is touched only when they do not). */
export function sameTrayState(a: TrayState | null, b: TrayState): boolean {
  return a !== null && a.level === b.level && a.count === b.count && a.tooltip === b.tooltip;
}
