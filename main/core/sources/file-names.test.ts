import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasUnsafe } from '../../../shared/unsafe-text';
import { escapeNameBytes, hostName, refusedNamesMessage } from './file-names';

describe('which names are followed', () => {
  it.each([
    ['audit.status', true],
    ['remediate.fé.rc', true],
    ['\ufeffBOM kept', true],
    ['tab\there', false],
    ['new\nline', false],
    ['esc\u001b[2J', false],
    ['del\u007f', false],
    ['c1\u0085', false],
    ['rlo\u202etxt.exe', false],
    ['lri\u2066x', false],
    ['lrm\u200ex', false],
  ])('%j: followed %s', (name, followed) => {
    const got = hostName(Buffer.from(name, 'utf8'));
    expect(got.kind).toBe(followed ? 'name' : 'refused');
    if (got.kind === 'name') expect(got.name).toBe(name);
  });

  it('refuses bytes that are not UTF-8 (they would decode lossily, and two names could collide)', () => {
    for (const bytes of [[0xff], [0x66, 0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      expect(hostName(Buffer.from(bytes)).kind).toBe('refused');
    }
  });

  it('never throws, and a followed name is exactly its bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), (raw) => {
        const bytes = Buffer.from(raw);
        const got = hostName(bytes);
        if (got.kind === 'name') expect(Buffer.from(got.name, 'utf8').equals(bytes)).toBe(true);
      }),
    );
  });
});

describe('a refused name, as a person reads it', () => {
  it('shows control characters, bidi marks and stray bytes as escapes, the rest as it is', () => {
    expect(escapeNameBytes(Buffer.from('audit.status\n~1|1|1|0|regular file|zz'))).toBe('audit.status\\x0a~1|1|1|0|regular file|zz');
    expect(escapeNameBytes(Buffer.from('a\u001b[31mb\u202ec\\é'))).toBe('a\\x1b[31mb\\u202ec\\\\é');
    expect(escapeNameBytes(Buffer.from([0x66, 0xff, 0xc2, 0x85, 0x85]))).toBe('f\\xff\\u0085\\x85');
  });

  it('holds no control character or bidi mark whatever the bytes, and tells two names apart', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 30 }), fc.uint8Array({ maxLength: 30 }), (a, b) => {
        // Also the pair a stray byte and its character once escaped alike: 0x85 and U+0085.
        if (a.length === 0) [a, b] = [Uint8Array.from([0x85]), Uint8Array.from([0xc2, 0x85])];
        const ea = escapeNameBytes(Buffer.from(a));
        expect(hasUnsafe(ea) || ea.includes('\ufffd')).toBe(false);
        if (!Buffer.from(a).equals(Buffer.from(b))) expect(ea).not.toBe(escapeNameBytes(Buffer.from(b)));
      }),
    );
  });

  it('names the folder and at most five names, and what to do', () => {
    const names = Array.from({ length: 7 }, (_, i) => Buffer.from(`bad\n${i}`));
    expect(refusedNamesMessage('runner', '/runs/2026-11-29', names)).toBe(
      'Host runner: /runs/2026-11-29 holds 7 names Loopdeck does not follow (control characters, bidi marks or bytes that are not UTF-8): ' +
        '"bad\\x0a0", "bad\\x0a1", "bad\\x0a2", "bad\\x0a3", "bad\\x0a4" and 2 more. Rename or remove them; nothing else in the folder is affected.',
    );
    expect(refusedNamesMessage('runner', '/runs', [Buffer.from('x\u001b')])).toContain('/runs holds a name Loopdeck does not follow');
  });
});
