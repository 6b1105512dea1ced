#!/usr/bin/env node
// Bundle the CLI (serve, watch, snapshot, ...) into out/cli/loopdeck.mjs: one file with the npm
// packages left as imports, so starting it skips tsx's loader and on-the-fly TypeScript (about
// 200 ms of every start). `npm start` and `npm run bench` run this bundle; `bin/loopdeck.mjs`
// keeps running the sources through tsx, so a checkout never runs stale code by accident.
// The bundle sits two folders below the root like main/serve/server.ts does, so paths that
// module resolves against import.meta.url (out/renderer) are the same from both.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUNDLE = join(root, 'out', 'cli', 'loopdeck.mjs');

await build({
  entryPoints: [join(root, 'main', 'cli.ts')],
  outfile: CLI_BUNDLE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
