import type { Notice, NoticePriority } from '../../../shared/domain';
import { MESSAGE_MAX, TITLE_MAX, truncate } from './notice-text';

/**
 * A notice as the rules derive it, before the store has seen it. `requires` names another key
 * that must have been raised first: a recovery only makes sense after its outage was notified.
 */
export type NoticeDraft = Omit<Notice, 'createdAt' | 'acknowledgedAt' | 'snoozedUntil'> & { readonly requires?: string };

/** Build a draft, keeping the title short and the message within Pushover's 1024 characters. */
export function makeDraft(d: {
  key: string;
  priority: NoticePriority;
  source: string;
  title: string;
  message: string;
  url: string | null;
  urlTitle: string | null;
  requires?: string;
}): NoticeDraft {
  const base = {
    key: d.key,
    priority: d.priority,
    source: d.source,
    title: truncate(d.title, TITLE_MAX),
    message: truncate(d.message, MESSAGE_MAX),
    url: d.url,
    urlTitle: d.url === null ? null : d.urlTitle,
  };
  return d.requires === undefined ? base : { ...base, requires: d.requires };
}
