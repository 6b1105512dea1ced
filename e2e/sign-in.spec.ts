import { appendFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { freePort } from '../testing/sshd';
import { startOidcProvider, type TestOidcProvider } from '../testing/oidc-provider';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

// Signing in to serve mode in a real browser against a real OpenID Provider on loopback: the
// redirect to the provider, its form, the way back with the code, the SameSite=Strict sign-in
// cookie reaching the page and its WebSocket, and signing out at both ends.

const SECRET = 'e2e-client-secret-long-enough';
const now = Date.now();
const date = new Date(now).toISOString().slice(0, 10);

/** A provider, and serve signing people in with it (each sign-in lasting `session`). */
async function startConsole(session: string): Promise<{ op: TestOidcProvider; served: Served; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const op = await startOidcProvider({
    clients: [{ clientId: 'loopdeck', clientSecret: SECRET, redirectUris: [`${base}/auth/callback`], postLogoutRedirectUris: [`${base}/auth/signed-out`] }],
    users: { alice: { groups: ['ops'] }, mallory: { groups: ['guests'] } },
  });
  const runner = createRunner();
  runner.write(date, 'audit.status', `audit ${stamp(new Date(now - 3_600_000))} STARTED\naudit ${stamp(new Date(now - 1_800_000))} OK\n`);
  appendFileSync(
    runner.configPath,
    [
      'serve:',
      `  publicUrl: "${base}"`,
      '  auth:',
      `    oidc: { issuer: "${op.issuer}", clientId: loopdeck, clientSecret: "env:E2E_OIDC_SECRET", scopes: [openid, profile, groups], allowed: { groups: [ops] }, session: ${session} }`,
      '    roles: { operator: ["group:ops"] }',
      '',
    ].join('\n'),
  );
  const served = await serve(['--port', String(port), '--config', runner.configPath, '--data', runner.dataDir], { E2E_OIDC_SECRET: SECRET });
  return { op, served, base };
}

/** A console for the tests of the describe block it is called in: started before them, ended after. */
function consoleFor(session: string): () => { op: TestOidcProvider; served: Served; base: string } {
  let started: { op: TestOidcProvider; served: Served; base: string } | null = null;
  test.beforeAll(async () => {
    started = await startConsole(session);
  });
  test.afterAll(async () => {
    await started?.served.stop();
    await started?.op.close();
  });
  return () => {
    if (!started) throw new Error('the console did not start');
    return started;
  };
}

test.describe('sign-in with OIDC', () => {
  const started = consoleFor('8h');
  test('the console sends the browser to the provider, and opens on the view it asked for once signed in', async ({ page }) => {
    const { op, served, base } = started();
    expect(served.url).toBe(`${base}/`);
    await page.goto(`${base}/#/loops`);
    await expect(page).toHaveURL(new RegExp(`^${op.issuer}/interaction/`));
    await page.fill('input[name=login]', 'alice');
    await page.click('button[type=submit]');
    await expect(page).toHaveURL(`${base}/#/loops`);
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await expect(page.getByTestId(`phase-reliability-${date}-audit`)).toHaveAttribute('data-status', 'ok');
    const cookies = await page.context().cookies(base);
    expect(cookies.find((c) => c.name === 'loopdeck_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await expect(page.getByTestId('identity')).toContainText('alice');
    await expect(page.getByTestId('identity')).toContainText('operator');
    await page.screenshot({ path: 'test-results/sign-in-header.png' });

    // Signing out ends the sign-in here and at the provider: the next visit shows its form again.
    await page.getByTestId('sign-out').click();
    await page.click('button[name=logout]');
    await expect(page.getByText('Signed out of Loopdeck.')).toBeVisible();
    await page.goto(`${base}/`);
    await expect(page.locator('input[name=login]')).toBeVisible();
  });

  test('someone outside the allowed groups is told why, and gets no console', async ({ page }) => {
    const { base } = started();
    await page.goto(`${base}/`);
    await page.fill('input[name=login]', 'mallory');
    await page.click('button[type=submit]');
    await expect(page.getByText('mallory is in none of the groups allowed to sign in (serve.auth.oidc.allowed.groups: ops).')).toBeVisible();
    expect((await page.context().cookies(base)).some((c) => c.name === 'loopdeck_session')).toBe(false);
  });
});

test.describe('a sign-in that expires', () => {
  const started = consoleFor('4s');

  test('sends the page to sign in again when it ends, and back to the same view', async ({ page }) => {
    const { base } = started();
    await page.goto(`${base}/#/notices`);
    await page.fill('input[name=login]', 'alice');
    await page.click('button[type=submit]');
    await expect(page).toHaveURL(`${base}/#/notices`);
    const first = (await page.context().cookies(base)).find((c) => c.name === 'loopdeck_session')?.value;
    // The socket closes when the sign-in ends; the provider still knows alice, so she is back
    // without its form, on the same view, with a new sign-in.
    await expect.poll(async () => (await page.context().cookies(base)).find((c) => c.name === 'loopdeck_session')?.value, { timeout: 20_000 }).not.toBe(first);
    await expect(page).toHaveURL(`${base}/#/notices`);
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  });
});
