import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { logFilePath } from './logger';

const run = promisify(execFile);
const LOG_MODULE = fileURLToPath(new URL('./log.ts', import.meta.url));

/** Run a script that opens the log in `dir` and then dies of `death`; its exit code and stdout. */
async function dieOf(dir: string, death: string): Promise<{ code: number; stdout: string }> {
  const script = join(dir, 'die.ts');
  writeFileSync(script, `import { startLogging } from ${JSON.stringify(LOG_MODULE)};\nstartLogging(${JSON.stringify(dir)}, 'test');\n${death}\n`);
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { timeout: 30_000 });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

describe('startLogging', () => {
  it('leaves the stack of an uncaught exception in the log, and the process still ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-uncaught-'));
    const r = await dieOf(dir, "setTimeout(() => { throw new Error('the engine broke'); }, 0);");
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(logFilePath(dir), 'utf8')).toMatch(/ERROR an uncaught exception ends the process\n {4}Error: the engine broke\n {8}at /);
  });

  it('and of an unhandled rejection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-uncaught-'));
    const r = await dieOf(dir, "void Promise.reject(new Error('no one awaited me'));");
    expect(r.code).not.toBe(0);
    expect(readFileSync(logFilePath(dir), 'utf8')).toMatch(/ERROR an unhandled rejection ends the process\n {4}Error: no one awaited me/);
  });
});
