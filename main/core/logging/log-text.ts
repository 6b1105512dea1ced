import { inspect } from 'node:util';
import { escapeUnsafe } from '../../../shared/unsafe-text';

/** How a continuation line of an entry is indented: no text of an entry can pass for a line of its own. */
export const CONTINUATION_INDENT = '    ';

const LINE_BREAK = /\r\n?|\n/g;

/**
 * Text as it may be written into the log or a terminal: each unsafe character (shared/unsafe-text:
 * ESC, NUL, C1, bidi overrides …) as visible text (`\x1b`, `\u202e`), and each line break (LF, CR, CRLF) as a
 * newline followed by CONTINUATION_INDENT. A hostile name or a page's error message can then
 * neither drive the terminal, reorder what is shown, nor pass for a log line of its own, while a
 * stack stays one frame a line.
 */
export function logSafe(text: string): string {
  return escapeUnsafe(text, { keepBreaks: true }).replace(LINE_BREAK, `\n${CONTINUATION_INDENT}`);
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
