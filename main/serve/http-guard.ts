import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Name of the cookie that carries the token after the first authenticated page load. */
export const TOKEN_COOKIE = 'loopdeck_token';

/** Why a request was refused, with the status to answer. */
export interface Refusal {
  readonly status: 400 | 401 | 403;
  readonly message: string;
}

function safeEqual(a: string, b: string): boolean {
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
 * Every value of the token cookie, decoded; `null` stands for one that does not decode. A page on
 * another 127.0.0.1 port can set a cookie of the same name (cookies ignore ports), so all count.
 */
function cookieTokens(req: IncomingMessage): (string | null)[] {
  const header = req.headers.cookie;
  if (!header) return [];
  const found: (string | null)[] = [];
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === TOKEN_COOKIE) found.push(decodeOrNull(v.join('=')));
  }
  return found;
}

/**
 * Checks a request against serve mode's rules: the Host header names the address we bound (so a
 * DNS-rebinding page cannot reach us), any Origin is our own, and the per-run token is present in
 * the query or the cookie set on first load.
 */
export class HttpGuard {
  constructor(
    private readonly token: string,
    private readonly allowedHosts: readonly string[],
  ) {}

  /** Where the token was presented, or a refusal. */
  check(req: IncomingMessage, url: URL): { via: 'query' | 'cookie' } | Refusal {
    const host = req.headers.host ?? '';
    if (!this.allowedHosts.includes(host)) {
      return { status: 403, message: `Loopdeck refuses requests for host ${JSON.stringify(host)}; open the URL that \`loopdeck serve\` printed.` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedHosts.some((h) => origin === `http://${h}`)) {
      return { status: 403, message: `Loopdeck refuses requests from origin ${JSON.stringify(origin)}.` };
    }
    const query = url.searchParams.get('token');
    if (query !== null && safeEqual(query, this.token)) return { via: 'query' };
    const cookies = cookieTokens(req);
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
