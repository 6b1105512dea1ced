import { describe, expect, it } from 'vitest';
import { messageOf } from './errors';

describe('messageOf', () => {
  it("gives an Error's message, a subclass's too", () => {
    expect(messageOf(new Error('disk full'))).toBe('disk full');
    expect(messageOf(new TypeError('not a function'))).toBe('not a function');
    expect(messageOf(new Error(''))).toBe('');
  });

  it('gives a string as it is', () => {
    expect(messageOf('timed out')).toBe('timed out');
  });

  it('gives a plain object as JSON, and a cyclic one as String', () => {
    expect(messageOf({ code: 'EPIPE', errno: 32 })).toBe('{"code":"EPIPE","errno":32}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(messageOf(cyclic)).toBe('[object Object]');
  });

  it('gives anything else as String', () => {
    expect(messageOf(undefined)).toBe('undefined');
    expect(messageOf(null)).toBe('null');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(Symbol('s'))).toBe('Symbol(s)');
  });
});
