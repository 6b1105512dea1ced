import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFigure, MAX_PROM_REQUESTS, quoteLabel, refusedLabel, refusedText, unsafeLabel } from './prom-checks';

/** The characters refused in a name, listed by hand from the rule (not from the code under test). */
const REFUSED = [
  ...Array.from({ length: 0x20 }, (_, c) => c),
  ...Array.from({ length: 0x21 }, (_, k) => 0x7f + k),
  0x061c,
  0x200e,
  0x200f,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
];

describe('unsafeLabel', () => {
  it('refuses every control character (C0, DEL, C1) and every bidi mark, embedding, override and isolate', () => {
    for (const c of REFUSED) expect([c, unsafeLabel(`gpu${String.fromCodePoint(c)}a`)]).toEqual([c, true]);
  });

  it.each(['gpu-a:8080', '10.0.0.7:8080', '[::1]:9090', 'ünïcödé-host', 'モデル', 'qwen3-32b/Q4_K_M', 'a"b\\c', 'مرحبا', '😀'])('accepts %j', (name) => {
    expect(unsafeLabel(name)).toBe(false);
  });
});

describe('quoteLabel', () => {
  it.each([
    ['gpu\x1b[31m', '"gpu\\x1b[31m"'],
    ['nul\x00x', '"nul\\x00x"'],
    ['two\nlines', '"two\\x0alines"'],
    ['tab\there', '"tab\\x09here"'],
    ['del\x7f', '"del\\x7f"'],
    ['c1\u0085', '"c1\\u0085"'],
    ['evil\u202etxt', '"evil\\u202etxt"'],
    ['iso\u2066x\u2069', '"iso\\u2066x\\u2069"'],
    ['say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'],
    ['ünïcödé', '"ünïcödé"'],
  ])('%j as %s', (value, quoted) => {
    expect(quoteLabel(value)).toBe(quoted);
  });

  it('never lets a refused character through, and is the value itself when nothing needs escaping', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        const quoted = quoteLabel(s);
        expect(unsafeLabel(quoted)).toBe(false);
        if (!unsafeLabel(s) && !/["\\]/.test(s)) expect(quoted).toBe(`"${s}"`);
      }),
    );
  });

  it('cuts a long value before escaping it', () => {
    expect(quoteLabel('x'.repeat(10_000)).length).toBeLessThan(300);
  });
});

describe('refusedLabel and refusedText', () => {
  it('names the first unsafe instance or model label, escaped', () => {
    expect(refusedLabel({ instance: 'gpu-a:8080', model: 'qwen3' })).toBeNull();
    expect(refusedLabel({ instance: 'gpu\x1b[31m', model: 'x\u202e' })).toBe('instance "gpu\\x1b[31m"');
    expect(refusedLabel({ instance: 'gpu-a', model: 'x\u202e' })).toBe('model "x\\u202e"');
    // Other labels are not shown as names, so they do not matter here.
    expect(refusedLabel({ instance: 'gpu-a', job: 'j\x1b' })).toBeNull();
  });

  it('names at most five and counts the rest', () => {
    const names = Array.from({ length: 8 }, (_, i) => `instance "h${i}\\x1b"`);
    expect(refusedText(names)).toBe(`left out 8 series whose labels hold a control or bidi character (refused as names): ${names.slice(0, 5).join(', ')}, and 3 more`);
    expect(refusedText(names.slice(0, 1))).toBe(`left out 1 series whose labels hold a control or bidi character (refused as names): ${names[0]}`);
  });
});

describe('checkFigure', () => {
  it.each([
    ['0', 0],
    ['3', 3],
    ['2.5', 2.5],
    ['1e+05', 100_000],
  ])('%s is %d', (raw, value) => {
    expect(checkFigure(raw, MAX_PROM_REQUESTS)).toEqual({ ok: true, value });
  });

  it.each([
    ['NaN', 'NaN is not a number'],
    ['+Inf', '+Inf is not finite'],
    ['-Inf', '-Inf is not finite'],
    ['-3', '-3 is negative'],
    ['1e+308', '1e+308 is past 100000'],
    ['100001', '100001 is past 100000'],
    ['', ' is not a number'],
  ])('%j is refused: %s', (raw, why) => {
    expect(checkFigure(raw, MAX_PROM_REQUESTS)).toEqual({ ok: false, why });
  });
});
