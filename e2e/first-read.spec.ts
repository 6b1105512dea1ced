import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startSshd, type TestSshd } from '../testing/sshd';
import { createRunner, serve, stamp, type Runner, type Served } from './serve-fixture';

const HOUR = 3_600_000;

test.describe('a first start with nothing saved, while the first read is still in flight', () => {
  let sshd: TestSshd;
  let runner: Runner;
  let served: Served;
  const gate = join(mkdtempSync(join(tmpdir(), 'loopdeck-e2e-gate-')), 'open');
  const now = Date.now();
  const date = new Date(now).toISOString().slice(0, 10);

  test.beforeAll(async () => {
    // Every command on the host waits until the test opens the gate: the first read cannot end
    // before the page has been looked at, however fast or busy this machine is.
    sshd = await startSshd({ gate });
    runner = createRunner(`{ ssh: "${sshd.user}@127.0.0.1:${sshd.port}", identityFile: ${JSON.stringify(sshd.clientKey)}, knownHosts: ${JSON.stringify(sshd.knownHosts)} }`);
    runner.write(date, 'audit.status', `audit ${stamp(new Date(now - HOUR))} STARTED\n`);
    const home = mkdtempSync(join(tmpdir(), 'loopdeck-e2e-home-'));
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir], { HOME: home, SSH_AUTH_SOCK: '' });
  });

  test.afterAll(async () => {
    writeFileSync(gate, '');
    await served?.stop();
    await sshd?.stop();
  });

  test('says it is still reading and copies nothing until the state is read, then shows it whole', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    // Painted at once, marked as half read: no verdict on the loops, no rows, nothing to copy.
    await expect(page.getByTestId('reading')).toBeVisible();
    await expect(page.getByTestId('review-loop-reliability')).toContainText('reading…');
    await expect(page.getByTestId('copy-markdown')).toBeDisabled();
    await expect(page.getByTestId('review-findings-loading')).toHaveText('Loading the findings…');
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/first-read.png' });

    writeFileSync(gate, '');
    await expect(page.getByTestId('reading')).toHaveCount(0);
    await expect(page.getByTestId('copy-markdown')).toBeEnabled();
    // Read whole, nothing wrong yet: but the cycle is running, not finished.
    await expect(page.getByTestId('review-empty')).toContainText('Every loop fired on schedule and none stopped short (1 still running)');
    await page.getByTestId('nav-loops').click();
    await expect(page.getByTestId(`phase-reliability-${date}-audit`)).toHaveAttribute('data-status', 'running');
  });
});

test.describe('a first start while the runner is unreachable', () => {
  let served: Served;

  test.beforeAll(async () => {
    // Nothing listens on the port: a laptop that started before its VPN was up.
    const sshd = await startSshd();
    const port = await freePort();
    const runner = createRunner(`{ ssh: "${sshd.user}@127.0.0.1:${port}", identityFile: ${JSON.stringify(sshd.clientKey)}, knownHosts: ${JSON.stringify(sshd.knownHosts)} }`);
    await sshd.stop();
    const home = mkdtempSync(join(tmpdir(), 'loopdeck-e2e-home-'));
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir], { HOME: home, SSH_AUTH_SOCK: '' });
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('says the host cannot be read instead of "Nothing needs you"', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    await expect(page.getByTestId('review-host-reliability')).toContainText('Host runner is unreachable since');
    await expect(page.getByTestId('review-empty')).toHaveCount(0);
    await expect(page.getByTestId('reading')).toHaveCount(0);
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/unreachable-at-start.png' });
  });
});
