import { expect, test } from '@playwright/test';
import { startSshd, type TestSshd } from '../testing/sshd';
import { createRunner, serveWithFreshHome, type Runner, type Served } from './serve-fixture';

test.describe('forgetting a host key trusted in Loopdeck', () => {
  let sshd: TestSshd;
  let runner: Runner;
  let served: Served;

  test.beforeAll(async () => {
    sshd = await startSshd();
    runner = createRunner(`{ ssh: "${sshd.user}@127.0.0.1:${sshd.port}", identityFile: ${JSON.stringify(sshd.clientKey)} }`);
    served = await serveWithFreshHome(runner);
  });

  test.afterAll(async () => {
    await served?.stop();
    await sshd?.stop();
  });

  test('Untrust in the host list makes the host untrusted again, offering the same key', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const hostItem = page.getByTestId('host-runner');
    await expect(hostItem).toHaveAttribute('data-state', 'untrusted');
    await expect(page.getByTestId('untrust-runner')).toHaveCount(0);
    await page.getByTestId('trust-runner').click();
    const fingerprint = await page.getByTestId('trust-dialog').locator('code.fingerprint').textContent();
    await page.getByTestId('trust-confirm').click();
    await expect(hostItem).toHaveAttribute('data-state', 'connected');

    const untrust = page.getByTestId('untrust-runner');
    await untrust.getByRole('button', { name: /Untrust/ }).click();
    await expect(untrust.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.getByTestId('untrust-confirm-runner').click();

    await expect(hostItem).toHaveAttribute('data-state', 'untrusted');
    await expect(hostItem.locator('code.fingerprint')).toHaveText(fingerprint ?? '');
    await expect(page.getByTestId('trust-runner')).toBeVisible();
    await expect(page.getByTestId('untrust-runner')).toHaveCount(0);
  });
});
