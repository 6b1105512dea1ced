// The console's one Content-Security-Policy. The renderer build puts it in index.html as a
// <meta> tag (renderer/vite.config.ts), serve mode sends it as a header on every response
// (main/serve/server.ts) and the Electron shell on every response of its session
// (main/electron/security.ts); tests hold each of them to the strings below.

/** How a policy reaches the page: a `<meta http-equiv>` tag ignores `frame-ancestors`. */
export type CspDelivery = 'meta' | 'header';

/** Sources a development renderer adds to the policy (the Vite dev server's inline preamble and HMR socket). */
export interface CspAllowances {
  readonly script?: readonly string[];
  readonly style?: readonly string[];
  readonly connect?: readonly string[];
}

/**
 * What the console really loads: its own scripts, stylesheets, favicon and fonts, and (serve mode)
 * its WebSocket. `connect-src 'self'` covers that socket: in CSP Level 3 'self' matches ws:/wss:
 * at the page's own host and port, so no other host is reachable. No inline script or style, no
 * eval (zod's `new Function` probe is switched off in renderer/src/zod-setup.ts), no data: URLs.
 */
const DIRECTIVES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['default-src', ["'self'"]],
  ['script-src', ["'self'"]],
  ['style-src', ["'self'"]],
  ['img-src', ["'self'"]],
  ['connect-src', ["'self'"]],
  ['object-src', ["'none'"]],
  ['base-uri', ["'none'"]],
  ['form-action', ["'none'"]],
];

/** Only a header may say who can frame the page; in a <meta> tag the browser reports it as an error. */
const HEADER_ONLY: ReadonlyArray<readonly [string, readonly string[]]> = [['frame-ancestors', ["'none'"]]];

/** Build the policy for one delivery, with a dev server's extra sources where given. */
export function buildContentSecurityPolicy(delivery: CspDelivery, allow: CspAllowances = {}): string {
  const extra: Readonly<Record<string, readonly string[] | undefined>> = {
    'script-src': allow.script,
    'style-src': allow.style,
    'connect-src': allow.connect,
  };
  const directives = delivery === 'header' ? [...DIRECTIVES, ...HEADER_ONLY] : DIRECTIVES;
  return directives.map(([name, sources]) => [name, ...sources, ...(extra[name] ?? [])].join(' ')).join('; ');
}

/** The policy in the built index.html's `<meta http-equiv="Content-Security-Policy">`. */
export const CONTENT_SECURITY_POLICY = buildContentSecurityPolicy('meta');

/** The policy sent as a `Content-Security-Policy` header (serve mode, the Electron session). */
export const CONTENT_SECURITY_POLICY_HEADER = buildContentSecurityPolicy('header');
