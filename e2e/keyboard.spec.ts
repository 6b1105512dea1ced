import { expect, test, type Page } from '@playwright/test';
import { serve, type Served } from './serve-fixture';

/** `g` then a letter, and the nav link that must become current (Trends has no view yet: only its hash). */
const GO: readonly (readonly [string, string])[] = [
  ['n', 'notices'],
  ['l', 'loops'],
  ['f', 'findings'],
  ['e', 'ledgers'],
  ['p', 'prs'],
  ['c', 'capacity'],
  ['d', 'drills'],
  ['r', 'review'],
];

/**
 * Press `g` then `letter` as a keyboard does: both sent at once, neither waiting for the page to
 * handle the other. Playwright's keyboard waits for each key to be handled before the next, so a
 * long task of the page (a chart drawn) after the `g` would hold the letter back past the `g`'s
 * window, which a person's keyboard never does.
 */
async function chord(page: Page, letter: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const key = (type: 'keyDown' | 'keyUp', k: string) =>
    cdp.send('Input.dispatchKeyEvent', { type, key: k, code: `Key${k.toUpperCase()}`, windowsVirtualKeyCode: k.toUpperCase().charCodeAt(0), ...(type === 'keyDown' ? { text: k, unmodifiedText: k } : {}) });
  await Promise.all([key('keyDown', 'g'), key('keyUp', 'g'), key('keyDown', letter), key('keyUp', letter)]);
  await cdp.detach();
}

test.describe('keyboard shortcuts in the demo', () => {
  let served: Served;

  test.beforeAll(async () => {
    // The demo fills every view: findings, notices waiting to be acknowledged, loops, PRs. Its live
    // cycle is slowed to a standstill (its next step hours away): three findings and their notices
    // appended 30 s in would move the rows and notices that j walks, whenever a slow run got there.
    served = await serve(['--speed', '0.001'], {}, 'demo');
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('? opens the shortcut list as a modal dialog, Esc closes it and gives focus back', async ({ page }) => {
    await page.goto(served.url);
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    const opener = page.getByTestId('nav-loops');
    await opener.focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toHaveAttribute('aria-modal', 'true');
    await expect(page.getByTestId('shortcuts-close')).toBeFocused();
    await expect(dialog).toContainText('Pull requests');
    // Shortcuts do not fire behind the dialog.
    await page.keyboard.press('g');
    await page.keyboard.press('f');
    await expect(page.getByTestId('nav-review')).toHaveAttribute('aria-current', 'page');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();
  });

  test('g then a letter goes to each view, Trends included; not with Ctrl held', async ({ page }) => {
    await page.goto(served.url);
    await expect(page.getByTestId('nav-review')).toHaveAttribute('aria-current', 'page', { timeout: 20_000 });
    for (const [letter, view] of GO) {
      await chord(page, letter);
      await expect(page.getByTestId(`nav-${view}`)).toHaveAttribute('aria-current', 'page');
      await expect(page).toHaveURL(new RegExp(`#/${view}$`));
    }
    await page.keyboard.press('g');
    await page.keyboard.press('Control+f');
    await page.keyboard.press('f');
    await expect(page).toHaveURL(/#\/review$/);
    await chord(page, 't');
    await expect(page).toHaveURL(/#\/trends$/);
  });

  test('g then a letter pressed in time goes there even when the console is busy between the two keys', async ({ page }) => {
    await page.goto(served.url);
    await expect(page.getByTestId('nav-review')).toHaveAttribute('aria-current', 'page', { timeout: 20_000 });
    // A long task right after the g (a chart being drawn on a busy machine): the operator presses the
    // letter at once, the page handles it 2.5 s later, past the g's 1.5-s window. It counts from when
    // it was pressed.
    await page.evaluate(`window.addEventListener('keydown', (e) => {
      if (e.key !== 'g') return;
      const start = performance.now();
      while (performance.now() - start < 2500);
    })`);
    await chord(page, 'd');
    await expect(page.getByTestId('nav-drills')).toHaveAttribute('aria-current', 'page');
  });

  test('/ focuses the findings filter, typing there does not navigate; j/k/Enter open a finding and Esc closes it', async ({ page }) => {
    await page.goto(`${served.url}#/findings`);
    const rows = page.locator('[data-testid^="finding-row-"]');
    await expect(rows.first()).toBeVisible({ timeout: 20_000 });
    const count = page.getByTestId('findings-count');
    /** `N of N`: every finding shown. */
    const unfiltered = /^([\d,]+) of \1$/;
    await expect(count).toHaveText(unfiltered);
    const filter = page.getByTestId('findings-filter-text');
    await page.keyboard.press('/');
    await expect(filter).toBeFocused();
    await page.keyboard.type('gr');
    await expect(filter).toHaveValue('gr');
    await expect(page).toHaveURL(/#\/findings$/);
    await filter.fill('');
    await filter.blur();
    // The rows are the unfiltered ones again before j moves through them (j on rows being replaced
    // focused one that was then taken out of the page).
    await expect(count).toHaveText(unfiltered);

    await page.keyboard.press('j');
    await expect(rows.nth(0)).toBeFocused();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await expect(rows.nth(2)).toBeFocused();
    await page.keyboard.press('k');
    await expect(rows.nth(1)).toBeFocused();
    const id = ((await rows.nth(1).getAttribute('data-testid')) ?? '').replace('finding-row-', '');
    expect(id).not.toBe('');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('finding-detail')).toBeVisible();
    await expect(page.getByTestId('finding-detail')).toContainText(id);
    await expect(page.getByTestId(`finding-row-${id}`)).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('finding-detail')).toBeHidden();
    await expect(page).toHaveURL(/#\/findings$/);
  });

  test('j moves through notices and a acknowledges the focused one', async ({ page }) => {
    await page.goto(`${served.url}#/notices`);
    const notices = page.locator('[data-testid^="notice-"][data-priority]');
    await expect(notices.first()).toBeVisible({ timeout: 20_000 });
    const count = await notices.count();
    let waiting = -1;
    for (let i = 0; i < count && waiting < 0; i++) if ((await notices.nth(i).locator('[data-row-ack]').count()) > 0) waiting = i;
    expect(waiting, 'the demo has a notice waiting to be acknowledged').toBeGreaterThanOrEqual(0);
    for (let i = 0; i <= waiting; i++) await page.keyboard.press('j');
    const notice = notices.nth(waiting);
    await expect(notice).toBeFocused();
    const testId = (await notice.getAttribute('data-testid')) ?? '';
    await page.keyboard.press('a');
    const acked = page.getByTestId(testId);
    await expect(acked).toContainText('acknowledged');
    await expect(acked.locator('[data-row-ack]')).toHaveCount(0);
  });

  test('j/Enter open a phase detail on the loops view, Esc closes it', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const phases = page.locator('[data-testid^="phase-"][data-row]');
    await expect(phases.first()).toBeVisible({ timeout: 20_000 });
    await page.keyboard.press('j');
    await expect(phases.first()).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(phases.first()).toHaveAttribute('aria-pressed', 'true');
    await expect(page.locator('#phase-detail')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.locator('#phase-detail')).toBeHidden();
  });
});
