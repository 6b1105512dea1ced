import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../testing/runner-fixture';
import { servedUrl } from '../testing/served-url';
import { until } from '../testing/until';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../out/cli/loopdeck.mjs', import.meta.url));

describe('the bundled CLI (what npm start runs)', () => {
  it('builds, checks a config, and serves the renderer from the same folder as the sources do', async () => {
    execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: ROOT });
    const fx = createRunnerFixture();
    expect(execFileSync(process.execPath, [BUNDLE, 'check', '--config', fx.configPath], { encoding: 'utf8' })).toMatch(/ok|valid/i);
    const child = spawn(process.execPath, [BUNDLE, 'serve', '--port', '0', '--config', fx.configPath, '--data', fx.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const { url } = await servedUrl(child, { timeoutMs: 20_000 });
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

  it('starts the demo (it loads the engine schema, which the split bundle has not loaded yet)', async () => {
    execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: ROOT });
    const child = spawn(process.execPath, [BUNDLE, 'demo', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // A hang limit: alone the demo serves in ~3 s (it makes its runner folder and git clones
      // first); in the full suite on two cores it took 20–30 s, and once more than 30.
      const { url } = await servedUrl(child, { timeoutMs: 90_000, name: 'loopdeck demo' });
      expect((await fetch(url)).status).not.toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
  }, 150_000);

  it('does not load ssh2 when no host is reached over SSH (it is ~60-100 ms of a start)', async () => {
    execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: ROOT });
    const fx = createRunnerFixture();
    // Preloaded into serve: on SIGUSR2, write the CommonJS modules loaded so far.
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-probe-'));
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'modules.json');
    writeFileSync(probe, `process.on('SIGUSR2', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));`);
    const child = spawn(process.execPath, ['--require', probe, BUNDLE, 'serve', '--port', '0', '--config', fx.configPath, '--data', fx.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await servedUrl(child, { timeoutMs: 20_000 });
      // The first read has begun (no saved summary): its file is in the store.
      await until(() => existsSync(join(fx.dataDir, 'loopdeck.db')), 20_000, 'the store');
      child.kill('SIGUSR2');
      await until(() => existsSync(out), 20_000, 'the probe to write the loaded modules');
      const modules = JSON.parse(readFileSync(out, 'utf8')) as string[];
      expect(modules.some((m) => m.includes('better-sqlite3'))).toBe(true);
      expect(modules.filter((m) => m.includes('/node_modules/ssh2/'))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});
