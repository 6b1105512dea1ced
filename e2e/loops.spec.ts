import { expect, request, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

const HOUR = 3_600_000;

test.describe('Loops view in serve mode', () => {
  let served: Served;
  const runner = createRunner();
  const now = Date.now();
  const date = new Date(now).toISOString().slice(0, 10);

  test.beforeAll(async () => {
    runner.write(date, 'audit.status', `audit ${stamp(new Date(now - 3 * HOUR))} STARTED\naudit ${stamp(new Date(now - 2 * HOUR))} OK\n`);
    runner.write(date, 'remediate.status', `remediate ${stamp(new Date(now - 2 * HOUR))} STARTED\n`);
    runner.write(date, 'remediate.gates.rc', 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n');
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('refuses a request without the token', async () => {
    const ctx = await request.newContext();
    const res = await ctx.get(`${served.origin}/`);
    expect(res.status()).toBe(401);
    expect(await res.text()).toMatch(/access token/);
    await ctx.dispose();
  });

  test('a running phase turns ok live when DONE and the final stamp land', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const remediate = page.getByTestId(`phase-reliability-${date}-remediate`);
    await expect(remediate).toHaveAttribute('data-status', 'running');
    await expect(page.getByTestId(`phase-reliability-${date}-audit`)).toHaveAttribute('data-status', 'ok');
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open');

    await remediate.click();
    const detail = page.getByTestId('phase-detail');
    await expect(detail.getByTestId('stopped-at')).toContainText('suite');
    await expect(detail.getByTestId('stage-gates')).toHaveAttribute('data-done', 'false');

    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/loops-running.png', fullPage: true });

    runner.append(date, 'remediate.gates.rc', 'suite_rc=0\nDONE\n');
    runner.append(date, 'remediate.status', `remediate ${stamp(new Date())} OK\n`);
    await expect(remediate).toHaveAttribute('data-status', 'ok', { timeout: 5_000 });
    await expect(detail.getByTestId('stage-gates')).toHaveAttribute('data-done', 'true');
    await expect(page.getByTestId(`cycle-reliability-${date}`)).toHaveAttribute('data-status', 'running');
    await page.screenshot({ path: 'e2e/artifacts/loops-ok.png', fullPage: true });
  });
});
