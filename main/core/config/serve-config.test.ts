import { describe, expect, it } from 'vitest';
import { parseConfig } from './load-config';

const oidc = 'serve:\n  publicUrl: "https://deck.example.com"\n  auth:\n    oidc: { issuer: "https://id.example.com/realms/ops", clientId: loopdeck, clientSecret: "env:LOOPDECK_OIDC_SECRET", allowed: { groups: [ops] } }\n    roles: { admin: [alice], operator: ["group:ops"] }\n';

describe('serve: in the config', () => {
  it('is optional (serve keeps its token), and reads an OIDC sign-in with its defaults', () => {
    expect(parseConfig('/c.yaml', 'hosts: {}\n').serve).toBeUndefined();
    expect(parseConfig('/c.yaml', oidc).serve).toEqual({
      publicUrl: 'https://deck.example.com',
      auth: {
        oidc: { issuer: 'https://id.example.com/realms/ops', clientId: 'loopdeck', clientSecret: 'env:LOOPDECK_OIDC_SECRET', scopes: ['openid', 'profile', 'email'], groupsClaim: 'groups', userClaim: 'preferred_username', allowed: { groups: ['ops'] }, session: 8 * 3_600_000 },
        roles: { admin: ['alice'], operator: ['group:ops'], viewer: [] },
      },
    });
  });

  it('reads a trusted proxy\'s header', () => {
    const text = 'serve:\n  auth:\n    proxyHeader: X-Forwarded-User\n    trustedProxies: [127.0.0.1, "::1"]\n    roles: { viewer: ["*"] }\n';
    expect(parseConfig('/c.yaml', text).serve?.auth).toMatchObject({ proxyHeader: 'X-Forwarded-User', trustedProxies: ['127.0.0.1', '::1'], roles: { viewer: ['*'] } });
  });

  it.each([
    ['both ways in', 'serve:\n  publicUrl: "https://d.example"\n  auth:\n    proxyHeader: X-User\n    trustedProxies: [127.0.0.1]\n    oidc: { issuer: "https://id.example", clientId: c }\n    roles: { admin: [a] }\n', /\/c\.yaml:4: serve\.auth: expected one of oidc .* or proxyHeader/],
    ['a proxy header without trusted proxies', 'serve:\n  auth:\n    proxyHeader: X-User\n    roles: { admin: [a] }\n', /serve\.auth\.trustedProxies: required with proxyHeader/],
    ['a trusted proxy that is not an address', 'serve:\n  auth:\n    proxyHeader: X-User\n    trustedProxies: [proxy.local]\n    roles: { admin: [a] }\n', /\/c\.yaml:4: serve\.auth\.trustedProxies\.0: expected an IP address/],
    ['no one in any role', 'serve:\n  auth:\n    proxyHeader: X-User\n    trustedProxies: [127.0.0.1]\n    roles: {}\n', /serve\.auth\.roles: expected someone in admin, operator or viewer/],
    ['OIDC without the public URL', 'serve:\n  auth:\n    oidc: { issuer: "https://id.example", clientId: c }\n    roles: { admin: [a] }\n', /serve\.publicUrl: required with auth\.oidc/],
    ['a public URL with a path', 'serve:\n  publicUrl: "https://d.example/loopdeck"\n', /serve\.publicUrl: expected the console at the root of its host/],
    ['a secret that is not env:NAME', 'serve:\n  publicUrl: "https://d.example"\n  auth:\n    oidc: { issuer: "https://id.example", clientId: c, clientSecret: "env:" }\n    roles: { admin: [a] }\n', /serve\.auth\.oidc\.clientSecret: expected "env:NAME"/],
    ['an unknown role', 'serve:\n  auth:\n    proxyHeader: X-User\n    trustedProxies: [127.0.0.1]\n    roles: { owner: [a] }\n', /serve\.auth\.roles: Unrecognized key: "owner"/],
  ])('refuses %s, naming the file, line and key', (_what, text, pattern) => {
    expect(() => parseConfig('/c.yaml', text)).toThrow(pattern);
  });
});
