/**
 * How much of a fleet answer Loopdeck keeps. Every figure here bounds memory, CPU per poll and
 * rows stored per poll, whatever a proxy (or something squatting on its port) answers. A proxy
 * over a limit is still shown, cut to the limit, with its error saying what was cut.
 */

/** Backends kept per proxy: a crossbar fronts a handful to a few dozen GPUs; 256 is ample. */
export const MAX_HOSTS_PER_PROXY = 256;
/** Models kept per backend (a router-mode llama.cpp lists a few). */
export const MAX_MODELS_PER_HOST = 64;
/** Entries of a llama.cpp `/slots` array counted (`--parallel` is rarely past 64). */
export const MAX_SLOTS_PER_HOST = 1024;
/** Usage rows kept per poll, the newest first; the rest are dropped (they are usually old). */
export const MAX_USAGE_ROWS_PER_POLL = 5000;
/** Characters kept of a name a proxy sends (hosts, models, routes, statuses). */
export const MAX_TEXT = 256;
/** Characters kept of an error text a proxy sends. */
export const MAX_ERROR_TEXT = 1024;
/** Distinct error statuses kept per sample; the rest are summed under `other`. */
export const MAX_ERROR_STATUSES = 32;
/**
 * Nesting depth of a JSON answer accepted. Admin answers are at most about five deep
 * (`{hosts: [{models: {id: {…}}}]}`); a deep one is refused before `JSON.parse` sees it.
 */
export const MAX_JSON_DEPTH = 32;

/** At most MAX_ERROR_STATUSES statuses, the largest; the rest summed under `other` (stored with every sample and bucket). */
export function boundErrors<T extends Record<string, number> | null>(errors: T): T {
  if (errors === null) return errors;
  const entries = Object.entries(errors);
  if (entries.length <= MAX_ERROR_STATUSES) return errors;
  entries.sort((a, b) => b[1] - a[1]);
  const kept: Record<string, number> = Object.fromEntries(entries.slice(0, MAX_ERROR_STATUSES - 1));
  kept.other = (kept.other ?? 0) + entries.slice(MAX_ERROR_STATUSES - 1).reduce((a, [, v]) => a + v, 0);
  return kept as T;
}

/** `proxy "xb" (config proxies.xb)`: how a cut is named, so the operator knows where to look. */
export function proxyKey(proxy: string): string {
  return `proxy "${proxy}" (config proxies.${proxy})`;
}

/** Text cut to `max` characters, marked when cut. */
export function clip(text: string, max = MAX_TEXT): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The deepest nesting of `[` and `{` outside strings, stopping as soon as it passes `limit`.
 * One linear pass with no allocation: cheap enough to run before every `JSON.parse`.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Parse JSON no deeper than MAX_JSON_DEPTH; throws a plain Error saying which rule it broke. */
export function parseJsonBounded(text: string): unknown {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels (refused unparsed; an admin API answers a few levels deep)`);
  return JSON.parse(text) as unknown;
}
