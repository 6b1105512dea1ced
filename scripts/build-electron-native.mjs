#!/usr/bin/env node
// Build better-sqlite3 for Electron's ABI into native/electron/better_sqlite3.node.
//
// Why: node_modules/better-sqlite3 is compiled for Node's ABI, and must stay that way — vitest,
// `loopdeck serve` and the CLI load it in plain Node. Electron embeds a different V8/ABI, so the
// desktop app needs its own build. Rather than rebuilding node_modules in place (which would break
// the Node side, and is what electron-builder's npmRebuild would do), this copies the package to a
// scratch project, rebuilds it there with @electron/rebuild, and keeps only the .node file.
// electron-builder.yml ships it as resources/native/better_sqlite3.node; unpackaged runs
// (`electron-vite dev`) load it from native/electron/. The shell passes the path to the store as
// better-sqlite3's `nativeBinding` option (main/electron/launch-options.ts).
//
// Usage:  node scripts/build-electron-native.mjs [--arch x64|arm64]
// Needs:  network (Electron headers, or a prebuilt binary from better-sqlite3's releases) and,
//         when no prebuilt binary fits, a C++ toolchain with Python for node-gyp.
//         It cannot cross-compile: build on each target OS.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rebuild } from '@electron/rebuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const arch = argValue('--arch') ?? process.arch;
const electronPkg = path.join(root, 'node_modules', 'electron', 'package.json');
const sqlitePkgDir = path.join(root, 'node_modules', 'better-sqlite3');
if (!existsSync(electronPkg) || !existsSync(sqlitePkgDir)) {
  console.error('build-electron-native: run `npm install` first (electron and better-sqlite3 must be in node_modules).');
  process.exit(1);
}
const electronVersion = readJson(electronPkg).version;
const sqliteVersion = readJson(path.join(sqlitePkgDir, 'package.json')).version;

// The scratch project lives inside the repository so that Node resolution from it still reaches
// the repository's node_modules (bindings, prebuild-install, node-gyp), while @electron/rebuild,
// bounded by projectRootPath, only ever sees the copy.
const work = path.join(root, 'native', '.rebuild-work');
const outDir = path.join(root, 'native', 'electron');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, 'node_modules'), { recursive: true });
try {
  writeFileSync(
    path.join(work, 'package.json'),
    JSON.stringify({ name: 'loopdeck-native-build', private: true, dependencies: { 'better-sqlite3': sqliteVersion } }, null, 2),
  );
  const copy = path.join(work, 'node_modules', 'better-sqlite3');
  // Leave out the Node-ABI build so nothing of it can be mistaken for the result.
  cpSync(sqlitePkgDir, copy, {
    recursive: true,
    filter: (src) => path.relative(sqlitePkgDir, src).split(path.sep)[0] !== 'build',
  });

  console.log(`build-electron-native: better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (${process.platform}-${arch})`);
  await rebuild({
    buildPath: work,
    projectRootPath: work,
    electronVersion,
    arch,
    onlyModules: ['better-sqlite3'],
    types: ['prod'],
    force: true,
    mode: 'sequential',
  });

  const built = path.join(copy, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built)) throw new Error(`the rebuild finished but ${built} is missing`);
  mkdirSync(outDir, { recursive: true });
  copyFileSync(built, path.join(outDir, 'better_sqlite3.node'));
  const abiFile = path.join(root, 'node_modules', 'electron', 'abi_version');
  writeFileSync(
    path.join(outDir, 'better_sqlite3.json'),
    `${JSON.stringify(
      {
        betterSqlite3: sqliteVersion,
        electron: electronVersion,
        abi: existsSync(abiFile) ? readFileSync(abiFile, 'utf8').trim() : undefined,
        platform: process.platform,
        arch,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`build-electron-native: wrote ${path.relative(root, path.join(outDir, 'better_sqlite3.node'))}`);
} catch (err) {
  console.error(`build-electron-native: failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error('Check network access to the Electron headers and that a C++ toolchain and Python are installed.');
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
