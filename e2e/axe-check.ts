import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * The serious and critical axe violations on the page (or inside `include`), one line each naming the
 * rule, the element and why. Contrast is measured on a still frame: the page is switched to reduced
 * motion (it stays so; the colour scheme is left as it was) and every finite animation is brought
 * to its end at once (`finish()`, paused ones too), not waited for: a toast caught fading in has
 * its text at partial opacity, which axe reports as contrast, and waiting for it raced the clock
 * of a busy machine.
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  // A string, as the other specs evaluate: the e2e code is typed for Node, without the DOM.
  await page.evaluate(`{
    for (const a of document.getAnimations()) {
      if (a.effect?.getComputedTiming().iterations !== Infinity) a.finish();
    }
  }`);
  const builder = new AxeBuilder({ page });
  const { violations } = await (include ? builder.include(include) : builder).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ') ?? v.help}`));
}
