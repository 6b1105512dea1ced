import { describe, expect, it } from 'vitest';
import { buildContentSecurityPolicy, CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_HEADER } from './csp';

describe('the Content-Security-Policy', () => {
  it('allows our own files and the same-origin socket, and nothing else', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|data:|\*|https?:|wss?:/);
  });

  it('adds frame-ancestors only to the header, since a <meta> tag cannot carry it', () => {
    expect(CONTENT_SECURITY_POLICY).not.toContain('frame-ancestors');
    expect(CONTENT_SECURITY_POLICY_HEADER).toBe(`${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`);
  });

  it('adds a dev server’s sources to their directives only', () => {
    const dev = buildContentSecurityPolicy('meta', { script: ["'unsafe-inline'"], connect: ['ws://localhost:5173'] });
    expect(dev).toContain("script-src 'self' 'unsafe-inline';");
    expect(dev).toContain("connect-src 'self' ws://localhost:5173;");
    expect(dev).toContain("style-src 'self';");
    expect(dev).not.toMatch(/unsafe-eval/);
  });
});
