import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { seriousViolations } from './axe-check';

// A toast fading in, as the console's do: axe caught mid-animation measures its text at partial
// opacity. This once failed the Trends check on CI; the helper measures the settled frame instead.
const FADING = `<!doctype html><html lang="en"><head><title>fade</title><style>
  @keyframes in { from { opacity: 0.2; } }
  .toast { animation: in 1500ms linear; color: #222; background: #fff; }
</style></head><body><main><p class="toast">A notice, fading in</p></main></body></html>`;

/** The fade held a fifth of the way in (text at about a third of its opacity), whatever the machine's clock does. */
const FREEZE = `{ for (const a of document.getAnimations()) { a.pause(); a.currentTime = 300; } }`;

test('axe is run on the settled frame, not one caught mid-animation', async ({ page }) => {
  // Raw axe on a frame mid-fade reports the text's contrast: the defect the helper exists for.
  await page.setContent(FADING);
  await page.evaluate(FREEZE);
  const caught = await new AxeBuilder({ page }).analyze();
  expect(caught.violations.map((v) => v.id)).toContain('color-contrast');

  // The helper, on the same frozen mid-fade frame, measures the settled one.
  await page.setContent(FADING);
  await page.evaluate(FREEZE);
  expect(await seriousViolations(page)).toEqual([]);
});
