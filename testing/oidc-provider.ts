// A real OpenID Provider (panva's oidc-provider 9) on loopback, for the sign-in tests: the
// console is its relying party.
//
// What a sign-in test does:
//   const op = await startOidcProvider({
//     clients: [{ clientId: 'loopdeck', clientSecret: 's3cret', redirectUris: [`${consoleUrl}/auth/callback`] }],
//     users: { alice: { groups: ['ops'] }, bob: { groups: [] } },
//   });
//   // console config: issuer = op.issuer (discovery at op.discoveryUrl), client id/secret as above,
//   // scope 'openid profile groups', PKCE S256. openid-client needs `execute: [allowInsecureRequests]`
//   // in discovery() because the issuer is plain http://127.0.0.1:PORT.
//   const { jar, final } = await signInOverHttp(`${consoleUrl}/auth/login`, 'alice', { issuer: op.issuer });
//   ... await op.close();
// In Playwright: go to the console, it redirects here; fill `input[name=login]` with the user name
// and click `button[type=submit]` ("Sign in"); consent is granted automatically.
//
// The provider: authorization code flow only, PKCE (S256) required for every client, confidential
// clients (client_secret_basic unless a client says client_secret_post), scopes `openid profile groups`. The ID token
// and userinfo carry `sub` = `preferred_username` = the user name, `name`, and `groups` (a string
// array; `conformIdTokenClaims: false` puts scope claims in the ID token of a code flow too).
// RP-initiated logout is on: `end_session_endpoint` is `${issuer}/session/end`; the confirm page is
// a plain form (`button[name=logout]`, "Sign out") that signOutOverHttp submits. Each client's
// post_logout_redirect_uris default to the origins of its redirect URIs plus `/`.
//
// Loopback http: the issuer is `http://127.0.0.1:PORT`, served straight by node:http (no proxy, so
// Koa's `proxy` stays off and cookies are not Secure). Its cookies are named `op_session`,
// `op_interaction`, `op_resume` so they never collide with the console's (cookies ignore ports).
// The ID token and the provider session last `idTokenTtlSeconds`/`sessionTtlSeconds` (default 1 h),
// short for the expired-session tests; access tokens last as long as ID tokens.
//
// Runtime: oidc-provider 9 declares no engines but prints "Unsupported runtime. Use Node.js v22.x
// LTS" once on Node 20 (its check wants LTS "Jod"); it runs on Node >= 20.18 (it needs URL.parse),
// and these tests pass on 20.20.2. oidc-provider 8.8 supports Node 18/20 officially but is the old
// major (jose 5, koa 2); 9 shares jose 6 with openid-client 6.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider, { type Adapter, type AdapterFactory, type AdapterPayload, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** A registered relying party. */
export interface OidcClientSpec {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  /** Where RP-initiated logout may return to; default: each redirect URI's origin + `/`. */
  readonly postLogoutRedirectUris?: readonly string[];
  /**
   * How it authenticates at the token endpoint; the provider holds it to this one. Default
   * client_secret_basic (openid-client: `ClientSecretBasic(secret)` as discovery's 4th argument).
   */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

/** A user the provider knows: the name is the key of `users` and what is typed into the form. */
export interface OidcUser {
  readonly groups: readonly string[];
}

/** How the test provider is set up. */
export interface OidcProviderOptions {
  readonly clients: readonly OidcClientSpec[];
  readonly users: Readonly<Record<string, OidcUser>>;
  /** The provider's own session (its `op_session` cookie's server side); default 3600. */
  readonly sessionTtlSeconds?: number;
  /** ID token (and access token) lifetime; default 3600. */
  readonly idTokenTtlSeconds?: number;
  /** The port to listen on (a test that starts the provider late, where the console expects it); a free one by default. */
  readonly port?: number;
}

/** A running test OpenID Provider. */
export interface TestOidcProvider {
  /** `http://127.0.0.1:PORT`, no trailing slash: the `iss` of its tokens. */
  readonly issuer: string;
  /** `${issuer}/.well-known/openid-configuration`. */
  readonly discoveryUrl: string;
  readonly port: number;
  /** Every successful form sign-in, in order (user names), to tell a fresh sign-in from SSO. */
  readonly signIns: readonly string[];
  /**
   * Who signs in next without the form: the next interaction page logs `user` in and returns at
   * once (as an SSO provider would). null (the default) shows the form. Used once, then reset.
   */
  signInNextAs(user: string | null): void;
  close(): Promise<void>;
}

/**
 * The provider's storage: one in-memory table per provider (its own, so the library's
 * "development-only adapter" warning does not fill every test's output). Entries end at their
 * `expiresIn`, which is how a short session TTL takes effect.
 */
function memoryAdapter(): AdapterFactory {
  const rows = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string): AdapterPayload | undefined => {
    const row = rows.get(key);
    if (row && row.expiresAt <= Date.now()) rows.delete(key);
    return row && row.expiresAt > Date.now() ? row.payload : undefined;
  };
  return (name: string): Adapter => {
    const key = (id: string) => `${name}:${id}`;
    const where = (test: (p: AdapterPayload) => boolean) => [...rows.keys()].filter((k) => k.startsWith(`${name}:`)).map(live).find((p) => p && test(p));
    return {
      upsert: async (id, payload, expiresIn) => void rows.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity }),
      find: async (id) => live(key(id)),
      findByUid: async (uid) => where((p) => p.uid === uid),
      findByUserCode: async (code) => where((p) => p.userCode === code),
      consume: async (id) => {
        const p = live(key(id));
        if (p) p.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => void rows.delete(key(id)),
      revokeByGrantId: async (grantId) => {
        for (const [k, row] of rows) if (row.payload.grantId === grantId) rows.delete(k);
      },
    };
  };
}

