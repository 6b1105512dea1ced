import { expect, test, type Browser, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { createRunner, serve, type Served } from './serve-fixture';

// Serve behind a trusted proxy's header (`serve.auth.proxyHeader`): the browser context sends
// X-Forwarded-User on every request, as the proxy would, the page's WebSocket upgrade included.
// The UI hides what each role may not do, says once which role does, and shows who did what.

const SERVE_AND_DRILL = `serve:
  auth:
    proxyHeader: X-Forwarded-User
    trustedProxies: [127.0.0.1]
    roles:
      admin: [root-admin]
      operator: [olive]
      viewer: ['*']
drills:
  drain:
    host: runner
    timeout: 1m
    every: 7d
    command: echo drained
`;

const SHOTS = 'e2e/artifacts';

/** A page whose every request names `user` in the proxy's header. */
async function pageAs(browser: Browser, user: string): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-User': user } });
  return context.newPage();
}

/** The drill's "due: never run" notice: its key, once the console lists it. */
async function dueNotice(page: Page, url: string): Promise<string> {
  await page.goto(`${url}#/notices`);
  // The socket opens only if its upgrade carried the header (serve refuses it otherwise).
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
  const row = page.locator('[data-testid^="notice-waiting:drill-due:"][data-priority]').first();
  await expect(row).toBeVisible({ timeout: 20_000 });
  return ((await row.getAttribute('data-testid')) ?? '').replace(/^notice-/, '');
}

/** The page background of each theme (as theme.spec.ts checks it). */
const BACKGROUND = { light: 'rgb(244, 245, 247)', dark: 'rgb(15, 19, 24)' } as const;

/** Screenshots of the page in the light and the dark theme (the theme follows the system). */
async function shoot(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveCSS('background-color', BACKGROUND[scheme]);
    await page.screenshot({ path: `${SHOTS}/roles-${name}-${scheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe('roles behind a trusted proxy', () => {
  test.describe.configure({ mode: 'serial' });
  let served: Served;

  test.beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const runner = createRunner('{ local: true }', SERVE_AND_DRILL);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('a request without the header is refused: the page and socket below only work because the context sends it', async ({ request }) => {
    const res = await request.get(served.url, { headers: {} });
    expect(res.status()).toBe(401);
    expect(await res.text()).toContain('X-Forwarded-User');
  });

  test('a viewer reads notices, review and drills, with no acknowledge, snooze, mark reviewed, run or trust control', async ({ browser }) => {
    const page = await pageAs(browser, 'vera');
    const key = await dueNotice(page, served.url);
    await expect(page.getByTestId('identity')).toHaveText('vera · viewer');
    await expect(page.getByTestId('sign-out')).toHaveCount(0);

    const row = page.getByTestId(`notice-${key}`);
    await expect(row).toContainText('drain');
    await expect(page.locator('[data-testid^="notice-ack-"], [data-testid^="notice-snooze-"]')).toHaveCount(0);
    // Said once for the list, not per row.
    await expect(page.getByTestId('notices-role-note')).toHaveText('Acknowledging and snoozing need the operator role.');
    // The `a` shortcut does nothing either: focus the first notice, press it, and every notice is still unacknowledged after a reload.
    await page.keyboard.press('j');
    await expect(page.locator('#content [data-row]').first()).toBeFocused();
    await page.keyboard.press('a');
    await shoot(page, 'notices-viewer');
    await page.reload();
    await expect(page.getByTestId(`notice-${key}`)).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('[data-testid^="notice-state-"]')).toHaveCount(0);
    await page.keyboard.press('?');
    await expect(page.getByTestId('shortcuts-dialog')).not.toContainText('Acknowledge the focused notice');
    await page.keyboard.press('Escape');

    await page.goto(`${served.url}#/review`);
    await expect(page.getByTestId('review')).toBeVisible();
    await expect(page.getByTestId('review-mark')).toHaveCount(0);
    await expect(page.getByTestId('review-role-note').first()).toHaveText('Marking reviewed needs the operator role.');
    await page.screenshot({ path: `${SHOTS}/roles-review-viewer-light.png` });

    await page.goto(`${served.url}#/drills`);
    await expect(page.getByTestId('drill-drain')).toBeVisible();
    await expect(page.getByTestId('drill-run-drain')).toHaveCount(0);
    await expect(page.getByTestId('drills-role-note')).toHaveText('Running a drill needs the admin role.');
    await page.screenshot({ path: `${SHOTS}/roles-drills-viewer-light.png` });
    await expect(page.locator('[data-testid^="trust-"], [data-testid^="untrust-"], [data-testid^="unlock-"]')).toHaveCount(0);
    await page.context().close();
  });

  test('an operator acknowledges a notice and marks reviewed; both show "by olive", also after a reload', async ({ browser }) => {
    const page = await pageAs(browser, 'olive');
    const key = await dueNotice(page, served.url);
    await expect(page.getByTestId('identity')).toHaveText('olive · operator');
    await expect(page.getByTestId('notices-role-note')).toHaveCount(0);
    await page.getByTestId(`notice-ack-${key}`).click();
    const state = page.getByTestId(`notice-state-${key}`);
    await expect(state).toContainText(/acknowledged \d\d:\d\d by olive/);
    await shoot(page, 'notices-operator');
    await page.reload();
    await expect(state).toContainText(/acknowledged \d\d:\d\d by olive/, { timeout: 20_000 });

    await page.goto(`${served.url}#/review`);
    await page.getByTestId('review-mark').first().click();
    await expect(page.getByTestId('review-reviewed-by').first()).toHaveText('olive');
    await page.reload();
    await expect(page.getByTestId('review-reviewed-by').first()).toHaveText('olive', { timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/roles-review-operator-light.png` });

    // An operator does not run drills.
    await page.goto(`${served.url}#/drills`);
    await expect(page.getByTestId('drill-drain')).toBeVisible();
    await expect(page.getByTestId('drill-run-drain')).toHaveCount(0);
    await page.context().close();
  });

  test('an admin sees the drill run control and runs it; the run names them in the detail and the list', async ({ browser }) => {
    const page = await pageAs(browser, 'root-admin');
    await page.goto(`${served.url}#/drills`);
    await expect(page.getByTestId('identity')).toHaveText('root-admin · admin', { timeout: 20_000 });
    await expect(page.getByTestId('drills-role-note')).toHaveCount(0);
    await page.getByTestId('drill-run-drain').click();
    const dialog = page.getByTestId('drill-dialog');
    await dialog.getByTestId('drill-confirm-input').fill('drain');
    await dialog.getByTestId('drill-start').click();
    await expect(page.getByTestId('drill-output')).toContainText('drained', { timeout: 20_000 });
    await expect(page.getByTestId('drill-status')).toHaveAttribute('data-status', 'ok');
    await expect(page.getByTestId('drill-run')).toContainText('by root-admin');
    await page.goto(`${served.url}#/drills`);
    await expect(page.locator('[data-testid^="run-row-"]').first()).toContainText('root-admin');
    await page.screenshot({ path: `${SHOTS}/roles-drills-admin-light.png` });
    await page.context().close();
  });
});
