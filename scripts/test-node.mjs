#!/usr/bin/env node
// `npm run test:node24` (`node scripts/test-node.mjs <major> [--keep] [[--] <vitest args>]`): the unit and
// integration suite (vitest, as `npm run test:unit` runs it) under another Node major, here 24 LTS,
// while the machine's own Node (20) keeps running everything else.
//
// Why this shape: only the npm registry may be reachable (no nodejs.org, no GitHub), so Node comes
// from the registry's `node-<platform>-<arch>` package, which carries the headers node-gyp needs
// (`--nodedir`), and better-sqlite3 is compiled from its sources, since its prebuilt download is on
// GitHub. node_modules/better-sqlite3 is built for the machine's Node and must stay so; so the
// suite runs in a scratch tree: a copy of the checkout's sources whose node_modules links to every
// package of the checkout's except better-sqlite3, which is a copy rebuilt for the other Node.
// Sources are copied, not linked: Node and Vite resolve a link to its real path, and a test file or
// a child process (`loopdeck snapshot`, `--import tsx`) whose real path is in the checkout would
// load the checkout's better-sqlite3. The other Node's bin folder is first in PATH, and the tests
// start children with process.execPath, so every process of the run is that Node.
// The scratch folder is removed afterwards; --keep leaves it (and says where).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: node scripts/test-node.mjs <node major, e.g. 24> [--keep] [[--] <vitest args, e.g. a test file>]';
/** Checkout entries that are not copied into the scratch tree: packages, history, outputs of other runs. */
const NOT_COPIED = new Set(['node_modules', '.git', 'test-results', 'playwright-report', 'dist', 'release', 'native']);
/** node_modules entries not linked: better-sqlite3 (copied and rebuilt), and caches a run writes (the scratch tree gets its own). */
const NOT_LINKED = new Set(['better-sqlite3', '.vite', '.vitest', '.cache']);

// Everything after the major but --keep goes to vitest (`npm run test:node24 -- main/cli.test.ts`); so does all after `--`.
const dash = process.argv.indexOf('--');
const [major, ...rest] = dash >= 0 ? process.argv.slice(2, dash) : process.argv.slice(2);
const keep = rest.includes('--keep');
const vitestArgs = [...rest.filter((a) => a !== '--keep'), ...(dash >= 0 ? process.argv.slice(dash + 1) : [])];
if (!major || !/^\d+$/.test(major)) {
  console.error(`test-node: ${USAGE}`);
  process.exit(2);
}

const say = (line) => console.log(`test-node: ${line}`);
const scratch = mkdtempSync(join(tmpdir(), `loopdeck-node${major}-`));
/** The machine's environment without what `npm run` adds (npm_config_* steer node-gyp; NODE names the machine's Node). */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE'));

