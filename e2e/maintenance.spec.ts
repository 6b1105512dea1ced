import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seriousViolations } from './axe-check';
import { createRunner, serve, type Served } from './serve-fixture';

// Maintenance windows from the console (the Notices view), in serve mode behind a trusted proxy's
// header as roles.spec.ts does: an operator plans a one-off window for one loop and it is stored,
// main's refusal of a wrong one is shown as it came (naming `window.end`), End takes a console
// window off the list, a viewer reads the list with neither form nor End, and the config's own
// window is tagged "config" with no End.

const SHOTS = 'e2e/artifacts';

/** Two loops (one is scoped), a Prometheus proxy that refuses connections (a capacity row to name), roles by header, and one config window. */
function config(runs: string): string {
  return `hosts:
  runner: { local: true }
loops:
  reliability:
    host: runner
    runs: ${JSON.stringify(runs)}
    phases: [audit, remediate, deliver]
  nightly:
    host: runner
    runs: ${JSON.stringify(runs)}
    phases: [audit]
proxies:
  fleet: { kind: prometheus, url: "http://127.0.0.1:9", every: 15s }
maintenance:
  - every: "0 3 * * *"
    for: 1h
    timezone: UTC
    reason: nightly backup
serve:
  auth:
    proxyHeader: X-Forwarded-User
    trustedProxies: [127.0.0.1]
    roles:
      operator: [olive]
      viewer: ['*']
`;
}

/** The page background of each theme (as theme.spec.ts checks it). */
const BACKGROUND = { light: 'rgb(244, 245, 247)', dark: 'rgb(15, 19, 24)' } as const;

/** How far the page, or the view's own box, scrolls sideways (px), as phone.spec.ts measures it. */
const pageOverflow = (page: Page): Promise<number> =>
  page.evaluate(`Math.max(document.scrollingElement.scrollWidth - window.innerWidth, ...[...document.querySelectorAll('#content, .detail')].map((e) => e.scrollWidth - e.clientWidth))`) as Promise<number>;

/** A page whose every request names `user` in the proxy's header, at `viewport`. */
async function pageAs(browser: Browser, user: string, viewport = { width: 1280, height: 1000 }): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-User': user }, viewport });
  return context.newPage();
}

/** The Notices view with its maintenance panel, once the socket is open and the summary painted; `plan` opens the form. */
async function openNotices(page: Page, url: string, { plan = false } = {}): Promise<Locator> {
  await page.goto(`${url}#/notices`);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
  const panel = page.getByTestId('maintenance');
  await expect(panel).toBeVisible({ timeout: 20_000 });
  // The config's window is in every summary: the list has painted.
  await expect(configRow(page)).toBeVisible({ timeout: 20_000 });
  if (plan) {
    await page.getByTestId('maintenance-plan').click();
    await expect(page.getByTestId('maintenance-plan')).toHaveAttribute('aria-expanded', 'true');
  }
  return panel;
}

const configRow = (page: Page): Locator => page.locator('[data-testid^="maintenance-window-"][data-source="config"]');
const consoleRows = (page: Page): Locator => page.locator('[data-testid^="maintenance-window-"][data-source="console"]');

/** A window row's id (from its test id). */
async function rowId(row: Locator): Promise<string> {
  return ((await row.getAttribute('data-testid')) ?? '').replace(/^maintenance-window-/, '');
}

