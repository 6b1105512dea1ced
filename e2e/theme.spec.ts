import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

/** Wait until the page's background (as the browser computed it) is this colour. */
const expectBackground = (page: Page, rgb: string): Promise<void> => expect(page.locator('html')).toHaveCSS('background-color', rgb);

const LIGHT_BG = 'rgb(244, 245, 247)';
const DARK_BG = 'rgb(15, 19, 24)';

test.describe('the theme', () => {
  let served: Served;

  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('follows the operating system while the choice is "system"', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${served.url}#/review`);
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'system');
    await expectBackground(page, LIGHT_BG);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectBackground(page, DARK_BG);
    await page.emulateMedia({ colorScheme: 'light' });
    await expectBackground(page, LIGHT_BG);
  });

  test('a chosen theme wins over the system and is kept across a reload', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${served.url}#/review`);
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    await page.getByTestId('theme-dark').click();
    await expect(page.getByTestId('theme-dark')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-pressed', 'false');
    await expectBackground(page, DARK_BG);

    await page.reload();
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect(page.getByTestId('theme-dark')).toHaveAttribute('aria-pressed', 'true');
    await expectBackground(page, DARK_BG);

    // Light, chosen, stays light on a dark system.
    await page.getByTestId('theme-light').click();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('theme-light')).toHaveAttribute('aria-pressed', 'true');
    await expectBackground(page, LIGHT_BG);

    // Back to the system: dark again, and that too survives a reload.
    await page.getByTestId('theme-system').click();
    await expectBackground(page, DARK_BG);
    await page.reload();
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-pressed', 'true');
    await expectBackground(page, DARK_BG);
  });

  test('the capacity chart axes and grid follow the theme', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${served.url}#/capacity`);
    const tick = page.locator('.cap-chart .recharts-cartesian-axis-tick-value').first();
    await expect(tick).toBeVisible({ timeout: 20_000 });
    // The dark palette's muted text, not the light palette's #5a6472 the chart was drawn with.
    await expect(tick).toHaveCSS('fill', 'rgb(154, 165, 180)');
    const grid = page.locator('.cap-chart .recharts-cartesian-grid line').first();
    await expect(grid).toHaveCSS('stroke', 'rgb(38, 46, 56)');
  });

  // The docs' pictures (docs/guide/themes.md) are written only when asked (LOOPDECK_UPDATE_SCREENSHOTS=1): a test run
  // leaves tracked files alone, and writes its shots under e2e/artifacts.
  test('screenshots of the dark theme for the README', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    const shots = process.env.LOOPDECK_UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'e2e/artifacts';
    mkdirSync(shots, { recursive: true });
    await page.goto(`${served.url}#/review`);
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 20_000 });
    await page.screenshot({ path: `${shots}/dark-review.png` });
    await page.goto(`${served.url}#/capacity`);
    await expect(page.locator('.cap-chart path.cap-line').first()).toBeVisible({ timeout: 20_000 });
    // The history card's charts are below the host cards: scroll them to the top of the window first.
    await page.evaluate(`document.querySelector('.cap-charts').scrollIntoView({ block: 'start' })`);
    await page.screenshot({ path: `${shots}/dark-capacity.png` });
  });
});

/**
 * The palette as CSS text: every colour is declared once, in `:root`, with its light and its dark
 * value (light-dark()); no other rule declares a colour property, so no second copy can drift,
 * and a theme is only `color-scheme`.
 */
test('every colour holds its light and dark value in one declaration', () => {
  const css = readFileSync(new URL('../renderer/src/styles.css', import.meta.url), 'utf8');
  const start = css.indexOf(':root {');
  const root = css.slice(start, css.indexOf('}', start));
  const declared = [...css.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)];
  const inRoot = [...root.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)];
  // Elsewhere a rule only names one of them (a status's --s-line) or sets a size (a narrow window's --side-w).
  const outside = declared.filter((m) => m.index < start || m.index > start + root.length).map((m) => m[2]!.trim());
  expect(outside.filter((v) => !/^(var\(--[\w-]+\)|\d+px)$/.test(v))).toEqual([]);
  const layout = new Set(['--radius', '--side-w', '--detail-w', '--mono']);
  const colour = String.raw`(#[0-9a-f]{6}|rgba\(\d+, \d+, \d+, [\d.]+\))`;
  const pair = new RegExp(`^light-dark\\(${colour}, ${colour}\\)$`);
  const notPairs = inRoot.filter((m) => !layout.has(m[1]!) && !pair.test(m[2]!.trim())).map((m) => `${m[1]}: ${m[2]}`);
  expect(notPairs).toEqual([]);
  expect(inRoot.length).toBeGreaterThan(80);
  expect(css).toMatch(/:root\[data-theme='dark'\] \{\s*color-scheme: dark;\s*\}/);
  expect(css).toMatch(/:root\[data-theme='system'\] \{\s*color-scheme: light dark;\s*\}/);
});
