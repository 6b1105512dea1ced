// ESLint flat config. Besides the usual checks it enforces DESIGN.md's import rules as one
// allowlist per layer (eslint-plugin-boundaries): every file belongs to a layer, and a layer may
// import only what its policy lists — other layers, npm packages, node builtins — whether by
// `import`, `import type`, `export … from`, dynamic `import()` or `require()`. One rule holds all
// the policies, so no block can override another. A violating import fails `npm run lint`.
//
// main/core is three layers, each importing only itself and the layers below it:
//   core-plumbing  main/core/{config,text,store,logging,ssh,hosts,sources,follow,state}, clock.ts
//   core-feature   main/core/{loops,ledgers,transcripts,capacity,prs,notices,drills,preflight,
//                  nights,metrics,contract,demo,costs,compare,maintenance}: plumbing and other features
//   core-top       main/core/engine.ts, main/core/engine/, main/core/session/: all of main/core
// So a feature owns its tables (its migration text) and the engine assembles the schema
// (main/core/engine/migrations.ts); plumbing never reaches up into a feature or the engine.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import boundaries from 'eslint-plugin-boundaries';

const rule = (text) => `DESIGN.md import rule: ${text}`;

/** main/core's layers, by folder (see the comment at the top). */
const corePlumbing = ['config', 'text', 'store', 'logging', 'ssh', 'hosts', 'sources', 'follow', 'state'];
const coreFeatures = ['loops', 'ledgers', 'transcripts', 'capacity', 'prs', 'notices', 'drills', 'preflight', 'nights', 'metrics', 'contract', 'demo', 'costs', 'compare', 'maintenance'];
const coreTop = ['engine', 'session'];
const folders = (names) => `main/core/{${names.join(',')}}`;

/**
 * The layers: each folder below is one element (its pattern is a folder from the repo root). Single
 * files that are a layer of their own (the CLI entry, root configs) are file categories instead.
 * Element patterns match folders only, so the files directly under main/core are the element
 * 'core-root', which grants nothing: each takes its core layer from a file category of the same
 * name (clock.ts is plumbing, engine.ts is top; tests there are main-test), and a new file there
 * fails lint until it is given one.
 */
const layers = [
  { type: 'shared', pattern: 'shared' },
  { type: 'renderer', pattern: 'renderer' },
  { type: 'preload', pattern: 'preload' },
  { type: 'core-plumbing', pattern: folders(corePlumbing) },
  { type: 'core-feature', pattern: folders(coreFeatures) },
  { type: 'core-top', pattern: folders(coreTop) },
  { type: 'core-root', pattern: 'main/core' },
  { type: 'main-rpc', pattern: 'main/rpc' },
  { type: 'main-serve', pattern: 'main/serve' },
  { type: 'main-electron', pattern: 'main/electron' },
  { type: 'testing', pattern: 'testing' },
  { type: 'e2e', pattern: ['e2e', 'e2e-electron'] },
  { type: 'bench', pattern: 'bench' },
  { type: 'tooling', pattern: ['bin', 'scripts', 'tools'] },
].map((l) => ({ ...l, partialMatch: false }));

/** File categories, matched on the path from the repo root; a file may have several. */
const fileCategories = [
  { category: 'main-cli', pattern: ['main/cli.ts', 'main/cli-*.ts', 'main/cli*.test.ts'] },
  { category: 'core-plumbing', pattern: 'main/core/clock.ts' },
  { category: 'core-top', pattern: 'main/core/engine.ts' },
  { category: 'config', pattern: ['*.{js,mjs,ts}', 'renderer/vite.config.ts'] },
  { category: 'package-json', pattern: 'package.json' },
  { category: 'main-test', pattern: 'main/**/*.test.ts' },
  { category: 'renderer-test', pattern: 'renderer/**/*.test.{ts,tsx}' },
  { category: 'shared-test', pattern: 'shared/**/*.test.ts' },
].map((f) => ({ ...f, partialMatch: false }));

const to = (...types) => ({ element: { types: { anyOf: types } } });
const from = (type) => ({ element: { type } });
const fromFiles = (category) => ({ file: { categories: category } });
const pkg = (...sources) => ({ module: { origin: 'external', source: sources } });
const nodeBuiltins = { module: { origin: 'core' } };
const testLibs = pkg('vitest', 'fast-check');
/** A core layer: its folders (element type) and its files directly under main/core (file category). */
const core = (...layerTypes) => layerTypes.flatMap((t) => [to(t), fromFiles(t)]);
const allCore = core('core-plumbing', 'core-feature', 'core-top');
const coreExternals = [
  to('shared'), fromFiles('package-json'), nodeBuiltins,
  pkg('ssh2', 'better-sqlite3', 'zod', 'yaml', 'cron-parser', 'ssh-config', 'parse-prometheus-text-format', 'prom-client', '@octokit/core', 'nodemailer'),
];

