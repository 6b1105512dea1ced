import { inspect } from 'node:util';

/** How a continuation line of an entry is indented: no text of an entry can pass for a line of its own. */
export const CONTINUATION_INDENT = '    ';

// Every C0 control but the line feed and the carriage return (line breaks, below), DEL, every C1
// control (U+009B is CSI to many terminals), the bidi marks, embeddings, overrides and isolates
// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and the Unicode line and paragraph
// separators, which some viewers break lines at.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const LINE_BREAK = /\r\n?|\n/g;

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text as it may be written into the log or a terminal: each control character (ESC, NUL, C1,
 * bidi overrides …) as visible text (`\x1b`, `\u202e`), and each line break (LF, CR, CRLF) as a
 * newline followed by CONTINUATION_INDENT. A hostile name or a page's error message can then
 * neither drive the terminal, reorder what is shown, nor pass for a log line of its own, while a
 * stack stays one frame a line.
 */
export function logSafe(text: string): string {
  return text.replace(UNSAFE, escapeChar).replace(LINE_BREAK, `\n${CONTINUATION_INDENT}`);
}

/** An error as text: its stack (which starts with its message), then each `cause` in turn. */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(current.stack ?? `${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(typeof current === 'string' ? current : inspect(current, { depth: 3, breakLength: Infinity }));
      current = undefined;
    }
  }
  return parts.join('\nCaused by: ');
}

/** The text of one entry, made safe (logSafe): the message, and the error below it, indented. */
export function formatEntry(message: string, err?: unknown): string {
  return logSafe(err === undefined ? message : `${message}\n${describeError(err)}`);
}
