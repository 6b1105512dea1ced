// Putting text someone else wrote (ledgers, transcripts, proxies) into Markdown without it turning into markup.

import { escapeUnsafe, hasUnsafe } from './unsafe-text';

// Characters that start inline markup in CommonMark/GFM; a backslash makes each literal.
const INLINE_SPECIAL = /[\\`*_[\]<>|~&#!]/g;

/**
 * A GitHub @-mention (`@user`, `@org/team`): an `@` at the start or after a character that is not
 * ASCII `[A-Za-z0-9_]` (GitHub's own test), then a name. `a@b.com` is not one and is left alone.
 */
const MENTION = /(?<![A-Za-z0-9_])@[A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][A-Za-z0-9_-]*)?/g;

/** Line breaks and the blanks around them, and tabs: one space (whitespace is whitespace in inline Markdown). */
function flatten(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/\t/g, ' ');
}

/**
 * Free text as literal inline Markdown: line breaks folded to spaces, so one item stays one line;
 * each unsafe character (shared/unsafe-text: controls, bidi overrides) shown as text (`\u202e`);
 * specials escaped; and each @-mention put in a code span, so pasted into a GitHub comment it
 * neither reverses the text around it nor pings a person or a team. A code span, because GitHub
 * looks for mentions in the rendered text outside code: `\@` and `&#64;` both render as an `@` it
 * then finds, and a zero-width joiner would hide that the text was changed; `` `@org/team` `` reads
 * as written and cannot ping.
 */
export function escapeMarkdown(text: string): string {
  const safe = escapeUnsafe(flatten(text));
  const escape = (s: string): string => s.replace(INLINE_SPECIAL, (c) => `\\${c}`);
  let out = '';
  let at = 0;
  for (const m of safe.matchAll(MENTION)) {
    out += `${escape(safe.slice(at, m.index))}\`${m[0]}\``;
    at = m.index + m[0].length;
  }
  return out + escape(safe.slice(at));
}

/** Text as an inline code span, with a fence longer than any backtick run inside it (CommonMark §6.1); unsafe characters shown as text. */
export function codeSpan(text: string): string {
  const flat = escapeUnsafe(text.replace(/[\r\n]+/g, ' ').replace(/\t/g, ' '));
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || /^ .* $/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * A URL as a bare GFM autolink: whitespace and angle brackets percent-encoded so it stays one link
 * (never backslashed), and unsafe characters (a U+202E) percent-encoded too, which shows them.
 */
export function markdownUrl(url: string): string {
  return Array.from(url, (c) => (/[\s<>]/.test(c) || hasUnsafe(c) ? encodeURIComponent(c) : c)).join('');
}
