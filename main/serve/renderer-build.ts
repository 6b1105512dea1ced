import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's renderer build config, when serve runs from a checkout (not from a package). */
const VITE_CONFIG = fileURLToPath(new URL('../../renderer/vite.config.ts', import.meta.url));

/** Whether a renderer build is in this folder. */
export function rendererBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * Make sure serve has a renderer to send: on a fresh clone (`npm install && npx loopdeck serve`)
 * none is built yet, so build it once into `dir` with the checkout's own Vite config, saying so.
 * Throws, naming the folder and the command, when it cannot.
 */
export function ensureRenderer(dir: string, say: (line: string) => void = (l) => console.log(l)): void {
  if (rendererBuilt(dir)) return;
  if (!existsSync(VITE_CONFIG)) throw new Error(`Loopdeck's renderer is not built (no ${join(dir, 'index.html')}), and there is no renderer/vite.config.ts to build it with.`);
  say(`loopdeck: the renderer is not built yet (no ${join(dir, 'index.html')}); building it once (vite build)…`);
  const vite = join(dirname(VITE_CONFIG), '..', 'node_modules', 'vite', 'bin', 'vite.js');
  // Built beside the folder and moved into place whole: two serves starting at once never see half a build.
  const building = `${dir}.building-${process.pid}`;
  try {
    // Vite's own output (its warnings about its config loader, chunk sizes) is kept, not passed on:
    // serve's terminal carries Loopdeck's lines alone. It is shown when the build fails.
    const out = spawnSync(process.execPath, [vite, 'build', '--config', VITE_CONFIG, '--outDir', building, '--emptyOutDir', '--logLevel', 'warn'], {
      cwd: join(dirname(VITE_CONFIG), '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 4 * 1024 * 1024,
    });
    if (out.status !== 0 || !rendererBuilt(building)) {
      const said = `${out.stdout ?? ''}${out.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
      throw new Error(
        `Building the renderer into ${dir} failed (${out.error?.message ?? `exit ${out.status}`}); run \`npm run build:renderer\` and start again.${said ? `\nVite said:\n${said}` : ''}`,
      );
    }
    if (rendererBuilt(dir)) return;
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(building, dir);
    } catch (err) {
      if (!rendererBuilt(dir)) throw err;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}
