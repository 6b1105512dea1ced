// Pure security decisions of the Electron shell, kept free of `electron` so they are unit-tested
// in plain Node; `harden.ts` applies them to sessions and web contents.
import { buildContentSecurityPolicy, CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';

/**
 * The CSP header of the shell's session: the console's one policy (shared/csp.ts; the built
 * index.html carries it as a <meta> tag too, which is what holds for its file:// load). For a
 * renderer served from `devServerUrl` (electron-vite dev), Vite's React refresh preamble is an
 * inline script, its CSS arrives as inline <style> and HMR talks over a WebSocket, so dev alone
 * relaxes those three.
 */
export function contentSecurityPolicy(devServerUrl?: string): string {
  if (devServerUrl === undefined) return CONTENT_SECURITY_POLICY_HEADER;
  const origin = new URL(devServerUrl);
  const ws = `${origin.protocol === 'https:' ? 'wss' : 'ws'}://${origin.host}`;
  return buildContentSecurityPolicy('header', { script: ["'unsafe-inline'"], style: ["'unsafe-inline'"], connect: [ws] });
}

/** Response headers with our CSP in place of any the response carried (whatever its case). */
export function withContentSecurityPolicy(
  headers: Readonly<Record<string, string | readonly string[]>>,
  csp: string,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-security-policy') continue;
    out[name] = typeof value === 'string' ? [value] : [...value];
  }
  out['Content-Security-Policy'] = [csp];
  return out;
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Whether a link may be handed to the operating system's browser: https only, with a host and no
 * embedded credentials. Anything else (file:, javascript:, custom schemes that launch local
 * programs, plain http) is refused.
 */
export function isAllowedExternalUrl(url: string): boolean {
  const parsed = parseUrl(url);
  return parsed !== undefined && parsed.protocol === 'https:' && parsed.hostname !== '' && parsed.username === '' && parsed.password === '';
}

/** Where the app's own renderer lives: its built index.html, or the dev server (unpackaged only). */
export interface RendererLocation {
  /** `file://` URL of the built renderer's index.html. */
  readonly fileUrl: string;
  /** The electron-vite dev server URL, when running unpackaged under `electron-vite dev`. */
  readonly devServerUrl?: string;
}

/**
 * Whether an IPC call or a navigation comes from / goes to the app's own renderer: the same
 * file:// document (query and hash ignored, for client-side routing), or the dev server's origin.
 */
export function isTrustedSenderUrl(senderUrl: string, renderer: RendererLocation): boolean {
  const sender = parseUrl(senderUrl);
  if (!sender) return false;
  if (renderer.devServerUrl !== undefined) {
    const dev = parseUrl(renderer.devServerUrl);
    if (dev && (dev.protocol === 'http:' || dev.protocol === 'https:') && sender.origin === dev.origin) return true;
  }
  const file = parseUrl(renderer.fileUrl);
  return file !== undefined && file.protocol === 'file:' && sender.protocol === 'file:' && sender.host === file.host && sender.pathname === file.pathname;
}

/** What to do when the renderer tries to navigate or open a window. */
export type NavigationDecision = 'allow' | 'open-external' | 'deny';

/**
 * Decide a `will-navigate` / `window.open` target: the app may reload itself; an https link goes
 * to the system browser; everything else is refused. The window never shows foreign content.
 */
export function decideNavigation(url: string, renderer: RendererLocation, kind: 'navigate' | 'new-window'): NavigationDecision {
  if (kind === 'navigate' && isTrustedSenderUrl(url, renderer)) return 'allow';
  return isAllowedExternalUrl(url) ? 'open-external' : 'deny';
}
