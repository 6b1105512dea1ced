import type { PrRef } from './github-api';

/**
 * The web host of a GitHub API: `api.github.com` → `github.com`, `api.<sub>.ghe.com` →
 * `<sub>.ghe.com`, and GitHub Enterprise Server's `https://<host>/api/v3` → `<host>`. PR URLs on
 * any other host are not asked about (they are some other forge's, or another GitHub's).
 */
export function webHost(apiUrl: string): string {
  const host = new URL(apiUrl).hostname.toLowerCase();
  return host.startsWith('api.') ? host.slice(4) : host;
}

/** The repository and number of a PR URL on `host` (`https://<host>/<owner>/<repo>/pull/<n>`), else null. */
export function prRef(url: string, host: string): PrRef | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.hostname.toLowerCase() !== host) return null;
  const m = /^\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\/pull\/(\d+)\/?(?:files|commits|checks)?\/?$/.exec(u.pathname);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const number = Number(m[3]);
  return number > 0 && Number.isSafeInteger(number) ? { owner: m[1], repo: m[2], number } : null;
}
