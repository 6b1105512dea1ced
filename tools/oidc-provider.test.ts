// The sign-in test peers themselves (testing/oidc-provider.ts, testing/oidc-sign-in.ts): a tiny
// relying party written here with openid-client 6, as the console will be, signs users in
// through the real provider with plain HTTP.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import * as oidc from 'openid-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { CookieJar } from '../testing/cookie-jar';
import { startOidcProvider, type OidcProviderOptions, type TestOidcProvider } from '../testing/oidc-provider';
import { signInOverHttp, signOutOverHttp } from '../testing/oidc-sign-in';
import { until } from '../testing/until';

const USERS = { alice: { groups: ['ops', 'admins'] }, bob: { groups: [] } };

/** A relying party on loopback: /login, /callback (sets rp_sid), /me (the signed-in claims), /logout. */
interface TestRp {
  readonly url: string;
  readonly config: oidc.Configuration;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

/** The provider with one client whose redirect URI is `${rp}/callback`, and that RP. */
async function setUp(extra: Partial<OidcProviderOptions> = {}): Promise<{ op: TestOidcProvider; rp: TestRp }> {
  const pending = new Map<string, { verifier: string; state: string }>();
  const sessions = new Map<string, { claims: oidc.IDToken; userinfo: oidc.UserInfoResponse; idToken: string }>();
  const discovered: { config?: oidc.Configuration } = {};
  let base = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const cookie = (name: string) => new RegExp(`(?:^|; )${name}=([^;]+)`).exec(req.headers.cookie ?? '')?.[1];
    void (async () => {
      const config = discovered.config;
      if (!config) throw new Error('no discovery yet');
      if (url.pathname === '/login') {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const flow = randomUUID();
        pending.set(flow, { verifier, state });
        const to = oidc.buildAuthorizationUrl(config, {
          redirect_uri: `${base}/callback`,
          scope: 'openid profile groups',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
        });
        res.writeHead(302, { location: to.href, 'set-cookie': `rp_flow=${flow}; Path=/; HttpOnly; SameSite=Lax` }).end();
      } else if (url.pathname === '/callback') {
        const flow = pending.get(cookie('rp_flow') ?? '');
        if (!flow) return void res.writeHead(400).end('no flow');
        const tokens = await oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
        const claims = tokens.claims();
        if (!claims || !tokens.id_token) throw new Error('no ID token');
        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        const sid = randomUUID();
        sessions.set(sid, { claims, userinfo, idToken: tokens.id_token });
        res.writeHead(302, { location: '/', 'set-cookie': `rp_sid=${sid}; Path=/; HttpOnly; SameSite=Lax` }).end();
      } else if (url.pathname === '/me') {
        const s = sessions.get(cookie('rp_sid') ?? '');
        res.writeHead(s ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(s ?? null));
      } else if (url.pathname === '/logout') {
        const s = sessions.get(cookie('rp_sid') ?? '');
        const to = oidc.buildEndSessionUrl(config, { ...(s ? { id_token_hint: s.idToken } : {}), post_logout_redirect_uri: `${base}/` });
        res.writeHead(302, { location: to.href, 'set-cookie': 'rp_sid=; Path=/; Max-Age=0' }).end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end('home');
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    });
  });
  base = await listen(server);
  closers.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  const op = await startOidcProvider({ clients: [{ clientId: 'loopdeck', clientSecret: 'test-secret', redirectUris: [`${base}/callback`] }], users: USERS, ...extra });
  closers.push(() => op.close());
  const config = await oidc.discovery(new URL(op.issuer), 'loopdeck', undefined, oidc.ClientSecretBasic('test-secret'), { execute: [oidc.allowInsecureRequests] });
  discovered.config = config;
  return { op, rp: { url: base, config } };
}

async function me(cookies: CookieJar, rp: TestRp): Promise<{ claims: oidc.IDToken; userinfo: oidc.UserInfoResponse } | null> {
  return (await (await cookies.fetch(`${rp.url}/me`)).json()) as { claims: oidc.IDToken; userinfo: oidc.UserInfoResponse } | null;
}

