// Sign in (and out) through the test OpenID Provider with plain Node HTTP: no browser, redirects
// followed one by one with a cookie jar, the provider's forms filled as a person would.
//
// What a sign-in test does (the console at consoleUrl is the relying party of `op`):
//   const { cookies, final, finalUrl } = await signInOverHttp(`${consoleUrl}/auth/login`, 'alice', { issuer: op.issuer });
//   // finalUrl is the console's callback (`${consoleUrl}/auth/callback?code=…&state=…&iss=…`),
//   // final its answer (body unread, not followed); its Set-Cookie is already in `cookies`:
//   const home = await cookies.fetch(`${consoleUrl}/`);
//   await signOutOverHttp(endSessionUrl, { issuer: op.issuer, cookies });
// startUrl may be the console's own login URL or an authorization URL the test built; `issuer`
// tells the provider's pages from the console's (default: startUrl's origin, i.e. startUrl is the
// authorization URL). The walk stops at the first URL off the provider after it was reached.
import { CookieJar } from './cookie-jar';

/** One request of the walk. */
export interface HttpStep {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly status: number;
  readonly location?: string;
}

/** Where a walk through the provider ended. */
export interface ProviderWalk {
  /** Every cookie set on the way (the provider's `op_*` and the relying party's), for more requests. */
  readonly cookies: CookieJar;
  /** The first URL off the provider (e.g. the RP's callback), or the provider page the walk ended on. */
  readonly finalUrl: string;
  /** Its response, not followed; its Set-Cookie is already in `cookies`; its body is unread. */
  readonly final: Response;
  readonly responses: readonly HttpStep[];
}

/** A sign-in walk: also whether the form was shown (false: the provider's session signed in, SSO). */
export interface SignInResult extends ProviderWalk {
  readonly formShown: boolean;
}

/** Options of a walk. */
export interface WalkOptions {
  /** The provider's issuer (its origin marks its pages); default: startUrl's origin. */
  readonly issuer?: string;
  /** A jar to carry on with (e.g. an earlier sign-in's, for SSO or sign-out); default: a new one. */
  readonly cookies?: CookieJar;
  /** Headers for every request (e.g. a user-agent). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Give up after this many requests; default 20. */
  readonly maxSteps?: number;
}

/** A form of a provider page: where it posts and what it would send, submit button included. */
interface PageForm {
  readonly action: string;
  readonly fields: Record<string, string>;
  readonly login: boolean;
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  const v = m ? (m[1] ?? m[2] ?? m[3]) : undefined;
  return v?.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/** The first POST form of `html` (its hidden inputs and named submit button), or null. */
function postForm(html: string, pageUrl: string): PageForm | null {
  const formTag = /<form\b[^>]*>/i.exec(html)?.[0];
  if (!formTag || (attr(formTag, 'method') ?? 'get').toLowerCase() !== 'post') return null;
  const fields: Record<string, string> = {};
  for (const tag of html.match(/<input\b[^>]*>/gi) ?? []) {
    const name = attr(tag, 'name');
    if (name && (attr(tag, 'type') ?? '').toLowerCase() === 'hidden') fields[name] = attr(tag, 'value') ?? '';
  }
  for (const tag of html.match(/<button\b[^>]*>/gi) ?? []) {
    const name = attr(tag, 'name');
    if (name && (attr(tag, 'type') ?? 'submit').toLowerCase() === 'submit') {
      fields[name] = attr(tag, 'value') ?? '';
      break;
    }
  }
  const login = /<input\b[^>]*\sname\s*=\s*["']?login\b/i.test(html);
  return { action: new URL(attr(formTag, 'action') ?? pageUrl, pageUrl).href, fields, login };
}

/** A page's text without tags, for an error message. */
function pageText(html: string): string {
  return html.replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/gi, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 400);
}

/**
 * Walk from `startUrl` through the provider: follow redirects, submit its POST forms (the login
 * form with `login` = `user`, which must not come back), stop at the first URL off the provider
 * once it was reached, or at a provider page with no form.
 */
async function walk(startUrl: string, user: string | null, o: WalkOptions): Promise<SignInResult> {
  const cookies = o.cookies ?? new CookieJar();
  const opOrigin = new URL(o.issuer ?? startUrl).origin;
  const responses: HttpStep[] = [];
  let url = new URL(startUrl).href;
  let body: URLSearchParams | undefined;
  let reachedOp = false;
  let formShown = false;
  for (let step = 0; step < (o.maxSteps ?? 20); step++) {
    const onOp = new URL(url).origin === opOrigin;
    const method = body ? 'POST' : 'GET';
    const res = await cookies.fetch(url, { method, headers: { ...o.headers }, ...(body ? { body } : {}) });
    const location = res.headers.get('location') ?? undefined;
    responses.push({ method, url, status: res.status, ...(location ? { location } : {}) });
    if (!onOp && reachedOp) return { cookies, finalUrl: url, final: res, responses, formShown };
    reachedOp ||= onOp;
    body = undefined;
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    if (!onOp) throw new Error(`${method} ${url} answered HTTP ${res.status} before the walk reached the provider at ${opOrigin} (pass { issuer } if startUrl is not on it): ${pageText(await res.text())}`);
    const html = await res.clone().text();
    const form = postForm(html, url);
    if (!form) return { cookies, finalUrl: url, final: res, responses, formShown };
    if (form.login) {
      if (user === null) throw new Error(`${url} asks who signs in, but this walk signs no one in (sign-out): ${pageText(html)}`);
      if (formShown) throw new Error(`the provider refused to sign ${JSON.stringify(user)} in (HTTP ${res.status}): ${pageText(html)}`);
      formShown = true;
      form.fields.login = user;
    }
    await res.body?.cancel();
    url = form.action;
    body = new URLSearchParams(form.fields);
  }
  throw new Error(`no end after ${o.maxSteps ?? 20} requests from ${startUrl}: ${responses.map((r) => `${r.method} ${r.url} ${r.status}`).join(' → ')}`);
}

/**
 * Sign `user` in over plain HTTP from `startUrl` (the RP's login URL, with `issuer`, or an
 * authorization URL) and fetch the RP's callback once; the result's `final` is its response.
 */
export async function signInOverHttp(startUrl: string, user: string, opts: WalkOptions = {}): Promise<SignInResult> {
  return walk(startUrl, user, opts);
}

/**
 * Sign out over plain HTTP from `startUrl` (the RP's logout URL, with `issuer`, or the provider's
 * end_session URL with `id_token_hint`/`post_logout_redirect_uri`), confirming the provider's
 * "Sign out?" form; ends at the post-logout redirect (fetched once) or the "Signed out" page.
 */
export async function signOutOverHttp(startUrl: string, opts: WalkOptions & { readonly cookies: CookieJar }): Promise<ProviderWalk> {
  return walk(startUrl, null, opts);
}
