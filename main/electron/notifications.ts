import { Notification } from 'electron';
import type { EventPayload } from '../../shared/contract';
import { consoleHash } from '../../shared/links';


/**
 * Show a raised notice as a desktop notification with Pushover's urgency: emergencies are
 * critical and stay up, quiet ones make no sound. Clicking it opens the view that explains it.
 */
export function showDesktopNotice(payload: EventPayload<'notice.raised'>, open: (hash: string) => void): void {
  const { notice } = payload;
  if (notice.priority < -1 || !Notification.isSupported()) return;
  const n = new Notification({
    title: notice.title,
    body: notice.message,
    silent: notice.priority < 0,
    urgency: notice.priority >= 1 ? 'critical' : notice.priority < 0 ? 'low' : 'normal',
    timeoutType: notice.priority === 2 ? 'never' : 'default',
  });
  n.on('click', () => open(consoleHash(notice.url) ?? '#/notices'));
  n.show();
}
