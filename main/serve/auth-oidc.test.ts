import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNED_OUT_CLOSE } from '../../shared/sign-in';
import { ServeConfigSchema } from '../core/config/serve-config';
import type { CookieJar } from '../../testing/cookie-jar';
import { fakeHandlers } from '../../testing/fake-handlers';
import { startOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider';
import { signInOverHttp } from '../../testing/oidc-sign-in';
import { startReverseProxy, type TestReverseProxy } from '../../testing/reverse-proxy';
import { freePort } from '../../testing/sshd';
import { until } from '../../testing/until';
import { startServer, type Served } from './server';

// Serve signing people in with a real OpenID Provider (oidc-provider) on loopback: authorization
// code with PKCE through openid-client, the sign-in kept in an HttpOnly SameSite=Strict cookie.

const core = { handlers: fakeHandlers(), subscribe: () => () => undefined };
const SECRET = 'a-client-secret-of-some-length';

interface Opened {
  readonly ws: WebSocket;
  /** The close code, once closed. */
  code(): number | null;
  send(name: string, input: unknown): Promise<unknown>;
}

/** Open the console's socket with `cookies`, from `origin`; rejects with the status when refused. */
function openSocket(base: string, cookies: CookieJar | null, origin: string | null): Promise<Opened> {
  const headers: Record<string, string> = {};
  const cookie = cookies?.header(`${base}/ws`);
  if (cookie) headers.cookie = cookie;
  if (origin) headers.origin = origin;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, { headers });
    let closed: number | null = null;
    let next = 1;
    const waiting = new Map<number, (r: unknown) => void>();
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; id?: number; result?: unknown };
      if (frame.type === 'result' && frame.id !== undefined) waiting.get(frame.id)?.(frame.result);
    });
    ws.once('close', (code) => (closed = code));
    ws.once('open', () =>
      resolve({
        ws,
        code: () => closed,
        send: (name, input) =>
          new Promise((ok) => {
            const id = next++;
            waiting.set(id, ok);
            ws.send(JSON.stringify({ id, name, input }));
          }),
      }),
    );
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode ?? 0}`)));
    ws.once('error', reject);
  });
}

describe('serve with OIDC sign-in (serve.auth.oidc)', () => {
  let op: TestOidcProvider;
  let served: Served;
  let base: string;

  let proxy: TestReverseProxy | null = null;

  /** Serve (behind nginx with `behindProxy`, which is then the URL people open) and its provider. */
  const start = async (session: string, behindProxy = false): Promise<void> => {
    const port = await freePort();
    proxy = behindProxy ? await startReverseProxy({ upstream: `http://127.0.0.1:${port}` }) : null;
    base = proxy ? proxy.url : `http://127.0.0.1:${port}`;
    op = await startOidcProvider({
      clients: [{ clientId: 'loopdeck', clientSecret: SECRET, redirectUris: [`${base}/auth/callback`], postLogoutRedirectUris: [`${base}/auth/signed-out`] }],
      users: { alice: { groups: ['ops', 'night'] }, olive: { groups: ['ops'] }, mallory: { groups: ['guests'] }, nobody: { groups: ['ops-readers'] }, 'group:admins': { groups: ['ops-readers'] } },
    });
    const serve = ServeConfigSchema.parse({
      publicUrl: base,
      auth: {
        oidc: { issuer: op.issuer, clientId: 'loopdeck', clientSecret: 'env:TEST_OIDC_SECRET', scopes: ['openid', 'profile', 'groups'], allowed: { groups: ['ops', 'ops-readers'] }, session },
        roles: { admin: ['alice', 'group:admins'], operator: ['group:ops'], viewer: [] },
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'ld-oidc-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Loopdeck</title>');
    served = await startServer({ session: core, rendererDir: dir, port, serve, env: { TEST_OIDC_SECRET: SECRET } });
  };
  const stop = async (): Promise<void> => {
    await proxy?.close();
    await served?.close();
    await op?.close();
  };

  describe('with an 8-hour sign-in', () => {
    beforeAll(() => start('8h'));
    afterAll(stop);

    it('sends a page without a sign-in to the provider, and refuses its assets and socket', async () => {
      expect(served.access).toBe('oidc');
      expect(served.url).toBe(`${base}/`);
      // The page's view (`#/notices`) never reaches the server: the sign-in page's script adds it.
      const page = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(401);
      expect(await page.text()).toContain('<script src="/auth/return.js"></script><p>Loopdeck needs you to sign in. <a href="/auth/login?next=%2F">Sign in</a></p>');
      expect(await (await fetch(`${base}/auth/return.js`)).text()).toBe('location.replace("/auth/login?next=" + encodeURIComponent(location.pathname + location.hash));\n');
      const login = await fetch(`${base}/auth/login?next=%2F%23%2Fnotices`, { redirect: 'manual' });
      const to = new URL(login.headers.get('location') ?? '');
      expect(to.origin).toBe(new URL(op.issuer).origin);
      expect(to.searchParams.get('code_challenge_method')).toBe('S256');
      expect(to.searchParams.get('redirect_uri')).toBe(`${base}/auth/callback`);
      expect((await fetch(`${base}/assets/app.js`)).status).toBe(401);
      await expect(openSocket(base, null, base)).rejects.toThrow('HTTP 401');
    });

    it('signs alice in: an HttpOnly SameSite=Strict cookie, the page, and her name and role on the socket', async () => {
      const { cookies, final } = await signInOverHttp(`${base}/auth/login?next=%2F%23%2Fnotices`, 'alice', { issuer: op.issuer });
      expect(final.status).toBe(200);
      expect(await final.text()).toContain('<meta http-equiv="refresh" content="0;url=/#/notices">');
      expect(final.headers.get('set-cookie')).toMatch(/^loopdeck_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=28800$/);
      expect((await cookies.fetch(`${base}/`)).status).toBe(200);
      const s = await openSocket(base, cookies, base);
      expect(await s.send('app.info', {})).toMatchObject({ ok: true, output: { caller: { user: 'alice', role: 'admin', via: 'oidc' } } });
      s.ws.close();
    });

    it('gives a group its role, and refuses a command above it with 403 naming the role', async () => {
      const { cookies } = await signInOverHttp(`${base}/auth/login`, 'olive', { issuer: op.issuer });
      const s = await openSocket(base, cookies, base);
      expect(await s.send('notices.ack', { key: 'k' })).toMatchObject({ ok: true });
      expect(await s.send('hosts.untrust', { host: 'h' })).toEqual({ ok: false, error: { code: 'forbidden', status: 403, message: 'hosts.untrust needs the admin role; olive is an operator.' } });
      s.ws.close();
    });

    it('refuses someone outside the allowed groups, and someone allowed in but in no role', async () => {
      const wrong = await signInOverHttp(`${base}/auth/login`, 'mallory', { issuer: op.issuer });
      expect(wrong.final.status).toBe(403);
      expect(await wrong.final.text()).toBe('mallory is in none of the groups allowed to sign in (serve.auth.oidc.allowed.groups: ops, ops-readers).\n');
      expect(wrong.cookies.get('loopdeck_session')).toBeUndefined();
      const none = await signInOverHttp(`${base}/auth/login`, 'nobody', { issuer: op.issuer });
      expect(none.final.status).toBe(403);
      expect(await none.final.text()).toContain("nobody (groups: ops-readers) is in none of serve.auth.roles'");
    });

    it('never reads someone whose preferred_username is group:admins as a member of group admins', async () => {
      // Allowed in (ops-readers), in no role's group, and named like the admins' group.
      const named = await signInOverHttp(`${base}/auth/login`, 'group:admins', { issuer: op.issuer });
      expect(named.final.status).toBe(403);
      expect(await named.final.text()).toBe('group:admins (groups: ops-readers) is in none of serve.auth.roles\' admin, operator or viewer lists; a user name starting with "group:" cannot be listed by name, so give them a role through one of their groups.\n');
      expect(named.cookies.get('loopdeck_session')).toBeUndefined();
    });

    it('refuses a socket with the sign-in cookie from another origin, or none (cross-site request forgery)', async () => {
      const { cookies } = await signInOverHttp(`${base}/auth/login`, 'alice', { issuer: op.issuer });
      await expect(openSocket(base, cookies, 'http://evil.example')).rejects.toThrow('HTTP 403');
      await expect(openSocket(base, cookies, null)).rejects.toThrow('HTTP 403');
    });

    it('refuses a callback this browser did not start', async () => {
      const r = await fetch(`${base}/auth/callback?code=x&state=forged`);
      expect(r.status).toBe(400);
      expect(await r.text()).toMatch(/not started in this browser/);
    });

    it('signs out: the cookie is cleared, the provider is told, the open socket ends and the cookie no longer works', async () => {
      const { cookies } = await signInOverHttp(`${base}/auth/login`, 'alice', { issuer: op.issuer });
      const kept = cookies.header(`${base}/`);
      const s = await openSocket(base, cookies, base);
      const out = await cookies.fetch(`${base}/auth/logout`);
      expect(out.status).toBe(302);
      const to = new URL(out.headers.get('location') ?? '');
      expect(`${to.origin}${to.pathname}`).toBe(`${op.issuer}/session/end`);
      expect(to.searchParams.get('post_logout_redirect_uri')).toBe(`${base}/auth/signed-out`);
      expect(to.searchParams.get('id_token_hint')).toBeTruthy();
      expect(out.headers.get('set-cookie')).toMatch(/^loopdeck_session=; .*Max-Age=0/);
      await until(() => s.code() !== null, 5000, 'the socket closed at sign-out');
      expect(s.code()).toBe(SIGNED_OUT_CLOSE);
      expect(await (await fetch(`${base}/`, { headers: { cookie: kept, accept: 'text/html' } })).text()).toContain('Loopdeck needs you to sign in.');
    });
  });

  describe('with a 2-second sign-in', () => {
    beforeAll(() => start('2s'));
    afterAll(stop);

    it('expires: the socket is closed when it ends, and the page asks to sign in again', async () => {
      const { cookies } = await signInOverHttp(`${base}/auth/login`, 'alice', { issuer: op.issuer });
      expect(cookies.header(`${base}/`)).toMatch(/loopdeck_session=/);
      const kept = cookies.header(`${base}/`);
      const s = await openSocket(base, cookies, base);
      await until(() => s.code() !== null, 10_000, 'the socket closed when the sign-in expired');
      expect(s.code()).toBe(SIGNED_OUT_CLOSE);
      const page = await fetch(`${base}/`, { headers: { cookie: kept, accept: 'text/html' } });
      expect(page.status).toBe(401);
      expect(await page.text()).toContain('Loopdeck needs you to sign in.');
    });
  });

  describe('behind nginx, whose URL is serve.publicUrl', () => {
    beforeAll(() => start('8h', true));
    afterAll(stop);

    it('signs in through the proxy and serves the page and socket there', async () => {
      const { cookies, final } = await signInOverHttp(`${base}/auth/login`, 'olive', { issuer: op.issuer });
      expect(final.status).toBe(200);
      expect((await cookies.fetch(`${base}/`)).status).toBe(200);
      const s = await openSocket(base, cookies, base);
      expect(await s.send('app.info', {})).toMatchObject({ ok: true, output: { caller: { user: 'olive', role: 'operator', via: 'oidc' } } });
      s.ws.close();
    });
  });

  describe('when the provider is down at first', () => {
    afterAll(stop);

    it('serve starts, the sign-in page says the provider cannot be reached (502), and signing in works once it is up', async () => {
      const port = await freePort();
      const opPort = await freePort();
      base = `http://127.0.0.1:${port}`;
      const serve = ServeConfigSchema.parse({
        publicUrl: base,
        auth: { oidc: { issuer: `http://127.0.0.1:${opPort}`, clientId: 'loopdeck', clientSecret: 'env:TEST_OIDC_SECRET', scopes: ['openid', 'profile', 'groups'] }, roles: { viewer: ['*'] } },
      });
      const dir = mkdtempSync(join(tmpdir(), 'ld-oidc-down-'));
      writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Loopdeck</title>');
      served = await startServer({ session: core, rendererDir: dir, port, serve, env: { TEST_OIDC_SECRET: SECRET } });
      const down = await fetch(`${base}/auth/login`, { redirect: 'manual' });
      expect(down.status).toBe(502);
      expect(await down.text()).toMatch(new RegExp(`^Signing in with http://127\\.0\\.0\\.1:${opPort} failed: `));
      op = await startOidcProvider({ port: opPort, clients: [{ clientId: 'loopdeck', clientSecret: SECRET, redirectUris: [`${base}/auth/callback`] }], users: { vera: { groups: [] } } });
      const { final } = await signInOverHttp(`${base}/auth/login`, 'vera', { issuer: op.issuer });
      expect(final.status).toBe(200);
      expect(final.headers.get('set-cookie')).toMatch(/^loopdeck_session=/);
    });
  });
});
