import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';
import {
  contentSecurityPolicy,
  decideNavigation,
  isAllowedExternalUrl,
  isTrustedSenderUrl,
  withContentSecurityPolicy,
  type RendererLocation,
} from './security';

const packaged: RendererLocation = { fileUrl: 'file:///opt/Loopdeck/resources/app.asar/out/renderer/index.html' };
const dev: RendererLocation = { ...packaged, devServerUrl: 'http://localhost:5173' };

describe('CSP', () => {
  it('is the shared policy in a packaged app', () => {
    expect(contentSecurityPolicy()).toBe(CONTENT_SECURITY_POLICY_HEADER);
  });

  it('relaxes only inline script and style and the HMR socket for the dev server', () => {
    const csp = contentSecurityPolicy('http://localhost:5173/');
    expect(csp).toContain("script-src 'self' 'unsafe-inline'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("connect-src 'self' ws://localhost:5173");
    expect(csp).toContain("default-src 'self';");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/unsafe-eval/);
  });

  it('replaces any CSP the response carried, whatever its case, and keeps other headers', () => {
    const out = withContentSecurityPolicy({ 'content-security-policy': ['default-src *'], 'X-Other': 'a', 'Set-Cookie': ['1', '2'] }, 'x');
    expect(out).toEqual({ 'Content-Security-Policy': ['x'], 'X-Other': ['a'], 'Set-Cookie': ['1', '2'] });
  });
});

describe('isAllowedExternalUrl', () => {
  it.each([
    ['https://github.com/org/repo/pull/12', true],
    ['HTTPS://example.com', true],
    ['http://example.com', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['ms-msdt:/id', false],
    ['smb://host/share', false],
    ['https://user:pw@example.com/', false],
    ['https://', false],
    ['not a url', false],
    ['', false],
  ])('%s → %s', (url, allowed) => {
    expect(isAllowedExternalUrl(url)).toBe(allowed);
  });
});

describe('isTrustedSenderUrl', () => {
  it('trusts the app document, with any hash or query', () => {
    expect(isTrustedSenderUrl(packaged.fileUrl, packaged)).toBe(true);
    expect(isTrustedSenderUrl(`${packaged.fileUrl}#/loops/nightly`, packaged)).toBe(true);
    expect(isTrustedSenderUrl(`${packaged.fileUrl}?x=1`, packaged)).toBe(true);
  });

  it('refuses other files, other schemes and garbage', () => {
    expect(isTrustedSenderUrl('file:///tmp/evil.html', packaged)).toBe(false);
    expect(isTrustedSenderUrl('file:///opt/Loopdeck/resources/app.asar/out/renderer/other.html', packaged)).toBe(false);
    expect(isTrustedSenderUrl('file://host/opt/Loopdeck/resources/app.asar/out/renderer/index.html', packaged)).toBe(false);
    expect(isTrustedSenderUrl('https://evil.example/', packaged)).toBe(false);
    expect(isTrustedSenderUrl('http://localhost:5173/', packaged)).toBe(false);
    expect(isTrustedSenderUrl('about:blank', packaged)).toBe(false);
    expect(isTrustedSenderUrl('', packaged)).toBe(false);
  });

  it('trusts the dev server origin only when one is configured', () => {
    expect(isTrustedSenderUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isTrustedSenderUrl('http://localhost:5173/src/App.tsx', dev)).toBe(true);
    expect(isTrustedSenderUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isTrustedSenderUrl('http://127.0.0.1:5173/', dev)).toBe(false);
    expect(isTrustedSenderUrl(packaged.fileUrl, dev)).toBe(true);
  });

  it('never trusts a non-http dev server URL', () => {
    expect(isTrustedSenderUrl('javascript:1', { ...packaged, devServerUrl: 'javascript:1' })).toBe(false);
  });
});

describe('decideNavigation', () => {
  it('lets the app reload itself but opens no window for it', () => {
    expect(decideNavigation(packaged.fileUrl, packaged, 'navigate')).toBe('allow');
    expect(decideNavigation(packaged.fileUrl, packaged, 'new-window')).toBe('deny');
  });

  it('sends https elsewhere and refuses everything else', () => {
    expect(decideNavigation('https://github.com/', packaged, 'navigate')).toBe('open-external');
    expect(decideNavigation('https://github.com/', packaged, 'new-window')).toBe('open-external');
    expect(decideNavigation('http://github.com/', packaged, 'new-window')).toBe('deny');
    expect(decideNavigation('file:///tmp/x.html', packaged, 'navigate')).toBe('deny');
  });
});
