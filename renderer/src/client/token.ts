/** The sessionStorage key the serve-mode token is remembered under. */
export const TOKEN_STORAGE_KEY = 'loopdeck.token';

/** The slice of `Storage` the token lookup needs (so tests can pass a plain object). */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The page's sessionStorage, or null where the browser refuses it (privacy modes, sandboxed frames). */
export function browserSessionStorage(): TokenStorage | null {
  try {
    return (globalThis as { sessionStorage?: TokenStorage }).sessionStorage ?? null;
  } catch {
    return null;
  }
}

/**
 * The serve-mode token: `?token=` from the page URL (remembered in sessionStorage so a reload
 * without the query still works), else the remembered one, else null.
 */
export function resolveToken(search: string, storage: TokenStorage | null): string | null {
  const fromUrl = new URLSearchParams(search).get('token');
  if (fromUrl) {
    try {
      storage?.setItem(TOKEN_STORAGE_KEY, fromUrl);
    } catch {
      // Storage can be disabled (privacy modes); the URL token still works for this load.
    }
    return fromUrl;
  }
  try {
    return storage?.getItem(TOKEN_STORAGE_KEY) || null;
  } catch {
    return null;
  }
}

/** The WebSocket URL of the serve-mode server that served this page. */
export function wsUrl(loc: { protocol: string; host: string }, token: string | null): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${loc.host}/ws?token=${encodeURIComponent(token ?? '')}`;
}

/** Whether `token` is the one remembered in storage (so the URL no longer needs to carry it). */
export function isRemembered(storage: TokenStorage | null, token: string): boolean {
  try {
    return storage?.getItem(TOKEN_STORAGE_KEY) === token;
  } catch {
    return false;
  }
}

/**
 * The page URL (path, query, hash) without its `token` query parameter, for `history.replaceState`;
 * null when there is no token to remove. Other parameters are kept verbatim, in order.
 */
export function urlWithoutToken(loc: { pathname: string; search: string; hash: string }): string | null {
  const query = loc.search.startsWith('?') ? loc.search.slice(1) : loc.search;
  if (!query) return null;
  const parts = query.split('&');
  const kept = parts.filter((part) => {
    const key = part.split('=', 1)[0] ?? '';
    try {
      return decodeURIComponent(key.replace(/\+/g, ' ')) !== 'token';
    } catch {
      return true;
    }
  });
  if (kept.length === parts.length) return null;
  const rest = kept.filter((part) => part !== '');
  return `${loc.pathname}${rest.length > 0 ? `?${rest.join('&')}` : ''}${loc.hash}`;
}
