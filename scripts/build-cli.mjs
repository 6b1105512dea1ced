#!/usr/bin/env node
// Bundle the CLI (serve, watch, snapshot, ...) into out/cli/loopdeck.mjs and the chunks beside it, so
// starting it skips tsx's loader and on-the-fly TypeScript (about 200 ms of every start), and the pure-JS npm
// packages are in it too: Node's ESM loader resolving and compiling zod's, yaml's and
// prom-client's hundreds of files cost another ~100 ms. Left as imports: packages with native
// parts (better-sqlite3; ssh2, whose optional bindings it finds relative to itself) and what a
// CLI never loads. The bundle is split where the sources import a module when it is needed
// (`await import(...)`: each verb, and the core that session.ts opens after serve listens), so a
// start parses and runs only what it uses: serve printed its URL ~50 ms sooner than from one file. zod is imported as a namespace (`import * as z`, held by the lint): with
// `import { z }` esbuild keeps every one of zod's locales (~370 kB of the bundle). `npm start` and
// `npm run bench` run this bundle; `bin/loopdeck.mjs` keeps running the sources through tsx, so a
// checkout never runs stale code by accident.
// The bundle sits two folders below the root like main/serve/server.ts does, so paths that
// module resolves against import.meta.url (out/renderer) are the same from both.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUNDLE = join(root, 'out', 'cli', 'loopdeck.mjs');
// `--out FILE` bundles elsewhere (the tests' own copy, out/test-cli/, built once per test run);
// it must sit two folders below the root too.
const outAt = process.argv.indexOf('--out');
const outfile = outAt > 0 && process.argv[outAt + 1] ? resolve(process.argv[outAt + 1]) : CLI_BUNDLE;

/** Packages the bundle imports at run time instead of containing. */
const EXTERNAL = ['better-sqlite3', 'ssh2', 'cpu-features', 'electron'];

const outdir = dirname(outfile);
const result = await build({
  entryPoints: { [basename(outfile, '.mjs')]: join(root, 'main', 'cli.ts') },
  outdir,
  outExtension: { '.js': '.mjs' },
  // Chunks beside the entry, not in a folder of their own: what resolves against import.meta.url
  // (out/renderer) must be two folders below the root from every file.
  chunkNames: 'chunk-[hash]',
  splitting: true,
  metafile: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
  banner: { js: "import { createRequire as loopdeckCreateRequire } from 'node:module';\nconst require = loopdeckCreateRequire(import.meta.url);" },
  sourcemap: true,
  // Whitespace and syntax only: names stay, so a stack trace in the log still reads (its lines
  // map back through the .map file). ~1.0 MB instead of ~1.7: V8 compiles it ~45 ms sooner.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

// Chunks of earlier builds (their names are their contents' hashes) are removed; this build's stay.
const written = new Set(Object.keys(result.metafile.outputs).map((f) => basename(f)));
for (const f of readdirSync(outdir)) {
  if (/^chunk-.*\.mjs(\.map)?$/.test(f) && !written.has(f)) rmSync(join(outdir, f), { force: true });
}
