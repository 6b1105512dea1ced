import { escapeUnsafe } from '../../../shared/unsafe-text';

/** Pushover's message limit, which a notice's message also keeps to. */
export const MESSAGE_MAX = 1024;
/** Titles stay short: they are what a lock screen shows. */
export const TITLE_MAX = 100;
/** Pushover's limit for a link, which the push sinks keep to: a longer one is left out (a cut link leads nowhere). */
export const URL_MAX = 512;

/**
 * A one-line field of a notice (title, key, source, link) as every sink gets it: each unsafe
 * character (shared/unsafe-text: ESC, BEL, C1, bidi marks and overrides …) shown as text (`\x1b`,
 * `\u202e`). A notice's text comes from the runner's files (a `.status` detail line, a ledger
 * cell), and receivers print it: a raw OSC 52 would write a terminal's clipboard, a U+202E reorder
 * what the operator reads. Escaped, not dropped, so the operator sees something odd was there.
 */
export function noticeLine(text: string): string {
  return escapeUnsafe(text);
}

/**
 * A notice's message, as noticeLine but with its line breaks kept (Pushover, a desktop
 * notification and a webhook show a multi-line message as such), each as LF: a lone CR would let
 * a terminal printing it overwrite the line.
 */
export function noticeBody(text: string): string {
  return escapeUnsafe(text.replace(/\r\n?/g, '\n'), { keepBreaks: true });
}

/** `text` cut to `max` characters, ending with an ellipsis when cut (never splitting a surrogate pair). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A deep link into the console (`<consoleUrl>#/loops/x`), or null when no console URL is known. */
export function consoleLink(consoleUrl: string | undefined, hash: string): string | null {
  if (!consoleUrl) return null;
  const base = consoleUrl.replace(/#.*$/, '');
  return `${base}${hash}`;
}

/** A duration for a person: `6 min`, `2 h 5 min`, `40 s`. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
}