describe('testing/oidc-provider.ts: a real OpenID Provider on loopback', () => {
  it('publishes discovery: code flow, PKCE S256, the groups scope and claim, end_session_endpoint', async () => {
    const { op } = await setUp();
    const doc = (await (await fetch(op.discoveryUrl)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: op.issuer,
      authorization_endpoint: `${op.issuer}/auth`,
      end_session_endpoint: `${op.issuer}/session/end`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'groups']));
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['sub', 'preferred_username', 'groups']));
  });

  it('signs a user in over plain HTTP: the RP gets groups and preferred_username in the ID token and userinfo', async () => {
    const { op, rp } = await setUp();
    const { cookies, final, finalUrl, formShown, responses } = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer });
    expect(finalUrl).toMatch(new RegExp(`^${rp.url}/callback\\?code=`));
    expect(final.status).toBe(302);
    expect(final.headers.getSetCookie().join()).toMatch(/^rp_sid=/);
    expect(formShown).toBe(true);
    expect(responses.some((r) => r.method === 'POST' && r.url.startsWith(`${op.issuer}/interaction/`))).toBe(true);
    expect(cookies.get('rp_sid', rp.url)).toBeDefined();
    const session = await me(cookies, rp);
    expect(session?.claims).toMatchObject({ iss: op.issuer, aud: 'loopdeck', sub: 'alice', preferred_username: 'alice', groups: ['ops', 'admins'] });
    expect(session?.userinfo).toMatchObject({ sub: 'alice', preferred_username: 'alice', groups: ['ops', 'admins'] });
    expect(op.signIns).toEqual(['alice']);
  });

  it('a user with no groups gets an empty groups claim', async () => {
    const { op, rp } = await setUp();
    const { cookies } = await signInOverHttp(`${rp.url}/login`, 'bob', { issuer: op.issuer });
    expect((await me(cookies, rp))?.claims).toMatchObject({ sub: 'bob', groups: [] });
  });

  it('with the provider session still live, signs in again without the form (SSO)', async () => {
    const { op, rp } = await setUp();
    const first = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer });
    const again = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer, cookies: first.cookies });
    expect(again.formShown).toBe(false);
    expect(again.finalUrl).toMatch(/\/callback\?code=/);
    expect(op.signIns).toEqual(['alice']);
  });

  it('refuses an unknown user at the form', async () => {
    const { op, rp } = await setUp();
    await expect(signInOverHttp(`${rp.url}/login`, 'mallory', { issuer: op.issuer })).rejects.toThrow(/refused to sign "mallory" in \(HTTP 403\).*No such user: mallory/);
  });

  it('requires PKCE: an authorization request without code_challenge comes back with an error', async () => {
    const { rp } = await setUp();
    const url = oidc.buildAuthorizationUrl(rp.config, { redirect_uri: `${rp.url}/callback`, scope: 'openid profile groups', state: 'x' });
    const { finalUrl } = await signInOverHttp(url.href, 'alice');
    const back = new URL(finalUrl);
    expect(back.origin + back.pathname).toBe(`${rp.url}/callback`);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('signInNextAs: the next interaction signs that user in without the form', async () => {
    const { op, rp } = await setUp();
    op.signInNextAs('bob');
    const { cookies, formShown } = await signInOverHttp(`${rp.url}/login`, 'ignored', { issuer: op.issuer });
    expect(formShown).toBe(false);
    expect((await me(cookies, rp))?.claims.sub).toBe('bob');
    expect(() => op.signInNextAs('nobody')).toThrow(/not one of the provider's users/);
  });

  it('RP-initiated logout ends the provider session: the next sign-in shows the form again', async () => {
    const { op, rp } = await setUp();
    const { cookies } = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer });
    const out = await signOutOverHttp(`${rp.url}/logout`, { issuer: op.issuer, cookies });
    expect(out.finalUrl).toBe(`${rp.url}/`);
    expect(out.responses.some((r) => r.method === 'POST' && r.url === `${op.issuer}/session/end/confirm`)).toBe(true);
    expect(await me(cookies, rp)).toBeNull();
    const again = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer, cookies });
    expect(again.formShown).toBe(true);
  });

  it('short TTLs: the ID token expires when told, and after the session TTL the provider asks again', async () => {
    const { op, rp } = await setUp({ idTokenTtlSeconds: 3, sessionTtlSeconds: 3 });
    const { cookies } = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer });
    const claims = (await me(cookies, rp))?.claims;
    expect(claims && claims.exp - claims.iat).toBe(3);
    await until(() => Date.now() / 1000 > (claims?.exp ?? 0) + 1, 10_000, 'the ID token and the provider session to expire', 100);
    const again = await signInOverHttp(`${rp.url}/login`, 'alice', { issuer: op.issuer, cookies });
    expect(again.formShown).toBe(true);
    expect(op.signIns).toEqual(['alice', 'alice']);
  });
});
