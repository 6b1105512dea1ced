// Where a link goes, one rule for the renderer (notices, verdicts, PRs) and the desktop shell (a
// clicked notification). Links come from transcripts and ledgers an agent wrote, so only plain
// https links are offered outside, and a console link is only ever a `#/…` view.

// shared/ compiles without DOM or Node types; both give a WHATWG URL with these fields.
declare const URL: new (text: string) => { readonly protocol: string; readonly hostname: string; readonly username: string; readonly password: string; readonly href: string };

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

/** Where a link goes: a console view, an https page outside, or nowhere usable. */
export type LinkTarget = { readonly kind: 'console'; readonly hash: string } | { readonly kind: 'external'; readonly url: string } | null;

/**
 * Classify a link. A console view is a bare `#/…` hash, or the console's own URL with one (a
 * notice made in serve mode carries `http://127.0.0.1:PORT/#/…`; behind https, pass the page's
 * origin as `consoleOrigin`); any other https URL opens outside; anything else is not a link.
 */
export function linkTarget(url: string | null, consoleOrigin?: string): LinkTarget {
  if (!url) return null;
  const text = url.trim();
  if (text.startsWith('#/')) return { kind: 'console', hash: text };
  const hashAt = text.indexOf('#/');
  const own = /^http:\/\//i.test(text) || (consoleOrigin !== undefined && consoleOrigin !== '' && text.startsWith(`${consoleOrigin}/`));
  if (own && hashAt >= 0) return { kind: 'console', hash: text.slice(hashAt) };
  const ext = externalHttpsUrl(text);
  return ext ? { kind: 'external', url: ext } : null;
}

/** The console view a link names, or null (a clicked notification falls back to the Notices). */
export function consoleHash(url: string | null): string | null {
  const target = linkTarget(url);
  return target?.kind === 'console' ? target.hash : null;
}

/**
 * The console's link to a phase's transcript, at a line (1-based) or on its last screen: made by
 * main (notices) and the renderer (the route), parsed by the renderer's route.
 */
export function transcriptHash(ref: { readonly loop: string; readonly date: string; readonly phase: string }, line: number | null = null): string {
  const base = `#/loops/${[ref.loop, ref.date, ref.phase].map(encodeURIComponent).join('/')}/log`;
  return line === null ? base : `${base}?line=${line}`;
}

/**
 * The console's link to a finding (or the finding a backlog item covers): by loop and id, since two
 * loops can use the same id. `loop` null is an old bare-id link (`#/findings/R-012`): the first
 * finding with that id.
 */
export function findingHash(ref: { readonly loop: string | null; readonly id: string }): string {
  return `#/findings/${[...(ref.loop === null ? [] : [ref.loop]), ref.id].map(encodeURIComponent).join('/')}`;
}

/** The console's place for a host Loopdeck reads (its state, key and errors). */
export function hostHash(name: string): string {
  return `#/hosts/${encodeURIComponent(name)}`;
}

/** The console's place for the inference fleet. */
export const FLEET_HASH = '#/capacity';
