/** The sessionStorage key the serve-mode token is remembered under. */
export const TOKEN_STORAGE_KEY = 'loopdeck.token';

/** The slice of `Storage` the token lookup needs (so tests can pass a plain object). */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
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
