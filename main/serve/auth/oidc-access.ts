import type { IncomingMessage, ServerResponse } from 'node:http';
import * as oidc from 'openid-client';
import { SIGN_IN_CALLBACK_PATH, SIGN_IN_PATH, SIGN_IN_RETURN_SCRIPT, SIGN_OUT_PATH, SIGNED_OUT_PATH } from '../../../shared/sign-in';
import type { OidcConfig, ServeAuthConfig } from '../../core/config/serve-config';
import { readSecret } from '../../core/config/secret';
import { log } from '../../core/logging/log';
import { cookieValues } from '../http-guard';
import type { Access, AccessVerdict } from './access';
import { noRoleMessage, roleOf } from './roles';
import { SignIns } from './sessions';
import { messageOf } from '../../../shared/errors';

/** The sign-in cookie: an opaque id of a sign-in kept in memory. */
export const SESSION_COOKIE = 'loopdeck_session';
/** Binds a browser to the sign-in it started (the callback must come back to the same browser). */
const LOGIN_COOKIE = 'loopdeck_login';
/** The routes this access answers. */
const AUTH_PATHS = { login: SIGN_IN_PATH, callback: SIGN_IN_CALLBACK_PATH, logout: SIGN_OUT_PATH, signedOut: SIGNED_OUT_PATH } as const;
/** The sign-in page's script: to sign in, and back to the path and view (`#/…`) the browser asked for. */
const RETURN_SCRIPT = `location.replace(${JSON.stringify(`${SIGN_IN_PATH}?next=`)} + encodeURIComponent(location.pathname + location.hash));`;
/** A sign-in started and not finished is forgotten after this long. */
const PENDING_MS = 10 * 60_000;
/** Sign-ins started and not finished kept at once. */
const MAX_PENDING = 1000;

/** What a started sign-in keeps until its callback. */
interface Pending {
  readonly verifier: string;
  readonly nonce: string;
  readonly next: string;
  readonly at: number;
}

/** How an answer of the sign-in routes is written (the server's, with its security headers). */
export type Answer = (res: ServerResponse, status: number, body: string, headers?: Record<string, string>) => void;

export interface OidcAccessOptions {
  readonly auth: ServeAuthConfig & { oidc: OidcConfig };
  /** `serve.publicUrl`: the provider sends people back to `<publicUrl>/auth/callback`. */
  readonly publicUrl: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly answer: Answer;
  readonly now?: () => number;
}

/** A path of ours to go back to after signing in: a plain absolute path, never another site (`//x`, `/\x`). */
function safeNext(next: string | null): string {
  return next && /^\/(?![/\\])[^\s]*$/.test(next) ? next : '/';
}

/** The user's groups from a claim: an array of strings, or one string. */
function groupsOf(value: unknown): string[] | null {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((g) => typeof g === 'string')) return value as string[];
  return null;
}

/**
 * A short HTML page with a link to `to`, followed at once when `follow` (a same-site navigation,
 * so the SameSite=Strict cookie just set goes with it; a redirect would still count as the
 * provider's cross-site one). `text` and `to` are ours, escaped all the same.
 */
function linkPage(text: string, to: string, label: string, follow: boolean): string {
  const esc = (t: string): string => t.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const refresh = follow ? `<meta http-equiv="refresh" content="0;url=${esc(to)}">` : '';
  return `<!doctype html><meta charset="utf-8">${refresh}<title>Loopdeck</title><p>${esc(text)} <a href="${esc(to)}">${esc(label)}</a></p>`;
}

/**
 * OpenID Connect sign-in (authorization code with PKCE, through `openid-client`): a page without a
 * sign-in goes to the provider, comes back to `/auth/callback`, and gets a sign-in cookie
 * (HttpOnly, SameSite=Strict, Secure behind https) that lasts `oidc.session`. The provider's
 * discovery is read on the first sign-in (and again after it failed), so serve starts while the
 * provider is down and says so to whoever tries to sign in.
 */
