import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { seriousViolations } from './axe-check';
import { serve, type Served } from './serve-fixture';

// The console on a phone (issue 47): every view at 390×844 in both themes, on the demo — no
// page-level horizontal scrolling (a wide table or chart scrolls inside its own box), no serious
// axe violation, and a screenshot of each to look at. Serve mode is an installable web app: a
// manifest with icons.

type Theme = 'light' | 'dark';

interface Screen {
  readonly name: string;
  readonly hash: string;
  readonly ready: (page: Page) => Promise<void>;
}

const SCREENS: readonly Screen[] = [
  { name: 'review', hash: '#/review', ready: (p) => expect(p.getByTestId('review')).toBeVisible({ timeout: 30_000 }) },
  { name: 'notices', hash: '#/notices', ready: (p) => expect(p.getByTestId('notices')).toBeVisible({ timeout: 30_000 }) },
  { name: 'loops', hash: '#/loops', ready: (p) => expect(p.locator('.loop').first()).toBeVisible({ timeout: 30_000 }) },
  {
    name: 'phase',
    hash: '#/loops',
    ready: async (p) => {
      await p.locator('[data-testid^="phase-reliability-"][data-status="failed"]').first().click();
      await expect(p.locator('.detail')).toBeVisible();
    },
  },
  { name: 'findings', hash: '#/findings', ready: (p) => expect(p.locator('[data-testid^="finding-row-"]').first()).toBeVisible({ timeout: 30_000 }) },
  {
    name: 'finding',
    hash: '#/findings',
    ready: async (p) => {
      await p.locator('[data-testid^="finding-row-"]').first().click();
      await expect(p.locator('.detail')).toBeVisible();
    },
  },
  { name: 'ledgers', hash: '#/ledgers', ready: (p) => expect(p.getByTestId('ledgers-tasks')).toBeVisible({ timeout: 30_000 }) },
  { name: 'prs', hash: '#/prs', ready: (p) => expect(p.getByTestId('prs-table').or(p.getByTestId('prs-empty'))).toBeVisible({ timeout: 30_000 }) },
  { name: 'capacity', hash: '#/capacity', ready: (p) => expect(p.locator('[data-testid^="capacity-chart-"]').first()).toBeVisible({ timeout: 30_000 }) },
  { name: 'trends', hash: '#/trends', ready: (p) => expect(p.getByTestId('trends')).toBeVisible({ timeout: 30_000 }) },
  { name: 'hosts', hash: '#/hosts', ready: (p) => expect(p.getByTestId('hosts-view')).toBeVisible({ timeout: 30_000 }) },
  {
    name: 'transcript',
    hash: '#/loops',
    ready: async (p) => {
      await p.locator('[data-testid^="phase-reliability-"][data-status="failed"]').first().click();
      await p.getByRole('link', { name: /Read the transcript/ }).click();
      await expect(p.getByTestId('transcript')).toHaveAttribute('data-lines', /\d+/, { timeout: 30_000 });
    },
  },
  {
    name: 'compare',
    hash: '#/loops',
    ready: async (p) => {
      const failed = p.locator('[data-testid^="cycle-reliability-"][data-status="failed"]').first();
      await expect(failed).toBeVisible({ timeout: 30_000 });
      const date = ((await failed.getAttribute('data-testid')) ?? '').replace('cycle-reliability-', '');
      await p.getByTestId(`compare-link-reliability-${date}`).click();
      await expect(p.getByTestId('compare')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
    },
  },
  { name: 'drills', hash: '#/drills', ready: (p) => expect(p.getByTestId('drills')).toBeVisible({ timeout: 30_000 }) },
];

/**
 * How far the page, or the view's own box, scrolls sideways (px): 0 when everything fits or
 * scrolls inside a box of its own (a wide table, a chart).
 */
const pageOverflow = (page: Page): Promise<number> =>
  page.evaluate(`Math.max(document.scrollingElement.scrollWidth - window.innerWidth, ...[...document.querySelectorAll('#content, .detail')].map((e) => e.scrollWidth - e.clientWidth))`) as Promise<number>;

/** The elements sticking out past the right edge that no box of their own scrolls, for the failure message. */
const wideOnes = (page: Page): Promise<string[]> =>
  page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
    .filter((e) => !e.parentElement || e.parentElement.getBoundingClientRect().right <= window.innerWidth + 1 || e.parentElement.scrollWidth > e.parentElement.clientWidth + 1)
    .slice(0, 8)
    .map((e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '') + (e.id ? '#' + e.id : '') + ' ' + Math.round(e.getBoundingClientRect().right) + 'px')`) as Promise<string[]>;

test.describe('the console at 390 px, every view in both themes', () => {
  test.describe.configure({ mode: 'parallel' });
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, hasTouch: true, isMobile: false });
  let served: Served;

  test.beforeAll(async () => {
    served = await serve(['--speed', '0.001'], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  for (const theme of ['light', 'dark'] as const satisfies readonly Theme[]) {
    for (const screen of SCREENS) {
      test(`${screen.name}, ${theme}: no page-level horizontal scrolling, no serious axe violation`, async ({ page }) => {
        await page.emulateMedia({ reducedMotion: 'reduce', colorScheme: theme });
        await page.goto(`${served.url}${screen.hash}`);
        await screen.ready(page);
        mkdirSync('test-results/phone', { recursive: true });
        await page.screenshot({ path: `test-results/phone/${screen.name}-${theme}.png`, fullPage: false });
        expect(await pageOverflow(page), `${screen.name} (${theme}) scrolls sideways (${String(await page.evaluate('[document.scrollingElement.scrollWidth, window.innerWidth, ...[...document.querySelectorAll("#content, .detail")].map((e) => e.scrollWidth + "/" + e.clientWidth)].join(" ")'))}); wider than the screen: ${(await wideOnes(page)).join(', ')}`).toBeLessThanOrEqual(0);
        expect(await seriousViolations(page), `axe on ${screen.name} at 390 px (${theme})`).toEqual([]);
      });
    }
  }

  test('serve mode is an installable web app: a manifest with icons, linked from the page', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBeTruthy();
    const manifestUrl = new URL(href ?? '', page.url()).toString();
    const res = await page.request.get(manifestUrl);
    expect(res.ok()).toBe(true);
    const manifest = (await res.json()) as { name?: string; start_url?: string; display?: string; icons?: { src: string; sizes: string; type: string }[] };
    expect(manifest).toMatchObject({ name: 'Loopdeck', display: 'standalone' });
    const sizes = (manifest.icons ?? []).map((i) => i.sizes);
    expect(sizes).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.icons ?? []) {
      const got = await page.request.get(new URL(icon.src, manifestUrl).toString());
      expect(got.ok(), icon.src).toBe(true);
      expect(got.headers()['content-type']).toContain(icon.type);
    }
    await expect(page.locator('meta[name="theme-color"]')).toHaveCount(2);
  });
});
