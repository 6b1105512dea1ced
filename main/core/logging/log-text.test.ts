import { describe, expect, it } from 'vitest';
import { formatEntry, logSafe } from './log-text';

describe('logSafe', () => {
  it.each([
    ['ESC (a screen clear)', 'a\x1b[2Jb', 'a\\x1b[2Jb'],
    ['NUL', 'a\x00b', 'a\\x00b'],
    ['BEL and a tab', '\x07\t', '\\x07\\x09'],
    ['DEL', 'a\x7fb', 'a\\x7fb'],
    ['C1 CSI', 'a\u009b31mb', 'a\\u009b31mb'],
    ['C1 NEL', 'a\u0085b', 'a\\u0085b'],
    ['a right-to-left override', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['the other bidi controls', '\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061C', '\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c'],
    ['the Unicode line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
  ])('writes %s as visible text', (_what, input, output) => {
    expect(logSafe(input)).toBe(output);
  });

  it('indents every line after the first, whatever breaks it (LF, CR, CRLF)', () => {
    expect(logSafe('one\ntwo\rthree\r\nfour')).toBe('one\n    two\n    three\n    four');
  });

  it('leaves printable text alone, non-ASCII included', () => {
    const text = 'Rückblick — 東京 → C:\\logs\\x1b is text, 🙂';
    expect(logSafe(text)).toBe(text);
  });

  it('keeps a stack one frame a line, below the message', () => {
    const err = new Error('bad \x1b[31mred\x1b[0m name');
    const text = formatEntry('poll failed', err);
    const lines = text.split('\n');
    expect(lines[0]).toBe('poll failed');
    expect(lines[1]).toBe('    Error: bad \\x1b[31mred\\x1b[0m name');
    expect(lines.slice(2).every((l) => l.startsWith('        at '))).toBe(true);
  });
});