/** HTML-escape text for the plain pages. */
function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A bare HTML page (no scripts, no external fonts: Playwright and Node read the same thing). */
function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>\n${body}\n</body></html>\n`;
}

/** The sign-in form of interaction `uid`: `<input name="login">` and `<button type=submit>Sign in</button>`. */
function loginPage(uid: string, clientId: string, error?: string): string {
  return page(
    'Sign in — test OpenID Provider',
    [
      '<h1>Sign in</h1>',
      `<p>to ${esc(clientId)}</p>`,
      error ? `<p role="alert" class="error">${esc(error)}</p>` : '',
      `<form method="post" action="/interaction/${esc(uid)}">`,
      '<label>User name <input name="login" autocomplete="username" autofocus></label>',
      '<button type=submit>Sign in</button>',
      '</form>',
    ].join('\n'),
  );
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

/** The provider's configuration for these options (exported for a test that reads it). */
export function providerConfiguration(o: OidcProviderOptions): Configuration {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sessionTtl = o.sessionTtlSeconds ?? 3600;
  const idTokenTtl = o.idTokenTtlSeconds ?? 3600;
  return {
    adapter: memoryAdapter(),
    clients: o.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: [...c.redirectUris],
      post_logout_redirect_uris: [...(c.postLogoutRedirectUris ?? [...new Set(c.redirectUris.map((u) => `${new URL(u).origin}/`))])],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: c.tokenEndpointAuthMethod ?? 'client_secret_basic',
    })),
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('hex')], names: { session: 'op_session', interaction: 'op_interaction', resume: 'op_resume' } },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'groups'],
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'], groups: ['groups'] },
    conformIdTokenClaims: false,
    findAccount: (_ctx, id) => {
      const user = Object.hasOwn(o.users, id) ? o.users[id] : undefined;
      if (!user) return undefined;
      return { accountId: id, claims: () => ({ sub: id, preferred_username: id, name: id, groups: [...user.groups] }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx: KoaContextWithOIDC, form: string) => {
          ctx.type = 'html';
          ctx.body = page('Sign out — test OpenID Provider', `<h1>Sign out?</h1>\n${form}\n<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`);
        },
        postLogoutSuccessSource: (ctx: KoaContextWithOIDC) => {
          ctx.type = 'html';
          ctx.body = page('Signed out — test OpenID Provider', '<h1>Signed out</h1>');
        },
      },
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page('Error — test OpenID Provider', `<h1>${esc(String(out.error))}</h1>\n<p class="error">${esc(String(out.error_description ?? ''))}</p>`);
    },
    ttl: {
      Session: sessionTtl,
      IdToken: idTokenTtl,
      AccessToken: idTokenTtl,
      AuthorizationCode: 60,
      Interaction: 600,
      Grant: Math.max(sessionTtl, 3600),
    },
  };
}

/** Start the provider on a free 127.0.0.1 port; resolves once it listens. */
export async function startOidcProvider(o: OidcProviderOptions): Promise<TestOidcProvider> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => send(res, 503, 'starting');
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, providerConfiguration(o));
  const signIns: string[] = [];
  let nextUser: string | null = null;

  /** Finish interaction with `user` logged in and every requested scope granted (no consent page). */
  async function finish(req: IncomingMessage, res: ServerResponse, user: string): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const clientId = String(details.params.client_id);
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
    const g = grant ?? new provider.Grant({ accountId: user, clientId });
    g.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await g.save();
    await provider.interactionFinished(req, res, { login: { accountId: user }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return send(res, 400, page('Error', '<h1>interaction mismatch</h1>'));
    const clientId = String(details.params.client_id);
    const signedIn = details.session?.accountId;
    if (req.method === 'GET') {
      // Only consent is missing (a known session, a new client or scope): grant it, no page.
      if (details.prompt.name === 'consent' && signedIn) return finish(req, res, signedIn);
      if (nextUser !== null) {
        const user = nextUser;
        nextUser = null;
        signIns.push(user);
        return finish(req, res, user);
      }
      return send(res, 200, loginPage(uid, clientId));
    }
    if (req.method !== 'POST') return send(res, 405, page('Error', '<h1>method not allowed</h1>'));
    const user = (await readForm(req)).get('login')?.trim() ?? '';
    if (!Object.hasOwn(o.users, user)) return send(res, 403, loginPage(uid, clientId, `No such user: ${user || '(empty)'}`));
    signIns.push(user);
    return finish(req, res, user);
  }

  const oidc = provider.callback();
  handle = (req, res) => {
    const m = /^\/interaction\/([^/?#]+)$/.exec(new URL(req.url ?? '/', issuer).pathname);
    if (!m) return void oidc(req, res);
    interaction(req, res, decodeURIComponent(m[1] as string)).catch((err: unknown) => {
      if (!res.headersSent) send(res, 400, page('Error — test OpenID Provider', `<h1>interaction failed</h1>\n<p class="error">${esc(String(err))}</p>`));
      else res.end();
    });
  };

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    port,
    signIns,
    signInNextAs: (user) => {
      if (user !== null && !Object.hasOwn(o.users, user)) throw new Error(`signInNextAs: ${JSON.stringify(user)} is not one of the provider's users (${Object.keys(o.users).join(', ')})`);
      nextUser = user;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
