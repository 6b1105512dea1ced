import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

// A line link to the transcript already on screen moves it to that line: a second link followed,
// one pasted into the address bar, Back after a jump. The view is keyed by the transcript, so
// none of these remounts it; each used to leave it where it was.

const HOUR = 3_600_000;
const LINES = 3000;
const TRACEBACK_AT = 2600;

/** The rows shown selected (the current line), by test id. */
async function currentLine(page: Page): Promise<string[]> {
  return page.locator('.tl.tl-selected').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid') ?? ''));
}

test.describe('a line link to the transcript on screen', () => {
  let served: Served;
  const date = new Date().toISOString().slice(0, 10);
  const base = (): string => `${served.url}#/loops/reliability/${date}/audit/log`;

  test.beforeAll(async () => {
    const runner = createRunner();
    const t = (hoursAgo: number): string => stamp(new Date(Date.now() - hoursAgo * HOUR));
    runner.write(date, 'audit.status', `audit ${t(3)} STARTED\naudit ${t(2)} OK\n`);
    const lines = Array.from({ length: LINES }, (_, i) => (i + 1 === TRACEBACK_AT ? 'Traceback (most recent call last):' : `audit step ${i + 1}`));
    runner.write(date, 'audit.log', `${lines.join('\n')}\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('moves to and marks the linked line, without opening the transcript again', async ({ page }) => {
    const sent: string[] = [];
    page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(typeof f.payload === 'string' ? f.payload : f.payload.toString('utf8'))));
    await page.goto(`${base()}?line=100`);
    const line100 = page.getByTestId('transcript-line-100');
    await expect(line100).toHaveClass(/tl-selected/);
    await expect(line100).toBeInViewport();
    const view = page.getByTestId('transcript');
    await view.evaluate((el) => el.setAttribute('data-probe', 'first-mount'));
    const opens = (): number => sent.filter((s) => s.includes('"transcript.open"')).length;
    const opened = opens();
    expect(opened).toBe(1);

    // A link pasted (or followed) to another line of the same transcript.
    await page.evaluate(`location.hash = ${JSON.stringify(`#/loops/reliability/${date}/audit/log?line=1800`)}`);
    const line1800 = page.getByTestId('transcript-line-1800');
    await expect(line1800).toHaveClass(/tl-selected/);
    await expect(line1800).toBeInViewport();
    await expect(line1800).toContainText('audit step 1800');
    expect(await currentLine(page)).toEqual(['transcript-line-1800']);

    // An in-app jump (the Traceback's mark), then Back to the line before it.
    await page.getByTestId(`transcript-mark-${TRACEBACK_AT}`).click();
    await expect(page).toHaveURL(new RegExp(`/audit/log\\?line=${TRACEBACK_AT}$`));
    await expect(page.getByTestId(`transcript-line-${TRACEBACK_AT}`)).toHaveClass(/tl-selected/);
    await page.goBack();
    await expect(page).toHaveURL(/\/audit\/log\?line=1800$/);
    await expect(line1800).toHaveClass(/tl-selected/);
    await expect(line1800).toBeInViewport();
    expect(await currentLine(page)).toEqual(['transcript-line-1800']);

    // The same view all along: not remounted, the transcript not opened again.
    await expect(view).toHaveAttribute('data-probe', 'first-mount');
    expect(opens()).toBe(opened);
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/transcript-line-link.png' });
  });
});
