// Applies the shell's security decisions (security.ts) to Electron sessions and web contents.
import { shell, type Session, type WebContents } from 'electron';
import { decideNavigation, withContentSecurityPolicy, type RendererLocation } from './security';
import { log } from '../core/logging/log';

/** Open an https URL in the system browser; refuse (and log) anything `decideNavigation` refuses. */
export function openExternalSafely(url: string, renderer: RendererLocation): void {
  if (decideNavigation(url, renderer, 'new-window') !== 'open-external') {
    log.warn(`refused to open ${url}: only https links open outside the app.`);
    return;
  }
  shell.openExternal(url).catch((err: unknown) => log.warn(`could not open ${url}`, err));
}

/**
 * Lock down a session: our CSP on every response, and every permission (camera, notifications
 * prompt, geolocation, HID, serial, …) denied — the console needs none of them.
 */
export function hardenSession(ses: Session, csp: string): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders ?? {}, csp) });
  });
  ses.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
}

/**
 * Lock down one web contents: no navigation away from the app, no new windows (https links go to
 * the system browser instead), no <webview>. Applied to every web contents the app creates.
 */
export function hardenWebContents(contents: WebContents, renderer: RendererLocation): void {
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation(event.url, renderer, 'navigate');
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-external') openExternalSafely(event.url, renderer);
  });
  contents.on('will-redirect', (event) => {
    if (decideNavigation(event.url, renderer, 'navigate') !== 'allow') event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternalSafely(url, renderer);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
