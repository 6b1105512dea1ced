import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Name of the cookie that carries the token after the first authenticated page load. */
export const TOKEN_COOKIE = 'loopdeck_token';

/** Why a request was refused, with the status to answer. */
export interface Refusal {
  readonly status: 400 | 401 | 403 | 502;
  readonly message: string;
}

/** Whether `a` and `b` are the same secret, in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Decode %-escapes, or null when they are malformed (decodeURIComponent throws on those). */
export function decodeOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * Every value of cookie `name`, decoded; `null` stands for one that does not decode. A page on
 * another 127.0.0.1 port can set a cookie of the same name (cookies ignore ports), so all count.
 */
export function cookieValues(req: IncomingMessage, name: string): (string | null)[] {
  const header = req.headers.cookie;
  if (!header) return [];
  const found: (string | null)[] = [];
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) found.push(decodeOrNull(v.join('=')));
  }
  return found;
}

/**
 * Where a request may come from: the Host header names an address we answer on (so a
 * DNS-rebinding page cannot reach us), and any Origin is our own. A WebSocket upgrade that a
 * browser carries cookies or a proxy's sign-in on must name our Origin (browsers always send one):
 * without it, any page the user opens could open the console's socket with their sign-in.
 */
export class HostGuard {
  constructor(
    /** `host:port` values a request may name. */
    private readonly allowedHosts: readonly string[],
    /** Origins (`http://host:port`) a request may come from. */
    private readonly allowedOrigins: readonly string[],
  ) {}

  /** A refusal, or null. `needOrigin`: an upgrade authenticated by something the browser adds on its own. */
  check(req: IncomingMessage, needOrigin = false): Refusal | null {
    const host = req.headers.host ?? '';
    if (!this.allowedHosts.includes(host)) {
      return { status: 403, message: `Loopdeck refuses requests for host ${JSON.stringify(host)}; open the URL that \`loopdeck serve\` printed.` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.includes(origin)) {
      return { status: 403, message: `Loopdeck refuses requests from origin ${JSON.stringify(origin)}.` };
    }
    if (origin === undefined && needOrigin) {
      return { status: 403, message: 'Loopdeck refuses a WebSocket without an Origin when it is signed in by cookie or proxy header (cross-site request forgery).' };
    }
    return null;
  }
}

/** The per-run token's check: present in the query or the cookie set on first load. */
export class TokenCheck {
  constructor(private readonly token: string) {}

  /** Where the token was presented, or a refusal. */
  check(req: IncomingMessage, url: URL): { via: 'query' | 'cookie' } | Refusal {
    const query = url.searchParams.get('token');
    if (query !== null && safeEqual(query, this.token)) return { via: 'query' };
    const cookies = cookieValues(req, TOKEN_COOKIE);
    if (cookies.some((c) => c !== null && safeEqual(c, this.token))) return { via: 'cookie' };
    if (cookies.includes(null)) {
      return { status: 400, message: `Loopdeck cannot read the ${TOKEN_COOKIE} cookie (bad %-encoding): open the full URL that \`loopdeck serve\` printed.` };
    }
    return {
      status: 401,
      message: 'Loopdeck needs its access token: open the full URL (with ?token=…) that `loopdeck serve` printed.',
    };
  }

  /** The Set-Cookie header that lets the page's own asset and WebSocket requests carry the token. */
  cookie(): string {
    return `${TOKEN_COOKIE}=${encodeURIComponent(this.token)}; HttpOnly; SameSite=Strict; Path=/`;
  }
}
