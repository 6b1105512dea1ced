import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOOPDECK_BIN } from '../../testing/cli-run';
import { createRunnerFixture } from '../../testing/runner-fixture';
import { servedUrl } from '../../testing/served-url';

describe('serve on a fresh clone', () => {
  it('builds the renderer once when none is built, then serves it', async () => {
    const fixture = createRunnerFixture();
    const renderer = join(mkdtempSync(join(tmpdir(), 'ld-fresh-')), 'out', 'renderer');
    const child = spawn(process.execPath, [LOOPDECK_BIN, 'serve', '--config', fixture.configPath, '--data', fixture.dataDir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOOPDECK_RENDERER_DIR: renderer },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const { url, output } = await servedUrl(child, { timeoutMs: 110_000 });
      expect(output()).toMatch(/the renderer is not built yet .*building it once/);
      // Vite's own chatter (its config-loader warning) is not passed on to serve's terminal.
      expect(stderr).toBe('');
      const page = await fetch(url);
      expect(page.status, output()).toBe(200);
      const html = await page.text();
      const script = /<script type="module"[^>]* src="([^"]*assets\/index-[^"]+\.js)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      expect((await fetch(new URL(script ?? '', url), { headers: { cookie: page.headers.get('set-cookie') ?? '' } })).status).toBe(200);
      // Built whole beside the folder and moved into place: nothing half-built is left.
      expect(existsSync(join(renderer, 'index.html'))).toBe(true);
      expect(readdirSync(dirname(renderer)).filter((n) => n.includes('.building-'))).toEqual([]);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 120_000);
});
