// Draws the web app's icons (renderer/public/icon-192.png, icon-512.png) from the logo's ring, in
// Chromium: `node scripts/make-icons.mjs`. Run again only when the logo changes; the PNGs are committed.
import { chromium } from '@playwright/test';
import { join } from 'node:path';

const out = join(import.meta.dirname, '..', 'renderer', 'public');
// The favicon's ring on an opaque square with room around it: a launcher may mask it to a circle.
const svg = (size) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 512 512"><rect width="512" height="512" fill="#ffffff"/>` +
  '<circle cx="256" cy="256" r="130" fill="none" stroke="#2f6fdb" stroke-width="56" stroke-dasharray="600 217" stroke-linecap="round" transform="rotate(-45 256 256)"/></svg>';

const browser = await chromium.launch({
  executablePath: process.env.LOOPDECK_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  for (const size of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    await page.setContent(`<html><body style="margin:0">${svg(size)}</body></html>`);
    await page.locator('svg').screenshot({ path: join(out, `icon-${size}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
}
