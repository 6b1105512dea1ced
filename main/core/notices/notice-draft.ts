import type { Notice, NoticePriority } from '../../../shared/domain';
import { MESSAGE_MAX, noticeBody, noticeLine, TITLE_MAX, truncate } from './notice-text';

/**
 * A notice as the rules derive it, before the store has seen it. `requires` names another key
 * that must have been raised first: a recovery only makes sense after its outage was notified.
 */
export type NoticeDraft = Omit<Notice, 'createdAt' | 'acknowledgedAt' | 'snoozedUntil'> & { readonly requires?: string };

/**
 * Build a draft, keeping the title short and the message within Pushover's 1024 characters. Every
 * notice is made here, so this is where its text is made safe (noticeLine, noticeBody) for every
 * sink at once: the store, the desktop, webhooks, Alertmanager and Pushover all get it escaped.
 * Escaped before it is cut, so the limits hold for what is sent; keys are escaped too (stable, as
 * the escape is a function of the text), so a key and its `requires` still match.
 */
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
    key: noticeLine(d.key),
    priority: d.priority,
    source: noticeLine(d.source),
    title: truncate(noticeLine(d.title), TITLE_MAX),
    message: truncate(noticeBody(d.message), MESSAGE_MAX),
    url: d.url === null ? null : noticeLine(d.url),
    urlTitle: d.url === null || d.urlTitle === null ? null : noticeLine(d.urlTitle),
  };
  return d.requires === undefined ? base : { ...base, requires: noticeLine(d.requires) };
}