export function oidcAccess(o: OidcAccessOptions): Access {
  const { oidc: cfg, roles } = o.auth;
  const now = o.now ?? Date.now;
  const base = o.publicUrl.replace(/\/+$/, '');
  const redirectUri = `${base}${AUTH_PATHS.callback}`;
  const secure = base.startsWith('https:') ? '; Secure' : '';
  const signIns = new SignIns(now);
  const pending = new Map<string, Pending>();
  let discovered: Promise<oidc.Configuration> | null = null;

  const configuration = (): Promise<oidc.Configuration> => {
    if (discovered) return discovered;
    let secret: string | undefined;
    if (cfg.clientSecret !== undefined) {
      const read = readSecret('serve.auth.oidc.clientSecret', cfg.clientSecret, o.env ?? process.env);
      if ('error' in read) return Promise.reject(new Error(read.error));
      secret = read.value;
    }
    const issuer = new URL(cfg.issuer);
    // Plain http only to a provider on this machine's loopback (tests, a provider beside serve).
    const loopback = issuer.protocol === 'http:' && /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(issuer.hostname);
    const p = oidc.discovery(issuer, cfg.clientId, secret, secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret), loopback ? { execute: [oidc.allowInsecureRequests] } : undefined);
    discovered = p;
    p.catch(() => {
      if (discovered === p) discovered = null;
    });
    return p;
  };

  const cookie = (name: string, value: string, maxAgeS: number, sameSite: 'Strict' | 'Lax'): string =>
    `${name}=${encodeURIComponent(value)}; HttpOnly; SameSite=${sameSite}; Path=/; Max-Age=${maxAgeS}${secure}`;

  const failed = (res: ServerResponse, status: number, message: string): void => o.answer(res, status, message);

  const login = async (res: ServerResponse, url: URL): Promise<void> => {
    const config = await configuration();
    const t = now();
    for (const [k, p] of pending) if (t - p.at > PENDING_MS || pending.size > MAX_PENDING) pending.delete(k);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    pending.set(state, { verifier, nonce, next: safeNext(url.searchParams.get('next')), at: t });
    const to = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: cfg.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    // Lax: the callback is a top-level navigation back from the provider's site.
    o.answer(res, 302, 'Signing in.', { location: to.href, 'set-cookie': cookie(LOGIN_COOKIE, state, PENDING_MS / 1000, 'Lax') });
  };

  const callback = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const state = url.searchParams.get('state') ?? '';
    const started = pending.get(state);
    if (!started || !cookieValues(req, LOGIN_COOKIE).includes(state)) {
      return failed(res, 400, `This sign-in was not started in this browser, or took longer than ${PENDING_MS / 60_000} minutes: open ${base}/ to sign in again.`);
    }
    pending.delete(state);
    const config = await configuration();
    const current = new URL(`${url.pathname}${url.search}`, base);
    const tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: started.verifier, expectedState: state, expectedNonce: started.nonce, idTokenExpected: true });
    const claims = tokens.claims();
    if (!claims) return failed(res, 502, 'The provider answered without an ID token.');
    let groups = groupsOf(claims[cfg.groupsClaim]);
    if (groups === null) {
      // Some providers put groups only in userinfo.
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      groups = groupsOf(info[cfg.groupsClaim]) ?? [];
    }
    const named = claims[cfg.userClaim];
    const user = typeof named === 'string' && named.trim() ? named.trim() : claims.sub;
    if (cfg.allowed && !cfg.allowed.groups.some((g) => groups.includes(g))) {
      log.warn(`serve: sign-in of ${user} refused: in none of serve.auth.oidc.allowed.groups`);
      return failed(res, 403, `${user} is in none of the groups allowed to sign in (serve.auth.oidc.allowed.groups: ${cfg.allowed.groups.join(', ')}).`);
    }
    const role = roleOf(roles, user, groups);
    if (role === null) {
      log.warn(`serve: sign-in of ${user} refused: in no role`);
      return failed(res, 403, noRoleMessage(user, groups));
    }
    const id = signIns.add({ caller: { user, role, via: 'oidc' }, endsAt: now() + cfg.session, idToken: tokens.id_token ?? null });
    log.info(`serve: ${user} signed in (${role})`);
    o.answer(res, 200, linkPage('Signed in.', started.next, 'Continue', true), {
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': cookie(SESSION_COOKIE, id, Math.floor(cfg.session / 1000), 'Strict'),
    });
  };

  const logout = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let ended = null;
    for (const id of cookieValues(req, SESSION_COOKIE)) if (id) ended ??= signIns.end(id);
    const clear = `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure}`;
    if (ended) log.info(`serve: ${ended.caller.user} signed out`);
    let to = `${base}${AUTH_PATHS.signedOut}`;
    try {
      const config = await configuration();
      if (config.serverMetadata().end_session_endpoint) {
        const params: Record<string, string> = { post_logout_redirect_uri: to, client_id: cfg.clientId };
        if (ended?.idToken) params.id_token_hint = ended.idToken;
        to = oidc.buildEndSessionUrl(config, params).href;
      }
    } catch {
      // The provider is unreachable: signed out here all the same.
    }
    o.answer(res, 302, 'Signed out.', { location: to, 'set-cookie': clear });
  };

  const route = (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    const run = (f: () => Promise<void>): boolean => {
      f().catch((err: unknown) => {
        const why = messageOf(err);
        log.warn(`serve: sign-in with ${cfg.issuer} failed: ${why}`);
        if (!res.headersSent) failed(res, 502, `Signing in with ${cfg.issuer} failed: ${why}`);
      });
      return true;
    };
    switch (url.pathname) {
      case AUTH_PATHS.login:
        return run(() => login(res, url));
      case AUTH_PATHS.callback:
        return run(() => callback(req, res, url));
      case AUTH_PATHS.logout:
        return run(() => logout(req, res));
      case SIGN_IN_RETURN_SCRIPT:
        o.answer(res, 200, RETURN_SCRIPT, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
        return true;
      case AUTH_PATHS.signedOut:
        o.answer(res, 200, linkPage('Signed out of Loopdeck.', AUTH_PATHS.login, 'Sign in again', false), { 'content-type': 'text/html; charset=utf-8' });
        return true;
      default:
        return false;
    }
  };

  return {
    kind: 'oidc',
    check(req, url, upgrade): AccessVerdict {
      for (const id of cookieValues(req, SESSION_COOKIE)) {
        const s = id ? signIns.get(id) : null;
        if (s && id) return { caller: s.caller, ambient: true, endsAt: s.endsAt, onEnd: (f) => signIns.onEnd(id, f) };
      }
      const page = !upgrade && req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
      if (page) return { signIn: `${AUTH_PATHS.login}?next=${encodeURIComponent(url.pathname)}` };
      return { status: 401, message: `Sign in first: open ${base}/.` };
    },
    route,
  };
}
