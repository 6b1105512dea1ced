import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { seriousViolations } from './axe-check';

// A toast fading in, as the console's do: axe caught mid-animation measures its text at partial
// opacity. This once failed the Trends check on CI; the helper measures the settled frame instead.
const FADING = `<!doctype html><html lang="en"><head><title>fade</title><style>
  @keyframes in { from { opacity: 0.2; } }
  .toast { animation: in 1500ms linear; color: #222; background: #fff; }
</style></head><body><main><p class="toast">A notice, fading in</p></main></body></html>`;

test('axe is run on the settled frame, not one caught mid-animation', async ({ page }) => {
  await page.setContent(FADING);
  const caught = await new AxeBuilder({ page }).analyze();
  expect(caught.violations.map((v) => v.id)).toContain('color-contrast');

  await page.setContent(FADING);
  expect(await seriousViolations(page)).toEqual([]);
});
