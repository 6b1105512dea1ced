import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PLACEHOLDER, parseAnsi, PLAIN_STYLE, stripEscapes, type TextSpan } from './transcript-text';

const shown = (spans: readonly TextSpan[]): string => spans.map((s) => s.text).join('');
const placeholders = (spans: readonly TextSpan[]): string[] => spans.filter((s) => s.placeholder).map((s) => s.text);

describe('parseAnsi', () => {
  it('applies SGR colours and attributes, and resets', () => {
    const { spans } = parseAnsi('a\x1b[1;31mred\x1b[0m \x1b[92;44mgreen\x1b[m end');
    expect(shown(spans)).toBe('ared green end');
    expect(spans.find((s) => s.text === 'red')?.style).toMatchObject({ bold: true, fg: { kind: 'palette', index: 1 } });
    expect(spans.find((s) => s.text === 'green')?.style).toMatchObject({ bold: false, fg: { kind: 'palette', index: 10 }, bg: { kind: 'palette', index: 4 } });
    expect(spans.at(-1)?.style).toEqual(PLAIN_STYLE);
  });

  it('reads 256-colour and 24-bit colours, dim, italic, underline, and the bright backgrounds', () => {
    const { spans } = parseAnsi('\x1b[38;5;208;48;2;10;20;30;2;3;4mx\x1b[22;23;24;39;105my');
    expect(spans[0]?.style).toEqual({ fg: { kind: 'palette', index: 208 }, bg: { kind: 'rgb', r: 10, g: 20, b: 30 }, bold: false, dim: true, italic: true, underline: true });
    expect(spans[1]?.style).toEqual({ ...PLAIN_STYLE, bg: { kind: 'palette', index: 13 } });
  });

  it('carries the style across lines through endStyle', () => {
    const first = parseAnsi('\x1b[33mstill');
    const second = parseAnsi('yellow', first.endStyle);
    expect(second.spans[0]?.style.fg).toEqual({ kind: 'palette', index: 3 });
  });

  it('shows every other escape sequence as a visible placeholder, never applied', () => {
    const { spans } = parseAnsi('a\x1b[?25lb\x1b[2Jc\x1b(Bd\x1b7e');
    expect(placeholders(spans)).toEqual(['␛[?25l', '␛[2J', '␛(B', '␛7']);
    expect(shown(spans)).toBe('a␛[?25lb␛[2Jc␛(Bd␛7e');
  });

  it('neutralises OSC ended by BEL or ST, and an OSC 8 hyperlink is text, not a link', () => {
    const { spans } = parseAnsi('x\x1b]8;;https://evil.example/\x07link\x1b]8;;\x1b\\y\x1b]0;title\x9cz');
    expect(placeholders(spans)).toEqual(['␛]8;;https://evil.example/␇', '␛]8;;␛\\', '␛]0;title␛\\']);
    expect(shown(spans)).toContain('link');
  });

  it('handles unterminated sequences to the end of the line', () => {
    expect(placeholders(parseAnsi('a\x1b[12;3').spans)).toEqual(['␛[12;3']);
    expect(placeholders(parseAnsi('a\x1b]0;no end').spans)).toEqual(['␛]0;no end']);
    expect(placeholders(parseAnsi('a\x1b').spans)).toEqual(['␛']);
    expect(placeholders(parseAnsi('a\x1bPdcs').spans)).toEqual(['␛Pdcs']);
  });

  it('treats 8-bit C1 controls as the sequences they introduce', () => {
    const { spans } = parseAnsi('a\x9b31mb\x9b?1049hc\x85d');
    // 8-bit SGR is applied like the 7-bit one; other CSI and lone C1 controls are placeholders.
    expect(spans.find((s) => s.text.startsWith('b'))?.style.fg).toEqual({ kind: 'palette', index: 1 });
    expect(placeholders(spans)).toEqual(['␛[?1049h', '␛E']);
  });

  it('pictures C0 controls and NUL, and shows bidi overrides as code points', () => {
    const { spans } = parseAnsi('a\x00b\x07c\rd\x7fe\u202ef');
    expect(shown(spans)).toBe('a␀b␇c␍d␡e<U+202E>f');
    const all = parseAnsi('e\u202ef').spans;
    expect(placeholders(all)).toEqual(['<U+202E>']);
  });

  it('expands tabs to 8-column stops, counting what is shown', () => {
    expect(shown(parseAnsi('a\tb').spans)).toBe('a       b');
    expect(shown(parseAnsi('\x1b[31m12345678\x1b[0m\tx').spans)).toBe('12345678        x');
    expect(shown(parseAnsi('\x00\tx').spans)).toBe('␀       x');
  });

  it('bounds a huge parameter list and a huge placeholder', () => {
    const params = Array.from({ length: 100_000 }, () => '1').join(';');
    const t0 = Date.now();
    const { spans } = parseAnsi(`\x1b[${params}mbold`);
    expect(Date.now() - t0).toBeLessThan(500);
    expect(spans[0]?.style.bold).toBe(true);
    const long = parseAnsi(`\x1b]${'x'.repeat(100_000)}\x07`).spans;
    expect(long[0]?.text.length).toBeLessThanOrEqual(MAX_PLACEHOLDER + 1);
  });

  it('never throws and never lets a raw control character through, on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('\x1b', '[', ']', '\x07', '\x9b', '\x9c', '\\', ';', '3', '1', 'm', 'a', '\t', '\x00', '\u202e', 'P') }), (s) => {
        const { spans } = parseAnsi(s);
        // eslint-disable-next-line no-control-regex -- the point
        expect(shown(spans)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
        // eslint-disable-next-line no-control-regex -- the point
        expect(stripEscapes(s)).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202e]/);
      }),
    );
  });
});

describe('stripEscapes', () => {
  it('removes escape sequences, keeps text and tabs, and pictures stray controls', () => {
    expect(stripEscapes('\x1b[1;31mError:\x1b[0m\tbad \x1b]8;;https://x\x07link\x1b]8;;\x07 \x9b2J\x00')).toBe('Error:\tbad link ␀');
    expect(stripEscapes('plain text')).toBe('plain text');
    expect(stripEscapes('cut \x1b[31')).toBe('cut ');
  });
});