/** Screenshots of the page in the light and the dark theme (the theme follows the system), each checked by axe. */
async function shootThemes(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveCSS('background-color', BACKGROUND[scheme]);
    await page.screenshot({ path: `${SHOTS}/maintenance-${name}-${scheme}.png` });
    expect(await seriousViolations(page, '[data-testid="maintenance"]'), `axe on the maintenance panel (${name}, ${scheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe('maintenance windows from the console', () => {
  test.describe.configure({ mode: 'serial' });
  let served: Served;
  const reason = 'fleet upgrade (e2e)';

  test.beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const runner = createRunner();
    writeFileSync(runner.configPath, config(join(runner.dir, 'runs')));
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('the config window is listed, tagged "config", with its cron and no End', async ({ browser }) => {
    const page = await pageAs(browser, 'olive');
    await openNotices(page, served.url);
    await expect(page.getByTestId('identity')).toHaveText('olive · operator');
    const row = configRow(page);
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('nightly backup');
    await expect(row.locator('.tag', { hasText: /^config$/ })).toBeVisible();
    await expect(row).toContainText('every 0 3 * * * (UTC), for 1h');
    await expect(row).toContainText('everything');
    // A config window ends in the file: an operator, who may end console windows, gets no End here.
    // The form opens on request.
    await expect(page.getByTestId('maintenance-form')).toHaveCount(0);
    await page.getByTestId('maintenance-plan').click();
    await expect(page.getByTestId('maintenance-form')).toBeVisible();
    await expect(row.locator('[data-testid^="maintenance-end-"]')).toHaveCount(0);
    await page.context().close();
  });

  test('an operator plans a one-off window for one loop from the form (by keyboard): listed as in force, and still there after a reload', async ({ browser }) => {
    const page = await pageAs(browser, 'olive');
    await openNotices(page, served.url, { plan: true });
    await expect(consoleRows(page)).toHaveCount(0);
    const form = page.getByTestId('maintenance-form');
    // The defaults: from now, until two hours later; nothing ticked is everything.
    await expect(page.getByTestId('maintenance-from')).toHaveValue(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    await expect(page.getByTestId('maintenance-until')).toHaveValue(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    await expect(form).toContainText('Nothing ticked: the window covers everything');
    await expect(page.getByTestId('maintenance-scope-proxies-fleet')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('maintenance-scope-hosts-runner')).toBeVisible();

    await page.getByTestId('maintenance-reason').fill(reason);
    await page.getByTestId('maintenance-scope-loops-reliability').focus();
    await page.keyboard.press('Space');
    await expect(page.getByTestId('maintenance-scope-loops-reliability')).toBeChecked();
    await expect(page.getByTestId('maintenance-scope-loops-nightly')).not.toBeChecked();
    await page.getByTestId('maintenance-reason').focus();
    await page.keyboard.press('Enter');

    const row = consoleRows(page);
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-state', 'in-force');
    await expect(row).toContainText(reason);
    await expect(row).toContainText('in force until');
    await expect(row).toContainText('added by olive');
    const id = await rowId(row);
    await expect(page.getByTestId(`maintenance-scope-${id}`)).toHaveText('loops reliability');
    await expect(page.getByTestId('maintenance-end-' + id)).toBeVisible();
    await expect(page.getByTestId('maintenance-added')).toHaveText(`Planned “${reason}”.`);
    // The form starts afresh.
    await expect(page.getByTestId('maintenance-reason')).toHaveValue('');
    await expect(page.getByTestId('maintenance-scope-loops-reliability')).not.toBeChecked();

    // Stored: a reload (a new summary) lists it again, the same window.
    await page.reload();
    await openNotices(page, served.url);
    await expect(page.getByTestId(`maintenance-window-${id}`)).toContainText(reason);
    await expect(page.getByTestId(`maintenance-window-${id}`)).toHaveAttribute('data-state', 'in-force');
    await page.context().close();
  });

  test('a window ending before it begins is refused with main\'s message naming window.end, and nothing is added', async ({ browser }) => {
    const page = await pageAs(browser, 'olive');
    await openNotices(page, served.url, { plan: true });
    await expect(consoleRows(page)).toHaveCount(1);
    const from = await page.getByTestId('maintenance-from').inputValue();
    await page.getByTestId('maintenance-reason').fill('backwards');
    // An hour before "from" (the browser's wall clock, as the form reads it).
    const until = (await page.evaluate(`(() => { const d = new Date(new Date(${JSON.stringify(from)}).getTime() - 3600000); const p = (n) => String(n).padStart(2, '0'); return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()); })()`)) as string;
    await page.getByTestId('maintenance-until').fill(until);
    await page.getByTestId('maintenance-add').click();

    const error = page.getByTestId('maintenance-error');
    await expect(error).toHaveAttribute('role', 'alert');
    // As main said it (after the client's "maintenance.add failed: ").
    await expect(error).toHaveText(/The maintenance window was not added: window\.end: expected a time after start\.$/);
    await expect(consoleRows(page)).toHaveCount(1);
    await expect(page.locator('[data-testid^="maintenance-window-"]', { hasText: 'backwards' })).toHaveCount(0);
    // What was typed stays, to be put right.
    await expect(page.getByTestId('maintenance-reason')).toHaveValue('backwards');
    await page.context().close();
  });

  test('a viewer sees the windows, but no form and no End: the role note instead', async ({ browser }) => {
    const page = await pageAs(browser, 'vera');
    const panel = await openNotices(page, served.url);
    await expect(page.getByTestId('identity')).toHaveText('vera · viewer');
    await expect(consoleRows(page)).toHaveCount(1);
    await expect(consoleRows(page)).toContainText(reason);
    await expect(consoleRows(page)).toContainText('added by olive');
    await expect(page.getByTestId('maintenance-form')).toHaveCount(0);
    await expect(panel.locator('[data-testid^="maintenance-end-"]')).toHaveCount(0);
    await expect(page.getByTestId('maintenance-role-note')).toHaveText('Planning and ending a window need the operator role.');
    await shootThemes(page, 'viewer');
    await page.context().close();
  });

  test('screenshots of the Notices view with planned windows: 1280 wide in both themes, and 390 × 844 with no sideways scrolling', async ({ browser }) => {
    const page = await pageAs(browser, 'olive');
    await openNotices(page, served.url, { plan: true });
    // A recurring window, not yet in force, scoped to a host and the proxy, beside the one-off in force.
    await page.getByTestId('maintenance-kind-every').check();
    await page.getByTestId('maintenance-reason').fill('weekly fleet reboot');
    await page.getByTestId('maintenance-every').fill('30 4 * * 0');
    await page.getByTestId('maintenance-for').fill('90m');
    await page.getByTestId('maintenance-timezone').fill('Europe/Berlin');
    await page.getByTestId('maintenance-scope-hosts-runner').check();
    await page.getByTestId('maintenance-scope-proxies-fleet').check();
    await page.getByTestId('maintenance-add').click();
    const weekly = page.locator('[data-testid^="maintenance-window-"]', { hasText: 'weekly fleet reboot' });
    await expect(weekly).toBeVisible();
    await expect(weekly).toContainText('every 30 4 * * 0 (Europe/Berlin), for 1h30m');
    await expect(weekly).toContainText('hosts runner; proxies fleet');
    await expect(weekly).toContainText(/from .+ to /);
    await expect(consoleRows(page)).toHaveCount(2);
    // The recurring fields, as a picture of the form alone; then back to the one-off form for the view's pictures.
    await page.getByTestId('maintenance-kind-every').check();
    await expect(page.getByTestId('maintenance-timezone')).toHaveValue(/.+/);
    await page.getByTestId('maintenance-form').screenshot({ path: `${SHOTS}/maintenance-form-recurring-light.png` });
    await page.getByTestId('maintenance-kind-once').check();
    await shootThemes(page, 'notices-1280');
    await page.context().close();

    const phone = await pageAs(browser, 'olive', { width: 390, height: 844 });
    await openNotices(phone, served.url, { plan: true });
    await expect(consoleRows(phone)).toHaveCount(2);
    for (const scheme of ['light', 'dark'] as const) {
      await phone.emulateMedia({ colorScheme: scheme });
      await expect(phone.locator('html')).toHaveCSS('background-color', BACKGROUND[scheme]);
      await phone.evaluate(`document.getElementById('content').scrollTo(0, 0)`);
      await phone.screenshot({ path: `${SHOTS}/maintenance-notices-390-${scheme}.png` });
      // The form, scrolled to, as well.
      await phone.getByTestId('maintenance-add').scrollIntoViewIfNeeded();
      await phone.screenshot({ path: `${SHOTS}/maintenance-notices-390-form-${scheme}.png` });
      expect(await pageOverflow(phone), `the Notices view at 390 px (${scheme}) scrolls sideways`).toBeLessThanOrEqual(0);
      expect(await seriousViolations(phone, '[data-testid="maintenance"]'), `axe on the maintenance panel at 390 px (${scheme})`).toEqual([]);
    }
    await phone.context().close();
  });

  test('End takes a console window off the list, for every console', async ({ browser }) => {
    const page = await pageAs(browser, 'olive');
    await openNotices(page, served.url);
    const viewer = await pageAs(browser, 'vera');
    await openNotices(viewer, served.url);
    const row = consoleRows(page).filter({ hasText: reason });
    await expect(row).toHaveCount(1);
    const id = await rowId(row);
    await expect(viewer.getByTestId(`maintenance-window-${id}`)).toBeVisible();

    await page.getByTestId(`maintenance-end-${id}`).click();
    await expect(page.getByTestId(`maintenance-window-${id}`)).toHaveCount(0);
    // `maintenance.changed` reaches the other console too; the config's window stays.
    await expect(viewer.getByTestId(`maintenance-window-${id}`)).toHaveCount(0);
    await expect(configRow(page)).toHaveCount(1);
    // Ended for good: not back after a reload.
    await page.reload();
    await openNotices(page, served.url);
    await expect(consoleRows(page).filter({ hasText: reason })).toHaveCount(0);
    await viewer.context().close();
    await page.context().close();
  });
});

test.describe('no maintenance window', () => {
  let served: Served;

  test.beforeAll(async () => {
    const runner = createRunner();
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('the panel says none is planned and what a window does, and offers the form', async ({ page }) => {
    await page.goto(`${served.url}#/notices`);
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    const empty = page.getByTestId('maintenance-empty');
    await expect(empty).toBeVisible({ timeout: 20_000 });
    await expect(empty).toContainText('No maintenance window is planned');
    await expect(empty).toContainText('held back');
    await expect(empty).toContainText('in maintenance');
    await expect(empty).toContainText('Alertmanager');
    await expect(page.locator('[data-testid^="maintenance-window-"]')).toHaveCount(0);
    await page.getByTestId('maintenance-plan').click();
    await expect(page.getByTestId('maintenance-form')).toBeVisible();
    // Without capacity rows there is no proxy to name: only the kinds the console knows are offered.
    await expect(page.getByTestId('maintenance-scope-loops-reliability')).toBeVisible();
    await expect(page.locator('[data-testid^="maintenance-scope-proxies-"]')).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/maintenance-empty-light.png` });
  });
});
