import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function messages(filePath: string, code: string, ruleId: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === ruleId).map((m) => m.message);
}

const importErrors = (filePath: string, code: string) => messages(filePath, code, 'boundaries/dependencies');

/** A probe that imports `spec` by the given means and uses it, so nothing else complains. */
function probe(spec: string, how: 'import' | 'type' | 'export' | 'dynamic' | 'require' | 'import-equals'): string {
  switch (how) {
    case 'import': return `import * as m from '${spec}';\nexport const a = m;\n`;
    case 'type': return `import type * as m from '${spec}';\nexport type A = typeof m;\n`;
    case 'export': return `export * from '${spec}';\n`;
    case 'dynamic': return `export const a = () => import('${spec}');\n`;
    // eslint's own no-require-imports would also fire; only the layer rule is counted here.
    case 'require': return `export const a = require('${spec}');\n`;
    case 'import-equals': return `import m = require('${spec}');\nexport const a = m;\n`;
  }
}

/** The import rules (eslint.config.js's layer table, described in the README's "How it is built"), checked through the project's real ESLint config on a probe file per case. */
describe('import rules', () => {
  it.each([
    // shared/ imports only shared/ and zod
    ['shared/x.ts', 'node:fs', 'import'],
    ['shared/x.ts', 'electron', 'import'],
    ['shared/x.ts', '../main/core/engine', 'import'],
    ['shared/x.ts', '../main/core/engine', 'export'],
    ['shared/x.ts', 'node:fs', 'require'],
    ['shared/x.ts', 'react', 'import'],
    // renderer/ imports renderer/ and shared/ only
    ['renderer/src/x.ts', '../../main/core/store/store', 'import'],
    ['renderer/src/x.ts', 'node:path', 'import'],
    ['renderer/src/x.ts', '../../testing/sshd', 'import'],
    ['renderer/src/lib/x.ts', '../../../testing/until', 'import'],
    ['renderer/src/x.ts', '../../bench/lib', 'import'],
    ['renderer/src/x.ts', '../../preload/index', 'import'],
    ['renderer/src/x.ts', '../../testing/sshd', 'export'],
    ['renderer/src/x.ts', '../../main/core/engine', 'dynamic'],
    ['renderer/src/x.test.ts', '../../testing/sshd', 'import'],
    // preload/ imports shared/ and electron only
    ['preload/x.ts', 'node:fs', 'import'],
    ['preload/x.ts', '../main/core/engine', 'import'],
    // main/core never imports electron nor the layers above it
    ['main/core/x.ts', 'electron', 'import'],
    ['main/core/x.ts', 'electron', 'dynamic'],
    ['main/core/x.ts', '../rpc/dispatch', 'import'],
    ['main/core/x.ts', '../rpc/dispatch', 'type'],
    ['main/core/x.ts', '../serve/server', 'import'],
    ['main/core/x.ts', '../electron/window', 'import'],
    ['main/core/x.ts', '../cli', 'import'],
    ['main/core/x.ts', 'react', 'import'],
    // electron only under main/electron, whatever the way in
    ['main/rpc/x.ts', 'electron', 'import'],
    ['main/rpc/x.ts', 'electron', 'require'],
    ['main/serve/x.ts', 'electron', 'import'],
    ['main/serve/x.ts', 'electron', 'import-equals'],
    ['main/cli.ts', 'electron', 'import'],
    ['main/cli.ts', 'electron', 'dynamic'],
    ['main/core/x.test.ts', 'electron', 'import'],
    // ssh2 and better-sqlite3 only under main/core
    ['main/serve/x.ts', 'better-sqlite3', 'import'],
    ['main/rpc/x.ts', 'ssh2', 'import'],
    ['main/electron/x.ts', 'ssh2', 'dynamic'],
    ['main/cli.ts', 'better-sqlite3', 'require'],
    // product code never imports test helpers or benchmarks
    ['main/core/x.ts', '../../testing/until', 'import'],
    ['main/serve/x.ts', '../../testing/sshd', 'import'],
    ['main/rpc/x.ts', '../../bench/lib', 'import'],
    ['main/core/x.test.ts', '../../bench/lib', 'import'],
    // e2e/ imports only shared/ and testing/ (and Playwright, node builtins)
    ['e2e/x.ts', '../main/core/engine', 'import'],
    ['e2e/x.ts', '../renderer/src/lib/format', 'import'],
    ['e2e/x.ts', '../bench/lib', 'import'],
    ['e2e/x.ts', '../main/serve/server', 'dynamic'],
    ['e2e/x.ts', 'ws', 'import'],
    ['e2e/x.ts', 'electron', 'import'],
    ['e2e-electron/x.ts', '../main/core/engine', 'import'],
  ] as const)('%s may not reach %s by %s', async (file, spec, how) => {
    const errors = await importErrors(file, probe(spec, how));
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/DESIGN\.md import rule/);
  });

  it.each([
    ['shared/x.ts', 'zod', 'import'],
    ['shared/x.ts', './domain', 'import'],
    ['renderer/src/x.ts', '../../shared/contract', 'import'],
    ['renderer/src/x.ts', 'react', 'import'],
    ['renderer/src/x.test.ts', 'vitest', 'import'],
    ['preload/x.ts', 'electron', 'import'],
    ['preload/x.ts', '../shared/ipc-bridge', 'import'],
    ['main/electron/x.ts', 'electron', 'import'],
    ['main/electron/x.ts', '../core/session/session', 'import'],
    ['main/core/x.ts', 'better-sqlite3', 'import'],
    ['main/core/x.ts', 'ssh2', 'dynamic'],
    ['main/core/x.ts', '../../shared/contract', 'type'],
    ['main/core/x.ts', 'node:fs', 'import'],
    ['main/core/loops/x.test.ts', '../../../testing/until', 'import'],
    ['main/core/x.test.ts', '../../testing/sshd', 'import'],
    ['main/core/x.test.ts', 'vitest', 'import'],
    ['main/rpc/x.ts', '../core/session/session', 'import'],
    ['main/serve/x.ts', '../rpc/dispatch', 'import'],
    ['main/serve/x.ts', 'ws', 'import'],
    ['main/cli.ts', './serve/server', 'import'],
    ['main/cli.ts', './core/engine', 'dynamic'],
    ['main/cli.ts', './cli-terminal', 'import'],
    ['e2e/x.ts', '../shared/contract', 'import'],
    ['e2e/x.ts', '../testing/sshd', 'import'],
    ['e2e/x.ts', '@playwright/test', 'import'],
    ['e2e/x.ts', 'node:fs', 'import'],
    ['bench/x.ts', '../main/core/store/store', 'import'],
    ['testing/x.ts', '../main/core/ssh/ssh-host', 'import'],
  ] as const)('%s may reach %s by %s', async (file, spec, how) => {
    expect(await importErrors(file, probe(spec, how))).toEqual([]);
  });

  it('a file outside every layer fails lint until the layer table names it', async () => {
    expect(await messages('newfolder/x.ts', 'export const a = 1;\n', 'boundaries/no-unknown-files')).toHaveLength(1);
  });
});
