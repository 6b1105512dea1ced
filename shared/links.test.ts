import { describe, expect, it } from 'vitest';
import { consoleHash, linkTarget } from './links';

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

describe('linkTarget', () => {
  it.each([
    ['#/findings/R-1', undefined, { kind: 'console', hash: '#/findings/R-1' }],
    // A notice made in serve mode links to serve's own URL: a view of this console, not a page outside.
    ['http://127.0.0.1:7777/#/loops/reliability', undefined, { kind: 'console', hash: '#/loops/reliability' }],
    ['https://console.example/#/notices', 'https://console.example', { kind: 'console', hash: '#/notices' }],
    ['https://evil.example/#/loops', 'https://console.example', { kind: 'external', url: 'https://evil.example/#/loops' }],
    ['https://github.com/acme/radon/pull/88', undefined, { kind: 'external', url: 'https://github.com/acme/radon/pull/88' }],
    ['javascript:alert(1)//#/x', undefined, null],
    ['http://127.0.0.1:7777/', undefined, null],
    ['https://user:pw@github.com/', undefined, null],
    [null, undefined, null],
  ])('%s (console at %s) → %j', (url, origin, target) => expect(linkTarget(url, origin)).toEqual(target));
});
