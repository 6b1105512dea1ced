// Verdict URLs come from transcripts an agent wrote, so only plain https links are offered.

/** The URL normalised when it is an absolute `https:` URL (safe to hand to the system browser), else null. */
export function externalHttpsUrl(raw: string): string | null {
  const text = raw.trim();
  if (!/^https:\/\//i.test(text)) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '' ? url.href : null;
  } catch {
    return null;
  }
}

/** Open a URL outside the app: Electron's window-open handler sends https to the system browser. */
export function openExternal(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}
