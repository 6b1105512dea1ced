import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { startSshd, type TestSshd } from '../testing/sshd';
import { createRunner, serveWithFreshHome, stamp, type Runner, type Served } from './serve-fixture';

const HOUR = 3_600_000;

test.describe('a loop on an SSH host', () => {
  let sshd: TestSshd;
  let runner: Runner;
  let served: Served;
  const now = Date.now();
  const date = new Date(now).toISOString().slice(0, 10);

  test.beforeAll(async () => {
    sshd = await startSshd();
    // No knownHosts entry: the operator must trust the key in the UI before anything is read.
    runner = createRunner(`{ ssh: "${sshd.user}@127.0.0.1:${sshd.port}", identityFile: ${JSON.stringify(sshd.clientKey)} }`);
    runner.write(date, 'audit.status', `audit ${stamp(new Date(now - HOUR))} STARTED\n`);
    served = await serveWithFreshHome(runner);
  });

  test.afterAll(async () => {
    await served?.stop();
    await sshd?.stop();
  });

  test('is untrusted until the operator trusts its key, then follows it live', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const hostItem = page.getByTestId('host-runner');
    await expect(hostItem).toHaveAttribute('data-state', 'untrusted');
    await expect(page.getByTestId(`phase-reliability-${date}-audit`)).toHaveCount(0);

    await page.getByTestId('trust-runner').click();
    const dialog = page.getByTestId('trust-dialog');
    await expect(dialog).toContainText(/SHA256:[A-Za-z0-9+/]{43}/);
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/ssh-trust.png' });
    await page.getByTestId('trust-confirm').click();

    await expect(hostItem).toHaveAttribute('data-state', 'connected');
    const audit = page.getByTestId(`phase-reliability-${date}-audit`);
    await expect(audit).toHaveAttribute('data-status', 'running');
    runner.append(date, 'audit.status', `audit ${stamp(new Date())} OK\n`);
    await expect(audit).toHaveAttribute('data-status', 'ok');
  });
});
