import { describe, expect, it } from 'vitest';
import { externalHttpsUrl } from './links';

describe('externalHttpsUrl', () => {
  it('accepts absolute https URLs', () => {
    expect(externalHttpsUrl('https://github.com/acme/radon/pull/87')).toBe('https://github.com/acme/radon/pull/87');
    expect(externalHttpsUrl(' HTTPS://GitHub.com/a?x=1#y ')).toBe('https://github.com/a?x=1#y');
  });

  it('refuses every other scheme, relative URLs and junk', () => {
    for (const raw of [
      'http://github.com/acme/radon/pull/87',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,hi',
      '//github.com/a',
      '/pull/87',
      'github.com/a',
      'https://',
      '',
    ]) {
      expect(externalHttpsUrl(raw), raw).toBeNull();
    }
  });

  it('refuses URLs carrying credentials', () => {
    expect(externalHttpsUrl('https://user:pw@github.com/a')).toBeNull();
  });
});
