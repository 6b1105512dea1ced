// testing/cookie-jar.ts keeps and sends cookies by the browser's rules.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CookieJar, parseSetCookie } from '../testing/cookie-jar';

describe('testing/cookie-jar.ts', () => {
  it('sends a cookie to the same host on any port (cookies ignore ports), not to another host', () => {
    const jar = new CookieJar();
    jar.store('http://127.0.0.1:4000/a', ['sid=1; Path=/; HttpOnly']);
    expect(jar.header('http://127.0.0.1:5000/x')).toBe('sid=1');
    expect(jar.header('http://localhost:4000/x')).toBe('');
  });

  it('honours Path (default: the setting URL’s folder), longest path first', () => {
    const jar = new CookieJar();
    jar.store('http://h/interaction/abc', ['i=1; Path=/interaction/abc', 'd=2']);
    jar.store('http://h/', ['r=3; Path=/']);
    expect(jar.header('http://h/interaction/abc')).toBe('i=1; d=2; r=3');
    expect(jar.header('http://h/interaction/abcd')).toBe('d=2; r=3');
    expect(jar.header('http://h/other')).toBe('r=3');
  });

  it('Max-Age=0 or a past Expires removes a cookie; a later Max-Age ends it then', () => {
    const jar = new CookieJar();
    jar.store('http://h/', ['a=1; Path=/', 'b=2; Path=/', 'c=3; Path=/; Max-Age=10'], 1_000);
    jar.store('http://h/', ['a=; Path=/; Max-Age=0', 'b=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'], 2_000);
    expect(jar.all().map((c) => c.name)).toEqual(['c']);
    expect(jar.matching('http://h/', 10_999).map((c) => c.name)).toEqual(['c']);
    expect(jar.matching('http://h/', 11_000)).toEqual([]);
  });

  it('Domain: sent to subdomains, refused from a host outside it; Secure only over https or loopback', () => {
    expect(parseSetCookie('x=1; Domain=example.com', new URL('http://evil.test/'))).toBeNull();
    const jar = new CookieJar();
    jar.store('https://app.example.com/', ['x=1; Domain=.example.com; Path=/; Secure']);
    expect(jar.get('x', 'https://other.example.com/')).toBe('1');
    expect(jar.get('x', 'http://other.example.com/')).toBeUndefined();
    jar.store('http://127.0.0.1:1/', ['s=1; Path=/; Secure']);
    expect(jar.get('s', 'http://127.0.0.1:2/')).toBe('1');
  });

  it('fetch sends the jar’s cookies with the caller’s, keeps Set-Cookie, and does not follow redirects', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.cookie);
      res.writeHead(302, { location: '/next', 'set-cookie': ['n=2; Path=/'] }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
    try {
      const jar = new CookieJar();
      jar.store(url, ['m=1; Path=/']);
      const res = await jar.fetch(url, { headers: { cookie: 'extra=0' } });
      expect(res.status).toBe(302);
      expect(seen).toEqual(['extra=0; m=1']);
      expect(jar.header(url)).toBe('m=1; n=2');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
