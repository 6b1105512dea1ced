import { isIP } from 'node:net';
import * as z from 'zod';
import { Duration, NonEmpty, Secret } from './config-parts';

// `serve:` — how serve mode is reached when a team shares it: the URL people open, and who they
// are (an OIDC sign-in, or a trusted reverse proxy's header). Without `serve.auth`, serve keeps
// its per-run token.

/** An http(s) URL without a path, query or fragment: where people open the console. */
const PublicUrl = z.string().superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `expected the URL people open, such as "https://loopdeck.example.com", got ${JSON.stringify(text)}` });
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: `expected an http:// or https:// URL, got ${JSON.stringify(text)}` });
  else if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    ctx.addIssue({ code: 'custom', message: `expected the console at the root of its host (no path, query or fragment), got ${JSON.stringify(text)}` });
  }
});

/** An HTTP header name. */
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected an HTTP header name such as "X-Forwarded-User"');

/** Who holds a role: user names, `group:<name>` for a group, `*` for anyone signed in. */
const Members = z.array(NonEmpty).default([]);

/** OpenID Connect sign-in: authorization code with PKCE. */
export const OidcConfigSchema = z
  .object({
    /** The provider's issuer URL; its discovery document is `<issuer>/.well-known/openid-configuration`. */
    issuer: z.url({ protocol: /^https?$/, error: 'expected the provider\'s issuer URL such as "https://id.example.com/realms/ops"' }),
    clientId: NonEmpty,
    /** `env:NAME`; absent for a public client (PKCE alone). */
    clientSecret: Secret.optional(),
    scopes: z.array(NonEmpty).default(['openid', 'profile', 'email']),
    /** The ID token (or userinfo) claim holding the user's groups. */
    groupsClaim: NonEmpty.default('groups'),
    /** The claim naming the user, as roles and records spell them. */
    userClaim: NonEmpty.default('preferred_username'),
    /** Only members of one of these groups may sign in at all. */
    allowed: z.object({ groups: z.array(NonEmpty).min(1, 'expected at least one group') }).strict().optional(),
    /** How long a sign-in lasts before the console asks again. */
    session: Duration.default(8 * 3_600_000),
  })
  .strict();

/** `serve.auth`: one way to know who is there, and who may do what. */
export const ServeAuthSchema = z
  .object({
    oidc: OidcConfigSchema.optional(),
    /** A reverse proxy that has signed people in names them in this header (Grafana's `auth.proxy`). */
    proxyHeader: HeaderName.optional(),
    /** With `proxyHeader`: the proxy's header listing the user's groups, comma-separated. */
    groupsHeader: HeaderName.optional(),
    /** With `proxyHeader`: the addresses the proxy connects from; the header from any other is refused. */
    trustedProxies: z.array(z.string().refine((a) => isIP(a) !== 0, { message: 'expected an IP address such as "127.0.0.1"' })).optional(),
    roles: z
      .object({ admin: Members, operator: Members, viewer: Members })
      .strict()
      .refine((r) => r.admin.length + r.operator.length + r.viewer.length > 0, { message: 'expected someone in admin, operator or viewer: with no one in a role, everyone is refused' }),
  })
  .strict()
  .superRefine((a, ctx) => {
    if ((a.oidc === undefined) === (a.proxyHeader === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'expected one of oidc (Loopdeck signs people in) or proxyHeader (a reverse proxy in front has), not both or neither' });
    }
    if (a.proxyHeader !== undefined && !a.trustedProxies?.length) {
      ctx.addIssue({ code: 'custom', path: ['trustedProxies'], message: 'required with proxyHeader: the addresses the proxy connects from (anyone else could send the header)' });
    }
    if (a.proxyHeader === undefined) {
      for (const key of ['groupsHeader', 'trustedProxies'] as const) {
        if (a[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'only with proxyHeader' });
      }
    }
  });

/** `serve:` */
export const ServeConfigSchema = z
  .object({
    /** The URL people open (a reverse proxy's, say): its host is the one requests may name, and sign-in returns to it. */
    publicUrl: PublicUrl.optional(),
    auth: ServeAuthSchema.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.auth?.oidc && s.publicUrl === undefined) {
      ctx.addIssue({ code: 'custom', path: ['publicUrl'], message: 'required with auth.oidc: the provider sends people back to <publicUrl>/auth/callback, registered as the client\'s redirect URI' });
    }
  });

/** A validated `serve:` section. */
export type ServeConfig = z.output<typeof ServeConfigSchema>;
/** A validated `serve.auth`. */
export type ServeAuthConfig = z.output<typeof ServeAuthSchema>;
/** A validated `serve.auth.oidc`. */
export type OidcConfig = z.output<typeof OidcConfigSchema>;
