import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * The serious and critical axe violations on the page (or inside `include`), one line each naming the
 * rule, the element and why. Contrast is measured on a still frame: the page is switched to reduced
 * motion (it stays so; the colour scheme is left as it was) and what was already animating is let
 * finish. A toast caught fading in has its text at partial opacity, which axe reports as contrast.
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  // A string, as the other specs evaluate: the e2e code is typed for Node, without the DOM.
  await page.evaluate(`Promise.all(
    document.getAnimations()
      .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
      .map((a) => a.finished.catch(() => undefined)),
  )`);
  const builder = new AxeBuilder({ page });
  const { violations } = await (include ? builder.include(include) : builder).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ') ?? v.help}`));
}
