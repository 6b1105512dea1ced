// A browser-like cookie jar for plain-Node HTTP tests (fetch with `redirect: 'manual'`): the
// sign-in tests carry the OpenID Provider's cookies through its pages and then the console's own
// session cookie, without a browser.
//
// Usage:
//   const jar = new CookieJar();
//   const res = await jar.fetch(`${consoleUrl}/auth/login`);   // sends matching cookies, keeps Set-Cookie
//   jar.get('loopdeck_session', consoleUrl);                    // a cookie's value, or undefined
//   await jar.fetch(`${consoleUrl}/`, { headers: { origin: consoleUrl } });
//
// As a browser does: cookies belong to a host, not a host:port (so an OP on 127.0.0.1:A and the
// console on 127.0.0.1:B see each other's cookies; the test OP names its cookies `op_*` so they
// do not collide), Path and Domain are honoured, Max-Age/Expires end a cookie, and a Secure
// cookie is sent only over https or to a loopback host (as Chromium treats localhost/127.0.0.1).

/** One cookie as the jar keeps it. */
export interface StoredCookie {
  readonly name: string;
  readonly value: string;
  /** The host it was set by (host-only) or its Domain attribute, lower-case, no leading dot. */
  readonly domain: string;
  readonly hostOnly: boolean;
  readonly path: string;
  readonly secure: boolean;
  readonly httpOnly: boolean;
  readonly sameSite?: string;
  /** Epoch ms it expires at; undefined for a session cookie. */
  readonly expiresAt?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The default Path of a cookie set by `pathname` (RFC 6265 5.1.4): its directory. */
function defaultPath(pathname: string): string {
  if (!pathname.startsWith('/')) return '/';
  const last = pathname.lastIndexOf('/');
  return last <= 0 ? '/' : pathname.slice(0, last);
}

/** Whether a request to `pathname` may carry a cookie with path `cookiePath` (RFC 6265 5.1.4). */
function pathMatches(pathname: string, cookiePath: string): boolean {
  if (pathname === cookiePath) return true;
  if (!pathname.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || pathname[cookiePath.length] === '/';
}

/** Whether `host` is `domain` or a subdomain of it (IP addresses only match exactly). */
function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  if (/^[\d.]+$/.test(host) || host.includes(':')) return false;
  return host.endsWith(`.${domain}`);
}

/** Parse one Set-Cookie line as sent by `url`; null for one a browser would refuse. */
export function parseSetCookie(line: string, url: URL, now = Date.now()): StoredCookie | null {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return null;
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  const host = url.hostname.toLowerCase();
  let domain = host;
  let hostOnly = true;
  let path = defaultPath(url.pathname);
  let secure = false;
  let httpOnly = false;
  let sameSite: string | undefined;
  let expiresAt: number | undefined;
  let maxAgeSeen = false;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const val = i < 0 ? '' : attr.slice(i + 1).trim();
    if (key === 'domain' && val) {
      const d = val.replace(/^\./, '').toLowerCase();
      if (!domainMatches(host, d)) return null;
      domain = d;
      hostOnly = false;
    } else if (key === 'path' && val.startsWith('/')) path = val;
    else if (key === 'secure') secure = true;
    else if (key === 'httponly') httpOnly = true;
    else if (key === 'samesite') sameSite = val.toLowerCase();
    else if (key === 'max-age' && /^-?\d+$/.test(val)) {
      maxAgeSeen = true;
      expiresAt = now + Number(val) * 1000;
    } else if (key === 'expires' && !maxAgeSeen) {
      const t = Date.parse(val);
      if (Number.isFinite(t)) expiresAt = t;
    }
  }
  return { name, value, domain, hostOnly, path, secure, httpOnly, ...(sameSite ? { sameSite } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

/** Cookies by the browser's rules, fed by responses and read into requests. */
export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  /** Keep (or, when expired, drop) the cookies of `setCookie` lines sent by `url`. */
  store(url: string | URL, setCookie: readonly string[], now = Date.now()): void {
    const u = new URL(url);
    for (const line of setCookie) {
      const c = parseSetCookie(line, u, now);
      if (!c) continue;
      const key = `${c.domain}\t${c.path}\t${c.name}`;
      if (c.expiresAt !== undefined && c.expiresAt <= now) this.#cookies.delete(key);
      else this.#cookies.set(key, c);
    }
  }

  /** Keep the Set-Cookie headers of a response to a request for `url`. */
  storeFrom(url: string | URL, res: Response): void {
    this.store(url, res.headers.getSetCookie());
  }

  /** The cookies a request to `url` carries, longest path first (as browsers order them). */
  matching(url: string | URL, now = Date.now()): StoredCookie[] {
    const u = new URL(url);
    const host = u.hostname.toLowerCase();
    const secureOk = u.protocol === 'https:' || LOOPBACK.has(host);
    return [...this.#cookies.values()]
      .filter((c) => (c.expiresAt === undefined || c.expiresAt > now) && (c.hostOnly ? host === c.domain : domainMatches(host, c.domain)))
      .filter((c) => pathMatches(u.pathname, c.path) && (!c.secure || secureOk))
      .sort((a, b) => b.path.length - a.path.length);
  }

  /** The Cookie header for a request to `url`, or '' when none applies. */
  header(url: string | URL): string {
    return this.matching(url).map((c) => `${c.name}=${c.value}`).join('; ');
  }

  /** The value of cookie `name` a request to `url` would carry (any URL when omitted). */
  get(name: string, url?: string | URL): string | undefined {
    const pool = url === undefined ? [...this.#cookies.values()] : this.matching(url);
    return pool.find((c) => c.name === name)?.value;
  }

  /** Every cookie kept, for a failing test's message. */
  all(): readonly StoredCookie[] {
    return [...this.#cookies.values()];
  }

  /** Forget `name` (everywhere), or everything. */
  clear(name?: string): void {
    for (const [key, c] of this.#cookies) if (name === undefined || c.name === name) this.#cookies.delete(key);
  }

  /**
   * fetch `url` with this jar's cookies (added to any Cookie header in `init`) and keep what it
   * sets; redirects are not followed unless `init.redirect` says so (the caller sees each 30x).
   */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = [headers.get('cookie'), this.header(url)].filter(Boolean).join('; ');
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { redirect: 'manual', ...init, headers });
    this.storeFrom(url, res);
    return res;
  }
}
