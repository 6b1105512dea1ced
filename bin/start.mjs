#!/usr/bin/env node
// `npm start`: the desktop app when Electron's binary is present; otherwise the same console in
// serve mode, saying why and which URL to open. Extra arguments go to the shell (e.g. --config).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron binary's path when it is installed, else null (it downloads on first launch). */
function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

function run(cmd, cmdArgs) {
  const out = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (out.status !== 0) process.exit(out.status ?? 1);
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
if (electronBinary() && process.env.LOOPDECK_SERVE !== '1') {
  run(npx, ['electron-vite', 'build']);
  const child = spawn(npx, ['electron-vite', 'preview', '--skipBuild', '--', ...args], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(
    process.env.LOOPDECK_SERVE === '1'
      ? 'loopdeck: LOOPDECK_SERVE=1, starting serve mode.'
      : "loopdeck: Electron's binary is not installed (electron downloads it on first launch, and this machine\n" +
          'could not fetch it), so the console starts in serve mode: the same app, in your browser.\n' +
          'Install it later with `node node_modules/electron/install.js` to get the desktop app.',
  );
  run(npx, ['vite', 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']);
  // The CLI bundled (out/cli/loopdeck.mjs) starts ~200 ms sooner than the sources through tsx.
  run(process.execPath, [join(root, 'scripts', 'build-cli.mjs')]);
  const child = spawn(process.execPath, [join(root, 'out', 'cli', 'loopdeck.mjs'), 'serve', ...args], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}
