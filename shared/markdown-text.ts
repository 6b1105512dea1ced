// Putting text someone else wrote (ledgers, transcripts, proxies) into Markdown without it turning into markup.

// Characters that start inline markup in CommonMark/GFM; a backslash makes each literal.
const INLINE_SPECIAL = /[\\`*_[\]<>|~&#!]/g;

/** Free text as literal inline Markdown: specials escaped, line breaks folded to spaces, so one item stays one line. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(INLINE_SPECIAL, (c) => `\\${c}`);
}

/** Text as an inline code span, with a fence longer than any backtick run inside it (CommonMark §6.1). */
export function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || /^ .* $/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A URL as a bare GFM autolink: whitespace and angle brackets percent-encoded so it stays one link (never backslashed). */
export function markdownUrl(url: string): string {
  return url.replace(/[\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
