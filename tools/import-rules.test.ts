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

/** The import rules (eslint.config.js's layer table, described in docs/architecture.md), checked through the project's real ESLint config on a probe file per case. */
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
    ['main/core/store/x.ts', 'electron', 'import'],
    ['main/core/loops/x.ts', 'electron', 'dynamic'],
    ['main/core/engine/x.ts', '../../rpc/dispatch', 'import'],
    ['main/core/session/x.ts', '../../rpc/dispatch', 'type'],
    ['main/core/engine.ts', './x', 'import'],
    ['main/core/engine.ts', '../serve/server', 'import'],
    ['main/core/clock.ts', '../electron/window', 'import'],
    ['main/core/engine/x.ts', '../../cli', 'import'],
    ['main/core/ssh/x.ts', 'react', 'import'],
    // inside main/core, never upward: plumbing imports plumbing; features plumbing and features
    ['main/core/store/x.ts', '../capacity/history/schema', 'import'],
    ['main/core/config/x.ts', '../metrics/exporter', 'type'],
    ['main/core/store/x.ts', '../engine/migrations', 'import'],
    ['main/core/ssh/x.ts', '../engine', 'dynamic'],
    ['main/core/state/x.ts', '../session/core', 'import'],
    ['main/core/clock.ts', './loops/attribution', 'import'],
    ['main/core/clock.ts', './engine', 'import'],
    ['main/core/loops/x.ts', '../engine/phase-causes', 'import'],
    ['main/core/loops/x.ts', '../engine', 'type'],
    ['main/core/demo/x.ts', '../engine', 'import'],
    ['main/core/capacity/history/x.ts', '../../session/core', 'export'],
    ['main/core/notices/x.ts', '../session/session', 'import'],
    // a file directly under main/core has no layer until eslint.config.js gives it one
    ['main/core/x.ts', 'node:fs', 'import'],
    ['main/core/x.ts', './store/store', 'import'],
    ['main/core/engine/x.ts', '../x', 'import'],
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
    ['main/core/store/x.ts', '../../../testing/until', 'import'],
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
    ['main/core/store/x.ts', 'better-sqlite3', 'import'],
    ['main/core/ssh/x.ts', 'ssh2', 'dynamic'],
    ['main/core/loops/x.ts', '../../../shared/contract', 'type'],
    ['main/core/engine.ts', '../../shared/contract', 'type'],
    ['main/core/clock.ts', 'node:fs', 'import'],
    ['main/core/engine/x.ts', 'node:fs', 'import'],
    // inside main/core, downward and sideways (and freely inside one folder)
    ['main/core/store/x.ts', './store', 'import'],
    ['main/core/loops/x.ts', './attribution', 'import'],
    ['main/core/engine.ts', './clock', 'import'],
    ['main/core/x.test.ts', './engine', 'import'],
    ['main/core/store/x.ts', '../ssh/trusted-keys', 'import'],
    ['main/core/store/x.ts', '../clock', 'import'],
    ['main/core/clock.ts', './config/duration', 'import'],
    ['main/core/loops/x.ts', '../store/store', 'import'],
    ['main/core/loops/x.ts', '../clock', 'type'],
    ['main/core/capacity/history/x.ts', '../../config/schema', 'import'],
    ['main/core/ledgers/x.ts', '../loops/loop-poll', 'type'],
    ['main/core/engine/x.ts', '../capacity/history/schema', 'import'],
    ['main/core/engine/x.ts', '../store/migrations', 'import'],
    ['main/core/engine/x.ts', '../clock', 'import'],
    ['main/core/engine.ts', './notices/notice-service', 'import'],
    ['main/core/engine.ts', './session/core', 'import'],
    ['main/core/session/x.ts', '../engine', 'import'],
    ['main/core/session/x.ts', '../demo/demo-runner', 'import'],
    ['main/core/store/x.test.ts', '../engine/migrations', 'import'],
    ['main/rpc/x.ts', '../core/clock', 'import'],
    ['main/rpc/x.ts', '../core/store/store', 'type'],
    ['main/serve/x.ts', '../core/loops/attribution', 'import'],
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