function cleanup() {
  if (keep) say(`kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}

function fail(message) {
  console.error(`test-node: ${message}`);
  cleanup();
  process.exit(1);
}

/** Runs a step to completion, its output kept and shown (the last 80 lines) only when it fails, naming the step. */
function step(what, cmd, args, options) {
  const out = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (out.error) fail(`${what} could not start: ${out.error.message}`);
  if (out.status !== 0) {
    console.error(`${out.stdout}${out.stderr}`.trim().split('\n').slice(-80).join('\n'));
    fail(`${what} failed (exit ${out.status ?? out.signal}).`);
  }
}

/** The sha256 and mtime of a file, to show it was left alone. */
function fingerprint(file) {
  return `${createHash('sha256').update(readFileSync(file)).digest('hex')} ${statSync(file).mtimeMs}`;
}

/** Opens an in-memory database with the better-sqlite3 in `pkgDir` under `node`; returns SQLite's version, or fails naming both. */
function checkLoads(node, pkgDir, which) {
  const script = `const D = require(${JSON.stringify(pkgDir)}); process.stdout.write(new D(':memory:').prepare('select sqlite_version() v').get().v)`;
  const out = spawnSync(node, ['-e', script], { encoding: 'utf8', env: baseEnv });
  if (out.status !== 0) fail(`${which}: better-sqlite3 at ${pkgDir} does not load under ${node}:\n${(out.stderr || out.error?.message || '').trim()}`);
  return out.stdout;
}

// 1. Node <major> from the npm registry.
const platform = process.platform === 'win32' ? 'win' : process.platform;
const nodePkg = `node-${platform}-${process.arch}`;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
say(`installing ${nodePkg}@${major} from the npm registry into ${scratch}`);
mkdirSync(join(scratch, 'node'));
step(`\`npm install ${nodePkg}@${major}\``, npm, ['install', '--prefix', join(scratch, 'node'), `${nodePkg}@${major}`, '--no-audit', '--no-fund', '--loglevel=error'], {
  cwd: join(scratch, 'node'),
  env: baseEnv,
  shell: process.platform === 'win32',
});
const nodeDir = join(scratch, 'node', 'node_modules', nodePkg);
const nodeBin = join(nodeDir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
const version = spawnSync(nodeBin, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
if (!version.startsWith(`v${major}.`)) fail(`${nodeBin} says ${JSON.stringify(version)}, not Node ${major}.`);
if (!existsSync(join(nodeDir, 'include', 'node', 'node.h'))) fail(`${nodePkg} has no headers at ${join(nodeDir, 'include', 'node')}; node-gyp needs them.`);
const env = { ...baseEnv, PATH: `${join(nodeDir, 'bin')}${delimiter}${baseEnv.PATH ?? ''}` };

// 2. The scratch tree: the checkout's sources, its packages linked, better-sqlite3 copied and rebuilt.
const tree = join(scratch, 'tree');
for (const entry of readdirSync(root)) {
  if (!NOT_COPIED.has(entry)) cpSync(join(root, entry), join(tree, entry), { recursive: true, verbatimSymlinks: true });
}
const modules = join(root, 'node_modules');
mkdirSync(join(tree, 'node_modules'));
for (const entry of readdirSync(modules)) {
  if (!NOT_LINKED.has(entry)) symlinkSync(join(modules, entry), join(tree, 'node_modules', entry), 'junction');
}
const sqliteDir = join(modules, 'better-sqlite3');
const sqliteVersion = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')).version;
const ownBuild = join(sqliteDir, 'build', 'Release', 'better_sqlite3.node');
const before = existsSync(ownBuild) ? fingerprint(ownBuild) : null;
const sqliteCopy = join(tree, 'node_modules', 'better-sqlite3');
cpSync(sqliteDir, sqliteCopy, { recursive: true, filter: (src) => relative(sqliteDir, src).split(sep)[0] !== 'build' });

const nodeGyp = [join(modules, 'node-gyp', 'bin', 'node-gyp.js'), join(dirname(process.env.npm_execpath ?? ''), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')].find(
  (p) => existsSync(p),
);
if (!nodeGyp) fail('node-gyp is in neither node_modules/node-gyp nor npm\'s own node_modules: run `npm ci`.');
say(`building better-sqlite3 ${sqliteVersion} for Node ${version} (node-gyp, headers from ${nodePkg})`);
step(
  `\`node-gyp rebuild\` of better-sqlite3 ${sqliteVersion} for Node ${version} in ${sqliteCopy}`,
  nodeBin,
  [nodeGyp, 'rebuild', '--release', `--nodedir=${nodeDir}`, `--devdir=${join(scratch, 'node-gyp')}`],
  { cwd: sqliteCopy, env },
);
const sqlite = checkLoads(nodeBin, sqliteCopy, `the Node ${major} build`);
if (before !== null && fingerprint(ownBuild) !== before) fail(`${ownBuild} changed during the build; it must stay the machine Node's.`);
if (before !== null) checkLoads(process.execPath, sqliteDir, `the checkout's build, under the machine's Node ${process.version}`);
say(`Node ${version} at ${nodeBin}; better-sqlite3 ${sqliteVersion} (SQLite ${sqlite}) built for it in ${sqliteCopy}`);

// 3. The suite, as `npm run test:unit` runs it, under that Node.
const vitest = spawn(nodeBin, [join(tree, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...vitestArgs], { cwd: tree, env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => vitest.kill(signal));
vitest.on('error', (err) => fail(`vitest could not start under ${nodeBin}: ${err.message}`));
vitest.on('exit', (code, signal) => {
  say(`vitest under Node ${version} exited ${code ?? signal}`);
  if (before !== null && fingerprint(ownBuild) !== before) fail(`${ownBuild} changed during the run; it must stay the machine Node's.`);
  cleanup();
  process.exit(code ?? 1);
});
