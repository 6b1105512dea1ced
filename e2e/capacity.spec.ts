import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

test.describe('capacity in the demo', () => {
  let served: Served;

  test.beforeAll(async () => {
    // The demo runs a live fleet server and seeds a month of its history.
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('renders a 7-day chart downsampled to at most 1,000 points per series', async ({ page }) => {
    await page.goto(`${served.url}#/capacity`);
    await expect(page.getByTestId('capacity-host-crossbar-gpu-a')).toBeVisible({ timeout: 20_000 });
    await page.getByTestId('capacity-range-7d').click();
    const history = page.locator('[data-range="7d"][data-loading="false"]');
    await expect(history).toBeVisible({ timeout: 20_000 });
    const charts = page.locator('[data-testid^="capacity-chart-"]');
    expect(await charts.count()).toBeGreaterThanOrEqual(4);
    for (const chart of await charts.all()) {
      const points = Number(await chart.getAttribute('data-points'));
      // A week at one sample a minute is 10,080 points; LTTB keeps at most 1,000, and really draws them.
      expect(points).toBeLessThanOrEqual(1000);
      expect(points).toBeGreaterThan(500);
    }
    const line = page.locator('[data-testid="capacity-chart-inflight"] svg path.cap-line').first();
    await expect(line).toBeVisible();
    // The path goes through the points (a move or a line-to each), not a sketch of them.
    const d = (await line.getAttribute('d')) ?? '';
    expect((d.match(/[ML]/g) ?? []).length).toBeGreaterThan(500);
    // The path is in tenths of a pixel under a scale(0.1): on screen it spans the plot, inside the chart.
    const drawn = await line.boundingBox();
    const svg = await page.locator('[data-testid="capacity-chart-inflight"] svg.recharts-surface').first().boundingBox();
    expect(drawn && svg).toBeTruthy();
    if (drawn && svg) {
      expect(drawn.x).toBeGreaterThanOrEqual(svg.x);
      expect(drawn.x + drawn.width).toBeLessThanOrEqual(svg.x + svg.width);
      expect(drawn.y + drawn.height).toBeLessThanOrEqual(svg.y + svg.height);
      expect(drawn.width).toBeGreaterThan(svg.width / 2);
    }
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/capacity-7d.png', fullPage: true });
    await page.locator('.cap-chart-list').screenshot({ path: 'e2e/artifacts/capacity-7d-charts.png' });
  });

  test("the gateway's card shows its heap with the limit, in both themes", async ({ page }) => {
    mkdirSync('e2e/artifacts', { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${served.url}#/capacity`);
      const card = page.getByTestId('capacity-host-gateway-gateway');
      await expect(card).toBeVisible({ timeout: 20_000 });
      // The demo gateway's heap swings between 30 and 55 % of its 4,144 MB limit.
      const heap = page.getByTestId('capacity-heap-gateway');
      await expect(heap).toHaveText(/^heap\s*\d+(\.\d)? % of 4,144 MB$/, { timeout: 20_000 });
      await expect(heap).not.toHaveClass(/cap-queued/);
      await card.screenshot({ path: `e2e/artifacts/capacity-gateway-${colorScheme}.png` });
    }
  });
});
