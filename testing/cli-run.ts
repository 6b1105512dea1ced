import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TEST_CLI } from './test-cli';

const run = promisify(execFile);

/** The CLI as `npm start` runs it: the sources bundled at the start of the test run (test-cli.ts). */
export const LOOPDECK_BIN = TEST_CLI;

/** Run `loopdeck ARGS` in a child process (30 s at most): its exit code and output, never a throw. */
export async function loopdeck(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [LOOPDECK_BIN, ...args], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `loopdeck ARGS` with these environment variables added to the test's own. */
export async function loopdeckWithEnv(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [LOOPDECK_BIN, ...args], { timeout: 30_000, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
