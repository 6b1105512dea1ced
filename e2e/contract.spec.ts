import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

// The Broken contract list on the Review (issue 43), on the demo: its log has a DEFERRED row, a
// rule the manual forbids. The section sits between "Waiting on you" and what ran; each item names
// its rule, loop and id, quotes the manual, and links its evidence.

test.describe('the Broken contract, on the demo', () => {
  let served: Served;
  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('lists the DEFERRED row between Waiting on you and the loops, quotes the manual and links the item', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const section = page.getByTestId('contract');
    await expect(section).toBeVisible();
    const deferred = section.getByTestId('contract-deferred-reliability');
    await expect(deferred).toContainText('DEFERRED outcome');
    await expect(deferred).toContainText('REL-041');
    await expect(deferred).toContainText('The manual: “In remediate mode, DEFERRED is not an allowed outcome.”');
    await expect(deferred).toContainText('RELIABILITY_LOG.md:');
    // Its place: after "Waiting on you", before the loops.
    const order = await page.locator('#rv-waiting, #rv-contract, #rv-loops').evaluateAll((els) => els.map((e) => e.id));
    expect(order).toEqual(['rv-waiting', 'rv-contract', 'rv-loops']);
    await expect(page.locator('.rv-summary')).toContainText('broken contract');

    // Look at it, in both themes.
    mkdirSync('test-results/screens', { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: `test-results/screens/contract-${scheme}.png` });
    }

    await deferred.click();
    await expect(page).toHaveURL(/#\/findings\/reliability\/REL-041$/);
    await expect(page.getByTestId('finding-detail').locator('.finding-title')).toContainText('REL-041');
  });
});
