import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

test.describe('drills in the demo', () => {
  let served: Served;

  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('runs a declared drill only after typed confirmation and an explicit override, and streams its output', async ({ page }) => {
    await page.goto(`${served.url}#/drills`);
    await page.getByTestId('drill-run-sigterm-drain').click();
    const dialog = page.getByTestId('drill-dialog');
    await expect(dialog).toBeVisible();
    await dialog.getByTestId('drill-arg-mode').selectOption('abrupt');
    const start = dialog.getByTestId('drill-start');
    await dialog.getByTestId('drill-confirm-input').fill('sigterm');
    await expect(start).toBeDisabled();
    await dialog.getByTestId('drill-confirm-input').fill('sigterm-drain');
    await expect(start).toBeEnabled();
    await start.click();
    // The demo's loop is mid-cycle: a running phase on the same host blocks the drill…
    await expect(dialog.getByTestId('drill-error')).toContainText('is running a loop phase');
    // …until the operator overrides it explicitly.
    await dialog.getByTestId('drill-override').check();
    await dialog.getByTestId('drill-start').click();

    const status = page.getByTestId('drill-status');
    const output = page.getByTestId('drill-output');
    await expect(output).toContainText('drain drill (abrupt)');
    await expect(output).toContainText('in-flight request 1 drained');
    await expect(status).toHaveAttribute('data-status', 'running'); // live, before the end
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/drill-running.png' });
    await expect(output).toContainText('drain complete: 0 requests lost', { timeout: 20_000 });
    await expect(status).toHaveAttribute('data-status', 'ok');

    await page.goto(`${served.url}#/drills`);
    const row = page.locator('[data-testid^="run-row-"]').first();
    await expect(row).toContainText('sigterm-drain');
    await expect(row).toContainText('abrupt');
  });
});