/**
 * Who may import what: a dependency is allowed only if a policy below allows it (default
 * disallow), so each layer's policy is its whole allowlist.
 */
const policies = [
  // Imports inside one element (one layer folder: main/core/store, renderer…) are free; not among
  // the files directly under main/core (one element, 'core-root'), each of its own core layer.
  {
    from: [...new Set(layers.map((l) => l.type))].filter((t) => t !== 'core-root').map(from),
    dependency: { relationship: { to: 'internal' } },
    allow: { to: { element: { types: '*' } } },
  },
  { from: from('shared'), allow: { to: [to('shared'), pkg('zod')] } },
  {
    from: from('renderer'),
    allow: { to: [to('renderer', 'shared'), pkg('react', 'react-dom', 'zustand', 'zod', '@tanstack/react-virtual', '@tanstack/react-table', 'recharts')] },
  },
  { from: from('preload'), allow: { to: [to('shared'), pkg('electron')] } },
  // main/core: plumbing imports plumbing; features import plumbing and features; the top imports all of it.
  { from: core('core-plumbing'), allow: { to: [...core('core-plumbing'), ...coreExternals] } },
  { from: core('core-feature'), allow: { to: [...core('core-plumbing', 'core-feature'), ...coreExternals] } },
  { from: core('core-top'), allow: { to: [...allCore, ...coreExternals] } },
  { from: from('main-rpc'), allow: { to: [...allCore, to('shared'), nodeBuiltins, pkg('zod')] } },
  { from: from('main-serve'), allow: { to: [...allCore, to('main-rpc', 'shared'), nodeBuiltins, pkg('ws', 'zod', 'openid-client')] } },
  { from: fromFiles('main-cli'), allow: { to: [...allCore, to('main-serve', 'main-rpc', 'shared'), { file: { categories: 'main-cli' } }, nodeBuiltins, pkg('zod')] } },
  { from: from('main-electron'), allow: { to: [...allCore, to('main-rpc', 'shared'), nodeBuiltins, pkg('electron', 'zod')] } },
  { from: from('e2e'), allow: { to: [to('shared', 'testing'), nodeBuiltins, pkg('@playwright/test', '@axe-core/playwright')] } },
  // Tests beside main/ code may also reach the test helpers and the main/ layers they test through (never electron).
  { from: fromFiles('main-test'), allow: { to: [...allCore, to('main-rpc', 'main-serve', 'testing', 'shared'), nodeBuiltins, testLibs] } },
  { from: fromFiles('renderer-test'), allow: { to: [testLibs] } },
  { from: fromFiles('shared-test'), allow: { to: [testLibs] } },
  // Test helpers, benchmarks and tooling may import anything; only they and tests import them.
  { from: [from('testing'), from('bench'), from('tooling'), fromFiles('config')], allow: { to: [{ element: { types: '*' } }, { file: { categories: '*' } }, { module: { origin: '*' } }] } },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'release/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // esbuild keeps all of zod's locales behind `import { z }` (~370 kB of the CLI bundle).
      'no-restricted-syntax': ['error', {
        selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > :matches(ImportSpecifier[imported.name='z'][importKind!='type'], ImportDefaultSpecifier)",
        message: "Import zod as `import * as z from 'zod'`: esbuild keeps every locale behind `import { z }` (scripts/build-cli.mjs).",
      }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': layers,
      'boundaries/files': fileCategories,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
      // `import x = require('y')` in TypeScript.
      'boundaries/additional-dependency-nodes': [{ selector: 'TSExternalModuleReference > Literal', kind: 'value', name: 'import-require' }],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] } },
      'boundaries/legacy-templates': false,
    },
    rules: {
      'boundaries/dependencies': ['error', {
        default: 'disallow',
        checkAllOrigins: true,
        checkInternals: true,
        checkUnknownLocals: true,
        message: rule("{{from.file.path}} ({{#if from.element.type}}{{from.element.type}}{{else}}{{from.file.categories.[0]}}{{/if}}) may not import '{{dependency.source}}' (the layers are in docs/architecture.md)."),
        policies,
      }],
      'boundaries/no-unknown-files': 'error',
    },
  },
);
