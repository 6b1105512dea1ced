import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startVllmMetricsServer, type VllmMetricsServer } from '../testing/vllm-metrics-server';
import { createRunner, serve, type Served } from './serve-fixture';

test.describe('KV-cache in the demo: a vLLM proxy and a llama-server', () => {
  let served: Served;

  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });
  test.afterAll(async () => {
    await served.stop();
  });

  test('both cards show their KV-cache, a crossbar backend none; the chart draws it, in both themes', async ({ page }) => {
    mkdirSync('e2e/artifacts', { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${served.url}#/capacity`);
      const vllm = page.getByTestId('capacity-host-vllm-c-vllm-c');
      await expect(vllm).toBeVisible({ timeout: 20_000 });
      await expect(vllm.getByText('vLLM', { exact: true })).toBeVisible();
      // The demo's vLLM stand-in keeps 8 % of its KV-cache for prefixes at the least.
      const kv = page.getByTestId('capacity-kv-vllm-c-vllm-c');
      await expect(kv).toHaveText(/^\d+(\.\d)? % KV-cache$/, { timeout: 20_000 });
      await expect(kv.getByRole('meter', { name: 'KV-cache in use' })).toHaveAttribute('aria-valuemax', '100');
      await expect(vllm.getByText('running', { exact: true })).toBeVisible();
      await expect(vllm.getByText('waiting', { exact: true })).toBeVisible();
      // No slots in vLLM: no slot meter on its card.
      await expect(vllm.getByRole('meter', { name: 'Slots busy' })).toHaveCount(0);
      // Tokens a second, once a second poll has a counter to subtract.
      await expect(page.getByTestId('capacity-tokens-vllm-c-vllm-c')).toHaveText(/^tokens \/ s\s*[\d,.]+$/, { timeout: 20_000 });

      await expect(page.getByTestId('capacity-kv-gpu-a-gpu-a')).toHaveText(/^\d+(\.\d)? % KV-cache$/);
      await expect(page.getByTestId('capacity-host-gpu-a-gpu-a').getByRole('meter', { name: 'Slots busy' })).toBeVisible();
      // A crossbar backend exposes no KV-cache: nothing is shown for it.
      await expect(page.getByTestId('capacity-host-crossbar-gpu-a')).toBeVisible();
      await expect(page.getByTestId('capacity-kv-crossbar-gpu-a')).toHaveCount(0);

      // The chart: every host shown, so both servers with a KV-cache are among them.
      await expect(page.locator('[data-range="24h"][data-loading="false"]')).toBeVisible({ timeout: 20_000 });
      await page.getByRole('button', { name: /^All \d+$/ }).click();
      const chart = page.getByTestId('capacity-chart-kvCache');
      await expect(chart).toBeVisible();
      await expect(chart.locator('path.cap-line')).toHaveCount(2);
      expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(500);
      await expect(page.getByTestId('capacity-chart-tokenRate').locator('path.cap-line')).toHaveCount(2);

      await page.screenshot({ path: `e2e/artifacts/capacity-kv-${colorScheme}.png`, fullPage: true });
      await vllm.screenshot({ path: `e2e/artifacts/capacity-kv-vllm-card-${colorScheme}.png` });
      await page.getByTestId('capacity-host-gpu-a-gpu-a').screenshot({ path: `e2e/artifacts/capacity-kv-llama-card-${colorScheme}.png` });
      await chart.screenshot({ path: `e2e/artifacts/capacity-kv-chart-${colorScheme}.png` });
    }
  });
});

test.describe('a kind: vllm proxy in a config', () => {
  let served: Served;
  let vllm: VllmMetricsServer;

  test.beforeAll(async () => {
    vllm = await startVllmMetricsServer({ running: 5, waiting: 2, kv: 0.934, tokensPerSecond: 120, engines: 2 });
    const runner = createRunner();
    writeFileSync(join(runner.dir, 'config.yaml'), `hosts:\n  runner: { local: true }\nproxies:\n  vl: { host: runner, kind: vllm, url: "${vllm.url}", every: 1s }\n`);
    served = await serve(['--config', join(runner.dir, 'config.yaml'), '--data', runner.dataDir]);
  });
  test.afterAll(async () => {
    await served.stop();
    await vllm.close();
  });

  test('its card shows running, waiting and a KV-cache near full as high; garbage on its URL is its error', async ({ page }) => {
    await page.goto(`${served.url}#/capacity`);
    const card = page.getByTestId('capacity-host-vl-vl');
    await expect(card).toBeVisible({ timeout: 20_000 });
    // Two engines: 10 running, 4 waiting, the fuller engine's 93.4 %.
    await expect(card.locator('.cap-facts')).toContainText('running10');
    await expect(card.locator('.cap-facts')).toContainText('waiting4');
    await expect(page.getByTestId('capacity-kv-vl-vl')).toHaveText('93.4 % KV-cache');
    await expect(page.getByTestId('capacity-kv-vl-vl').getByRole('meter')).toHaveClass(/cap-level-saturated/);
    await expect(card.getByText('Qwen/Qwen3-32B')).toBeVisible();

    vllm.state.body = '<html><body>502 Bad Gateway</body></html>';
    await expect(card).toHaveAttribute('data-up', 'false', { timeout: 20_000 });
    await expect(card.getByRole('alert')).toHaveText(`proxy "vl": GET ${vllm.url}/metrics answered an HTML page, not the API: 502 Bad Gateway`);
    await expect(page.getByTestId('capacity-kv-vl-vl')).toHaveCount(0);
    vllm.state.body = null;
    await expect(card).toHaveAttribute('data-up', 'true', { timeout: 20_000 });
  });
});
