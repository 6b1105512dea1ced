import { describe, expect, it } from 'vitest';
import { consoleHash } from './notice-link';

describe('consoleHash', () => {
  it.each([
    ['http://127.0.0.1:7777/#/findings/R-1', '#/findings/R-1'],
    ['#/loops/reliability', '#/loops/reliability'],
    ['https://github.com/acme/radon/pull/88', null],
    ['https://evil.example/#/loops', null],
    [null, null],
    ['http://127.0.0.1:7777/', null],
  ])('%s → %s', (url, hash) => expect(consoleHash(url)).toBe(hash));
});
