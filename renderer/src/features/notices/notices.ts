import type { Notice, NoticePriority } from '../../../../shared/domain';
import { linkTarget, type LinkTarget } from '../../../../shared/links';

// Pure helpers for notices: Pushover's priorities, where a notice came from, where its link goes.

/** Priorities most urgent first, as the filter offers them. */
export const PRIORITIES: readonly NoticePriority[] = [2, 1, 0, -1, -2];

/** A priority's name. */
export const PRIORITY_LABEL: Readonly<Record<NoticePriority, string>> = {
  2: 'emergency',
  1: 'high',
  0: 'normal',
  [-1]: 'quiet',
  [-2]: 'list',
};

/** The kinds of thing that raise notices, by the prefix of `source`. */
export const SOURCE_KINDS = ['loop', 'host', 'proxy', 'drill'] as const;
/** A kind of notice source. */
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The kind of a notice's source (`loop:reliability` → `loop`), or null for anything else. */
export function sourceKind(source: string): SourceKind | null {
  const head = source.split(':', 1)[0] ?? '';
  return (SOURCE_KINDS as readonly string[]).includes(head) ? (head as SourceKind) : null;
}

/** What the notices view narrows to; null means any. */
export interface NoticeFilter {
  readonly priority: NoticePriority | null;
  readonly source: SourceKind | null;
}

/** Notices matching the filter, newest first. */
export function filterNotices(notices: readonly Notice[], filter: NoticeFilter): Notice[] {
  return notices
    .filter((n) => (filter.priority === null || n.priority === filter.priority) && (filter.source === null || sourceKind(n.source) === filter.source))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** Whether a notice is snoozed at `now`. */
export function isSnoozed(notice: Notice, now: number): boolean {
  const t = notice.snoozedUntil ? Date.parse(notice.snoozedUntil) : NaN;
  return Number.isFinite(t) && t > now;
}

/** Notices still waiting for a person: not acknowledged, not snoozed, not list-only, not held by a maintenance window (it is delivered, and waits, when the window ends). */
export function pendingNotices(notices: readonly Notice[], now: number): Notice[] {
  return notices.filter((n) => n.acknowledgedAt === null && n.priority > -2 && !isSnoozed(n, now) && n.silenced?.state !== 'held');
}

/** Where a notice's link goes: a console view, an https page, or nowhere usable. */
export type NoticeLink = LinkTarget;

/** Classify a notice's `url` (shared/links.ts): a console view navigates here, only https opens outside. */
export function noticeLink(url: string | null, consoleOrigin: string = typeof location === 'undefined' ? '' : location.origin): NoticeLink {
  return linkTarget(url, consoleOrigin);
}

/** Snooze choices, in minutes. */
export const SNOOZE_CHOICES: readonly { minutes: number; label: string }[] = [
  { minutes: 15, label: '15 min' },
  { minutes: 60, label: '1 h' },
  { minutes: 240, label: '4 h' },
];
