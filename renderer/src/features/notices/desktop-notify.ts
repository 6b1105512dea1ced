import type { LoopdeckBridge } from '../../../../shared/contract';
import type { Notice } from '../../../../shared/domain';
import { openExternal } from '../../ui/links';
import { noticeLink } from './notices';

// Browser notifications, in serve mode only: the desktop shell (window.loopdeck) shows its own.

/** Whether this page may use the browser's Notification API (a browser, not the Electron shell). */
export function desktopNotificationsApply(): boolean {
  return typeof window !== 'undefined' && !(window as { loopdeck?: LoopdeckBridge }).loopdeck && 'Notification' in window;
}

/** The current permission, or null where notifications do not apply. */
export function notificationPermission(): NotificationPermission | null {
  return desktopNotificationsApply() ? Notification.permission : null;
}

/** Show a raised notice as a desktop notification when permitted (priority ≥ 0); clicking focuses and follows the link. */
export function showDesktopNotification(notice: Notice, open: (notice: Notice) => void): void {
  if (!desktopNotificationsApply() || Notification.permission !== 'granted' || notice.priority < 0) return;
  try {
    const n = new Notification(notice.title, { body: notice.message, tag: notice.key, requireInteraction: notice.priority === 2 });
    n.onclick = () => {
      window.focus();
      open(notice);
      n.close();
    };
  } catch {
    // Some browsers only allow notifications from a service worker; the toast still shows.
  }
}

/** Follow a notice's link: console links navigate here, https opens outside, otherwise the Notices view. */
export function followNotice(notice: Notice): void {
  const link = noticeLink(notice.url);
  if (link?.kind === 'external') openExternal(link.url);
  else window.location.hash = link?.kind === 'console' ? link.hash : '#/notices';
}
