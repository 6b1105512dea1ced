import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../testing/runner-fixture';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../out/cli/loopdeck.mjs', import.meta.url));

describe('the bundled CLI (what npm start runs)', () => {
  it('builds, checks a config, and serves the renderer from the same folder as the sources do', async () => {
    execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: ROOT });
    const fx = createRunnerFixture();
    expect(execFileSync(process.execPath, [BUNDLE, 'check', '--config', fx.configPath], { encoding: 'utf8' })).toMatch(/ok|valid/i);
    const child = spawn(process.execPath, [BUNDLE, 'serve', '--port', '0', '--config', fx.configPath, '--data', fx.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${out}`)), 20_000);
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /serving at (http:\/\/\S+)/.exec(out);
          if (m?.[1]) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const res = await fetch(url);
      const body = await res.text();
      // Built or not, the page comes from <root>/out/renderer: the bundle resolves it like the sources.
      if (res.status === 503) expect(body).toContain(`${ROOT}out/renderer/index.html`);
      else {
        expect(res.status).toBe(200);
        expect(body).toContain('<div id="root">');
      }
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});
