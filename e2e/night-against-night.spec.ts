import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

// Night against night on the demo: its remediate transcripts print pytest's summary (1,207 passed
// on a good night; 3 failed, 1,204 passed on the night the runner's disk filled), which the phase,
// Trends and the compare view count; a failed night compared with the last good one names the
// first rc step and transcript line where they part. The last good night is one where every
// phase worked: a night whose audit and remediate declared NO-OP ran no suite to compare with.

test.describe('night against night, on the demo', () => {
  let served: Served;
  test.beforeAll(async () => {
    served = await serve(['--speed', '0.001'], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('a failed night against the last good one: the phase its nights part in, the rc step, the line and the suite delta', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const failed = page.locator('[data-testid^="cycle-reliability-"][data-status="failed"]').first();
    await expect(failed).toBeVisible({ timeout: 30_000 });
    const date = ((await failed.getAttribute('data-testid')) ?? '').replace('cycle-reliability-', '');
    // The phase shows its suites: pytest's last run, 3 failed.
    await failed.locator('[data-testid^="phase-reliability-"][data-status="failed"]').first().click();
    await expect(page.getByTestId('phase-suites').getByTestId('phase-suite-total')).toContainText('1,204 passed, 3 failed');
    mkdirSync('test-results/screens', { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByTestId('phase-detail').screenshot({ path: `test-results/screens/phase-suites-${scheme}.png` });
    }

    await page.getByTestId(`compare-link-reliability-${date}`).click();
    await expect(page).toHaveURL(new RegExp(`#/compare/reliability/${date}$`));
    const view = page.getByTestId('compare');
    await expect(view).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
    await expect(page.getByTestId('compare-summary')).toContainText('The nights first part in remediate');
    await expect(page.getByTestId('compare-rc-remediate')).toContainText('gates › suite');
    await expect(page.getByTestId('compare-rc-remediate')).toContainText('rc 2');
    await expect(page.getByTestId('compare-line-remediate')).toContainText('No space left on device');
    await expect(page.getByTestId('compare-suites-remediate')).toContainText('pytest: 1,204 passed / 3 failed against 1,207 passed / 0 failed (failed +3, passed −3)');

    mkdirSync('test-results/screens', { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await view.screenshot({ path: `test-results/screens/compare-${scheme}.png` });
    }
  });

  test('a running phase shows the runner\'s load, sampled while it runs', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const running = page.locator('[data-testid^="phase-reliability-"][data-status="running"]').first();
    await expect(running).toBeVisible({ timeout: 30_000 });
    await running.click();
    await expect(page.getByTestId('phase-detail').getByTestId('phase-contention')).toContainText(/Runner load: peak [\d.]+ per core on \d+ cores/, { timeout: 40_000 });
  });

  test('Trends draws suite failures a night, and lists passed and failed', async ({ page }) => {
    await page.goto(`${served.url}#/trends`);
    const chart = page.getByTestId('trend-chart-suites').first();
    await expect(chart).toBeVisible({ timeout: 30_000 });
    await chart.getByTestId('trend-suite-nights').locator('summary').click();
    await expect(chart.locator('[data-testid^="trend-suite-night-"]').first()).toBeVisible();
    await expect(chart).toContainText('1,207');
    mkdirSync('test-results/screens', { recursive: true });
    await chart.scrollIntoViewIfNeeded();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await chart.screenshot({ path: `test-results/screens/trend-suites-${scheme}.png` });
    }
    // The demo prices its GPU hosts by the hour (costs: in its config): each night's cost, and per DONE finding.
    const cost = page.getByTestId('trend-chart-cost').first();
    await expect(cost).toBeVisible();
    await expect(cost.getByTestId('trend-cost')).toContainText(/Over \d+ nights: [\d,.]+ USD · [\d,.]+ USD \/ DONE · waste [\d,.]+ USD/);
    await expect(page.getByTestId('trend-measure-cost').first()).toContainText('USD');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await cost.scrollIntoViewIfNeeded();
      await cost.screenshot({ path: `test-results/screens/trend-cost-${scheme}.png` });
    }
  });
});
