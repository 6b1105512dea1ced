import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

// "Waiting on you" on the demo: its log has BLOCKED and operator-only outcomes; each item names its
// loop, its id and what the human must do, and lands where its evidence is.

test.describe('waiting on you, on the demo', () => {
  let served: Served;
  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('lists what needs the operator at the top of the Review, each with its loop, id and what to do', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const waiting = page.getByTestId('waiting');
    await expect(waiting).toBeVisible();
    const blocked = waiting.locator('[data-testid^="waiting-blocked-reliability-"]').first();
    await expect(blocked).toContainText('root cause: the broker mock cannot drop mid-frame');
    const operator = waiting.locator('[data-testid^="waiting-operator-only-reliability-"]').first();
    await expect(operator).toContainText('rotate the broker credential');
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/waiting-light.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'e2e/artifacts/waiting-dark.png' });
  });
});
