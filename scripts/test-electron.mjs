#!/usr/bin/env node
// `npm run test:electron`: the Electron shell's own suite (e2e-electron/, Playwright's _electron
// against the built app). It needs Electron's binary, which `npm install` downloads from GitHub:
// where that download was not possible this fails, saying so, rather than skipping or passing.
// Then it builds the app (electron-vite), the Electron-ABI better-sqlite3 if it is missing or was
// built for another Electron, and runs the suite, under xvfb-run on a Linux box without a display.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const WHERE =
  'The Electron suite runs on a machine where `npx electron --version` works: run `npm ci` there with access to\n' +
  "Electron's downloads (github.com), or install the binary with `node node_modules/electron/install.js`.\n" +
  '`npm test` does not include it; the serve-mode suite (`npm run test:e2e`) covers the same console in Chromium.';

function fail(message) {
  console.error(`test:electron: ${message}\n${WHERE}`);
  process.exit(1);
}

/** The Electron binary (as e2e-electron/electron-app.ts finds it), or null when it is not installed. */
function electronBinary() {
  const fromEnv = process.env.LOOPDECK_ELECTRON;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  const pathFile = join(root, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(root, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

function run(cmd, args, what) {
  const out = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (out.error) fail(`${what} could not start: ${out.error.message}`);
  if (out.status !== 0) {
    console.error(`test:electron: ${what} failed (exit ${out.status ?? out.signal}).`);
    process.exit(out.status ?? 1);
  }
}

const bin = electronBinary();
if (!bin) {
  fail(
    process.env.LOOPDECK_ELECTRON
      ? `LOOPDECK_ELECTRON=${process.env.LOOPDECK_ELECTRON} does not exist.`
      : "Electron's binary is missing (node_modules/electron has no dist/): the electron package could not download it when it was installed.",
  );
}
const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE;
const version = spawnSync(bin, ['--version'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
if (version.status !== 0) {
  fail(`Electron's binary at ${bin} does not run (\`electron --version\`: ${version.error?.message ?? (version.stderr.trim() || `exit ${version.status}`)}).`);
}
const electronVersion = version.stdout.trim().replace(/^v/, '');
console.log(`test:electron: Electron ${electronVersion} at ${bin}`);

// A display: the window must really open. Linux CI boxes have none; xvfb-run gives one.
let wrap = [];
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  const xvfb = spawnSync('xvfb-run', ['--help'], { stdio: 'ignore' });
  if (xvfb.error) fail('there is no display (DISPLAY and WAYLAND_DISPLAY are unset) and xvfb-run is not installed (Debian: apt-get install xvfb).');
  wrap = ['xvfb-run', '-a', '--server-args=-screen 0 1400x900x24'];
}

run(npx, ['electron-vite', 'build'], '`electron-vite build`');

const native = join(root, 'native', 'electron');
const builtFor = existsSync(join(native, 'better_sqlite3.json')) ? JSON.parse(readFileSync(join(native, 'better_sqlite3.json'), 'utf8')).electron : null;
if (!existsSync(join(native, 'better_sqlite3.node')) || builtFor !== electronVersion) {
  console.log(`test:electron: building better-sqlite3 for Electron ${electronVersion} (native/electron/ has ${builtFor ? `a build for ${builtFor}` : 'none'})`);
  run(process.execPath, [join(root, 'scripts', 'build-electron-native.mjs')], 'scripts/build-electron-native.mjs');
}

const suite = [npx, 'playwright', 'test', '-c', 'playwright.electron.config.ts', ...process.argv.slice(2)];
const [cmd, ...args] = [...wrap, ...suite];
const out = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...env, LOOPDECK_ELECTRON: bin } });
if (out.error) fail(`the Playwright run could not start: ${out.error.message}`);
process.exit(out.status ?? 1);
