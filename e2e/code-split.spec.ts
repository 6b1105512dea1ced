import { expect, test, type Page } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { serve, type Served } from './serve-fixture';

// The renderer is split so the first paint of the Review (the default route) evaluates only the
// shell and the Review; the other views come in chunks, warmed in idle time after that paint.
// `npm run test:e2e` builds out/renderer first; these read that build.

const OUT = fileURLToPath(new URL('../out/renderer', import.meta.url));
const ASSETS = join(OUT, 'assets');

/** Code only recharts carries (its class names survive minifying), and only @tanstack/react-virtual. */
const RECHARTS = 'recharts-wrapper';
const VIRTUAL = 'getVirtualItems';

/** The first paint's scripts may not grow past this (minified); one bundle was 936 kB, the split entry ~400 kB. */
const ENTRY_BUDGET_BYTES = 550_000;

const read = (file: string): string => readFileSync(join(ASSETS, file), 'utf8');

/** The early socket's script may not grow past this: it must arrive and run long before the main bundle. */
const EARLY_BUDGET_BYTES = 4_000;

/**
 * An entry script of index.html (`index`: the main bundle; `early`: the early socket's, see
 * renderer/src/early.ts) and every chunk it imports statically (what must load before it runs).
 */
function entryClosure(name: 'index' | 'early' = 'index'): string[] {
  const html = readFileSync(join(OUT, 'index.html'), 'utf8');
  const entry = new RegExp(`<script type="module"[^>]*\\ssrc="\\./assets/(${name}-[^"]+\\.js)"`).exec(html)?.[1];
  if (!entry) throw new Error(`${join(OUT, 'index.html')} has no module script ./assets/${name}-*.js`);
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    // Static imports only: `from"./x.js"` / `import"./x.js"`; a dynamic import(`./x.js`) has a parenthesis.
    for (const m of read(file).matchAll(/\b(?:from|import)\s*(["'`])\.\/([^"'`]+\.js)\1/g)) {
      const dep = m[2] as string;
      if (!seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return [...seen];
}

/** The built chunk that holds `marker`. */
function chunkWith(marker: string): string {
  const files = readdirSync(ASSETS).filter((f) => f.endsWith('.js') && read(f).includes(marker));
  expect(files, `one chunk in ${ASSETS} holds ${marker}`).toHaveLength(1);
  return files[0] as string;
}

/** A lazy view, the hash that opens it, and what shows it has rendered. */
const LAZY_VIEWS: readonly { readonly view: string; readonly ready: (p: Page) => Promise<void> }[] = [
  { view: 'notices', ready: (p) => expect(p.getByTestId('notices')).toBeVisible({ timeout: 20_000 }) },
  { view: 'loops', ready: (p) => expect(p.locator('.loop').first()).toBeVisible({ timeout: 20_000 }) },
  { view: 'findings', ready: (p) => expect(p.locator('[data-testid^="finding-row-"]').first()).toBeVisible({ timeout: 20_000 }) },
  { view: 'prs', ready: (p) => expect(p.getByTestId('prs-table').or(p.getByTestId('prs-empty'))).toBeVisible({ timeout: 20_000 }) },
  { view: 'capacity', ready: (p) => expect(p.locator('[data-testid^="capacity-chart-"] svg').first()).toBeVisible({ timeout: 20_000 }) },
  { view: 'trends', ready: (p) => expect(p.getByTestId('trends')).toBeVisible({ timeout: 20_000 }) },
  { view: 'drills', ready: (p) => expect(p.getByTestId('drills')).toBeVisible({ timeout: 20_000 }) },
];

/**
 * Record, in the order the DOM saw them, the Review appearing, each chunk the page links
 * (Vite's preload helper adds a <link> for a lazy chunk's files before importing it) and any
 * loading placeholder of a lazy view.
 */
const RECORDER = `(() => {
  const w = window; w.__order = [];
  const seen = new Set();
  const note = (what) => { if (!seen.has(what)) { seen.add(what); w.__order.push(what); } };
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      if (n.matches('link[href]')) note('link ' + n.getAttribute('href').split('/').pop());
      if (n.matches('[data-testid="review"]') || n.querySelector('[data-testid="review"]')) note('review');
      if (n.matches('[data-testid="view-loading"]') || n.querySelector('[data-testid="view-loading"]')) w.__order.push('loading');
    }
  }).observe(document, { childList: true, subtree: true });
})()`;

/** Console lines about the Content-Security-Policy and uncaught page errors. */
function watchComplaints(page: Page): string[] {
  const complaints: string[] = [];
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy|Failed to fetch dynamically imported module/i.test(m.text())) complaints.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => complaints.push(`pageerror: ${e.message}`));
  return complaints;
}

test.describe('the renderer build is split', () => {
  // Every serve-mode spec needs the build; these read it as well, so a missing one fails here by name.
  test.beforeAll(() => {
    if (!existsSync(join(OUT, 'index.html'))) throw new Error(`${OUT} is not built: run \`npm run build:renderer\` (\`npm run test:e2e\` builds it first).`);
  });

  test('the entry and its static imports hold neither recharts nor the virtual table, and stay within budget', () => {
    const closure = entryClosure();
    // The markers are in the build, so their absence below means something.
    const charts = chunkWith(RECHARTS);
    const table = chunkWith(VIRTUAL);
    expect(closure).not.toContain(charts);
    expect(closure).not.toContain(table);
    const bytes = closure.reduce((n, f) => n + Buffer.byteLength(read(f)), 0);
    const gzip = closure.reduce((n, f) => n + gzipSync(read(f)).length, 0);
    test.info().annotations.push({ type: 'entry', description: `${closure.join(' ')}: ${bytes} B minified, ${gzip} B gzip` });
    expect(bytes, `the first paint's scripts (${closure.join(', ')})`).toBeLessThan(ENTRY_BUDGET_BYTES);
  });

  test('the early socket’s script comes first, runs on its own (async), and stays tiny', () => {
    const html = readFileSync(join(OUT, 'index.html'), 'utf8');
    const early = html.indexOf('<script type="module" async crossorigin src="./assets/early-');
    expect(early, 'index.html loads the early socket’s script, async').toBeGreaterThan(html.indexOf('http-equiv="Content-Security-Policy"'));
    expect(early, 'before the main bundle').toBeLessThan(html.indexOf('src="./assets/index-'));
    const closure = entryClosure('early');
    const bytes = closure.reduce((n, f) => n + Buffer.byteLength(read(f)), 0);
    test.info().annotations.push({ type: 'early', description: `${closure.join(' ')}: ${bytes} B minified` });
    expect(bytes, `the early socket's scripts (${closure.join(', ')})`).toBeLessThan(EARLY_BUDGET_BYTES);
  });
});

test.describe('lazy views in serve mode', () => {
  let served: Served;

  test.beforeAll(async () => {
    // The demo fills every view: loops, findings, notices, drills, the capacity charts, trends.
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('the Review renders before any chart chunk is linked; idle warming then fetches every view, so no first visit waits', async ({ page }) => {
    const complaints = watchComplaints(page);
    await page.addInitScript({ content: RECORDER });
    await page.goto(served.url);
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    // No click: the chunks come in idle time after the Review.
    await expect(page.locator('html')).toHaveAttribute('data-views-warmed', 'true', { timeout: 20_000 });
    const order = (await page.evaluate('window.__order')) as string[];
    const charts = `link ${chunkWith(RECHARTS)}`;
    expect(order, 'the recharts chunk is linked (warmed)').toContain(charts);
    expect(order.indexOf('review'), `review before ${charts} in ${order.join(', ')}`).toBeLessThan(order.indexOf(charts));
    expect(order).toContain(`link ${chunkWith(VIRTUAL)}`);

    for (const { view, ready } of LAZY_VIEWS) {
      await page.getByTestId(`nav-${view}`).click();
      await expect(page.getByTestId(`nav-${view}`)).toHaveAttribute('aria-current', 'page');
      await ready(page);
    }
    // Warmed views render at once: no loading placeholder was ever mounted.
    expect((await page.evaluate('window.__order')) as string[]).not.toContain('loading');
    expect(complaints).toEqual([]);
  });

  for (const { view, ready } of LAZY_VIEWS) {
    test(`#/${view} opened directly loads its chunk and renders, within the CSP`, async ({ page }) => {
      const complaints = watchComplaints(page);
      await page.goto(`${served.url}#/${view}`);
      await expect(page.getByTestId(`nav-${view}`)).toHaveAttribute('aria-current', 'page', { timeout: 20_000 });
      await ready(page);
      await expect(page.getByTestId('view-loading')).toHaveCount(0);
      expect(complaints).toEqual([]);
    });
  }

  test('a chunk that cannot be fetched shows an error with a reload in the view, and the rest of the console works', async ({ page }) => {
    const charts = chunkWith(RECHARTS);
    // As when the renderer was rebuilt under an open page: the old chunk is gone.
    await page.route(`**/assets/${charts}`, (route) => route.fulfill({ status: 404, body: 'Not found.' }));
    await page.goto(`${served.url}#/capacity`);
    const failed = page.getByTestId('view-failed');
    await expect(failed).toBeVisible({ timeout: 20_000 });
    await expect(failed).toHaveAttribute('role', 'alert');
    await expect(failed.getByRole('button', { name: 'Reload' })).toBeVisible();
    await page.getByTestId('nav-review').click();
    await expect(page.getByTestId('review')).toBeVisible();
    await expect(page.getByTestId('view-failed')).toHaveCount(0);
  });
});
