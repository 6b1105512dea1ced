/**
 * Whether a URL may stand for a pull request: `https:` with a host, nothing else. Verdict lines and
 * deliver records are written by an agent; a `javascript:`, `file:` or `data:` "URL" taken as a PR
 * would be a link in the console and a Pushover message, so anything but https is a problem instead.
 */
export function isPrUrl(url: string): boolean {
  if (!url.toLowerCase().startsWith('https://')) return false;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && u.hostname !== '';
  } catch {
    return false;
  }
}
