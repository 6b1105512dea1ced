import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeUnsafe, hasUnsafe, isUnsafeCodePoint } from './unsafe-text';

describe('unsafe text', () => {
  it.each([
    [0x00, true], [0x09, true], [0x0a, true], [0x1b, true], [0x1f, true], [0x20, false], [0x7e, false], [0x7f, true],
    [0x80, true], [0x9b, true], [0x9f, true], [0xa0, false], [0xe9, false], [0x061c, true], [0x200d, false], [0x200e, true],
    [0x200f, true], [0x2028, true], [0x2029, true], [0x202a, true], [0x202e, true], [0x202f, false], [0x2066, true], [0x2069, true],
    [0x206a, false], [0xfeff, false], [0x1f600, false],
  ])('U+%s is unsafe: %s', (cp, unsafe) => {
    expect(isUnsafeCodePoint(cp)).toBe(unsafe);
    expect(hasUnsafe(`a${String.fromCodePoint(cp)}b`)).toBe(unsafe);
  });

  it('escapes each as visible text, \\x below U+0080 and \\u above, and can leave line breaks to the caller', () => {
    expect(escapeUnsafe('a\u001b[2Jb\u0000c\u009bd\u202ee\nf\rg')).toBe('a\\x1b[2Jb\\x00c\\u009bd\\u202ee\\x0af\\x0dg');
    expect(escapeUnsafe('a\nb\r\nc\td', { keepBreaks: true })).toBe('a\nb\r\nc\\x09d');
  });

  it('leaves nothing unsafe in what it returns', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
      expect(hasUnsafe(escapeUnsafe(s))).toBe(false);
    }));
  });
});
