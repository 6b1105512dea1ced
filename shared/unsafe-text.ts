/**
 * Characters that must not reach a screen, a terminal or a log as they are, wherever the text came
 * from (a file name on a runner, a Prometheus label, a page's error, a transcript line): every C0
 * control, DEL, every C1 control (U+009B is CSI to many terminals), the bidi marks, embeddings,
 * overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what
 * a person reads, and the Unicode line and paragraph separators (U+2028, U+2029), which some
 * viewers break lines at. One rule for main and the renderer.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The same without LF and CR, for text whose line breaks are handled apart (a log entry's).
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_BUT_BREAKS = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE = new RegExp(UNSAFE_ALL.source);

/** Whether a code point is one of the unsafe characters. */
export function isUnsafeCodePoint(cp: number): boolean {
  return UNSAFE_ONE.test(String.fromCodePoint(cp));
}

/** Whether text holds an unsafe character. */
export function hasUnsafe(text: string): boolean {
  return UNSAFE_ONE.test(text);
}

/**
 * One unsafe character as visible text: `\xNN` below U+0080 (`\x1b`, `\x0a`), else `\uNNNN`
 * (`\u009b`, `\u202e`). A `\x` escape is never a character past ASCII, so where raw bytes are
 * escaped as `\xNN` too (file names that are not UTF-8) the two cannot be confused.
 */
export function escapeUnsafeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return cp < 0x80 ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Text with every unsafe character escaped (escapeUnsafeChar); `keepBreaks` leaves LF and CR for the caller. */
export function escapeUnsafe(text: string, options: { readonly keepBreaks?: boolean } = {}): string {
  return text.replace(options.keepBreaks ? UNSAFE_BUT_BREAKS : UNSAFE_ALL, escapeUnsafeChar);
}
