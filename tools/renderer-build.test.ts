// The one renderer build: both `npm run build:renderer` and `npm run build` (electron-vite) use
// renderer/vite.config.ts, and the page it builds carries the shared CSP as a <meta> tag.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import electronViteConfig from '../electron.vite.config';
import { rendererConfig } from '../renderer/vite.config';
import { CONTENT_SECURITY_POLICY } from '../shared/csp';

/** The content of the built page's CSP <meta> tag, entities decoded. */
function metaPolicy(html: string): string | undefined {
  const tag = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  return tag?.[1]?.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

describe('the renderer build', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'ld-renderer-build-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('is one config: electron-vite builds the renderer with renderer/vite.config.ts itself', () => {
    expect((electronViteConfig as { renderer?: unknown }).renderer).toBe(rendererConfig);
  });

  it('puts the shared CSP in index.html, once, before anything loads', async () => {
    await build({ ...rendererConfig, configFile: false, logLevel: 'silent', build: { ...rendererConfig.build, outDir } });
    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    expect(metaPolicy(html)).toBe(CONTENT_SECURITY_POLICY);
    expect(html.match(/Content-Security-Policy/g)).toHaveLength(1);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
    // Nothing inline the policy would block.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);
  });
});
