// Verdict URLs come from transcripts an agent wrote, so only plain https links are offered (the rule: shared/links.ts).

export { externalHttpsUrl } from '../../../shared/links';

/** Open a URL outside the app: Electron's window-open handler sends https to the system browser. */
export function openExternal(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}
