import { describe, expect, it } from 'vitest';
import { MarkedStream } from './shell-session';

const MARKER = `LD${'ab'.repeat(16)}`;

describe('MarkedStream', () => {
  it('finds the marker line however the bytes are cut into chunks', () => {
    const body = Buffer.from('line one\nline two\n\x00\xff binary tail');
    const wire = Buffer.concat([body, Buffer.from(`\n${MARKER} 7\n`), Buffer.from('next request')]);
    for (let a = 1; a < wire.length; a++) {
      for (const b of [a + 1, a + 5, wire.length]) {
        const s = new MarkedStream();
        const cuts = [wire.subarray(0, a), wire.subarray(a, Math.min(b, wire.length)), wire.subarray(Math.min(b, wire.length))];
        let got: { body: Buffer; rest: string } | null = null;
        for (const c of cuts) {
          s.push(c);
          got ??= s.take(MARKER);
        }
        expect(got, `cut at ${a}/${b}`).not.toBeNull();
        expect(got?.body.equals(body)).toBe(true);
        expect(got?.rest).toBe(' 7');
        // What came after the marker line stays for the next request.
        s.push(Buffer.from(`\n${MARKER} 0\n`));
        expect(s.take(MARKER)?.body.toString()).toBe('next request');
      }
    }
  });

  it('takes a large output arriving in many small chunks whole', () => {
    const s = new MarkedStream();
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    for (let i = 0; i < 2048; i++) {
      s.push(chunk);
      expect(s.take(MARKER)).toBeNull();
    }
    s.push(Buffer.from(`\n${MARKER} 0\n`));
    const got = s.take(MARKER);
    expect(got?.body.length).toBe(2048 * 16 * 1024);
    expect(got?.body.every((b) => b === 0x61)).toBe(true);
  });

  it('does not end a request at another marker', () => {
    const s = new MarkedStream();
    s.push(Buffer.from(`x\nLD${'cd'.repeat(16)} 0\ny`));
    expect(s.take(MARKER)).toBeNull();
    s.push(Buffer.from(`\n${MARKER} 1\n`));
    expect(s.take(MARKER)?.body.toString()).toBe(`x\nLD${'cd'.repeat(16)} 0\ny`);
  });
});
