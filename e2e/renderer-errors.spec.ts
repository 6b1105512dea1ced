import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { createRunner, serve, type Runner, type Served } from './serve-fixture';

test.describe("the console's own errors in serve mode", () => {
  let runner: Runner;
  let served: Served;
  const logText = (): string => {
    const file = join(runner.dataDir, 'logs', 'loopdeck.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };

  test.beforeAll(async () => {
    runner = createRunner();
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('an uncaught error and an unhandled rejection in the page land in the log file of the data folder', async ({ page }) => {
    await page.goto(served.url);
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    // Strings, since this file is type-checked without the DOM library.
    await page.evaluate(`setTimeout(() => { throw new Error('e2e uncaught boom'); }, 0)`);
    await page.evaluate(`void Promise.reject(new Error('e2e rejected promise'))`);
    await expect.poll(logText, { timeout: 15_000 }).toContain('e2e uncaught boom');
    await expect.poll(logText, { timeout: 15_000 }).toContain('renderer: unhandled rejection: Error: e2e rejected promise');
    // With its stack, indented below the line.
    expect(logText()).toMatch(/ERROR renderer: [^\n]*e2e uncaught boom[^\n]*\n {4}Error: e2e uncaught boom\n {8}at /);
  });
});
