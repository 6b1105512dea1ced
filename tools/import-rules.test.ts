import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function importErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** DESIGN.md's import rules, checked through the project's real ESLint config. */
describe('import rules', () => {
  it.each([
    ['shared/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"],
    ['shared/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['shared/x.ts', "import { Engine } from '../main/core/engine';\nexport const a = Engine;\n"],
    ['renderer/src/x.ts', "import { Store } from '../../main/core/store/store';\nexport const a = Store;\n"],
    ['renderer/src/x.ts', "import { join } from 'node:path';\nexport const a = join;\n"],
    ['preload/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"],
    ['main/core/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['main/serve/x.ts', "import Database from 'better-sqlite3';\nexport const a = Database;\n"],
    ['main/rpc/x.ts', "import { Client } from 'ssh2';\nexport const a = Client;\n"],
    ['e2e/x.ts', "import { Engine } from '../main/core/engine';\nexport const a = Engine;\n"],
  ])('%s may not import this', async (file, code) => {
    const errors = await importErrors(file, code);
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/DESIGN\.md import rule/);
  });

  it.each([
    ['shared/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
    ['renderer/src/x.ts', "import { commands } from '../../shared/contract';\nexport const a = commands;\n"],
    ['preload/x.ts', "import { contextBridge } from 'electron';\nexport const a = contextBridge;\n"],
    ['main/electron/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['main/core/x.ts', "import Database from 'better-sqlite3';\nexport const a = Database;\n"],
  ])('%s may import this', async (file, code) => {
    expect(await importErrors(file, code)).toEqual([]);
  });
});
