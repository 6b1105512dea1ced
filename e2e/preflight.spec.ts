import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seriousViolations } from './axe-check';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

/**
 * Tonight on the Review: two loops that fire every minute (always inside the default 1 h lead),
 * one whose previous cycle is still in remediate and whose deliver record will be resumed, one
 * that is ready. The pre-flight runs on its own in serve mode and the Review says why.
 */
test.describe('the pre-flight on the Review', () => {
  const runner = createRunner();
  const testingRuns = join(runner.dir, 'testing-runs');
  const record = join(runner.dir, 'deliver.json');
  let served: Served;

  test.beforeAll(() => {
    mkdirSync(testingRuns, { recursive: true });
    const q = JSON.stringify;
    writeFileSync(
      runner.configPath,
      [
        'hosts:',
        '  runner: { local: true }',
        'loops:',
        `  reliability: { host: runner, runs: ${q(join(runner.dir, 'runs'))}, schedule: "* * * * *", timezone: UTC, preflightDisk: 1MB, deliverRecord: ${q(record)} }`,
        `  testing: { host: runner, runs: ${q(testingRuns)}, schedule: "* * * * *", timezone: UTC, preflightDisk: 1MB }`,
        '',
      ].join('\n'),
    );
    const started = new Date(Date.now() - 3_600_000);
    runner.write(started.toISOString().slice(0, 10), 'remediate.status', `remediate ${stamp(started)} STARTED\n`);
    writeFileSync(record, q({ loop: 'reliability', branch: 'reliability/2026-11-30', pr: 88, url: 'https://github.com/acme/radon/pull/88', status: 'incomplete', check: 'ci', updated_at: '2026-11-30T10:00:00Z' }));
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('says tonight is at risk because the previous cycle still runs, warns of the resumed PR, and that the other loop is ready', async ({ page }) => {
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
    await page.goto(served.url);
    const block = page.getByTestId('preflight');
    await expect(block).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId('preflight-reliability')).toHaveAttribute('data-state', 'at-risk');
    await expect(page.getByTestId('preflight-headline-reliability')).toHaveText('Tonight: at risk, because');
    await expect(page.getByTestId('preflight-check-reliability-previous-cycle')).toContainText('is still running (remediate since');
    await expect(page.getByTestId('preflight-check-reliability-deliver-record')).toContainText("tonight's fire resumes https://github.com/acme/radon/pull/88");
    await expect(page.getByTestId('preflight-testing')).toHaveAttribute('data-state', 'ready');
    await expect(page.getByTestId('preflight-headline-testing')).toHaveText(/^Tonight: ready — all \d+ checks hold$/);
    await expect(block.locator('header')).toContainText('1 of 2 at risk');
    await expect(page.locator('.rv-summary')).toContainText('tonight at risk');

    mkdirSync('e2e/artifacts', { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await block.screenshot({ path: `e2e/artifacts/preflight-${colorScheme}.png` });
      expect(await seriousViolations(page, '[data-testid="preflight"]'), `axe on Tonight (${colorScheme})`).toEqual([]);
    }
    await page.screenshot({ path: 'e2e/artifacts/preflight-review.png', fullPage: true });

    // The at-risk night is a notice, at priority 1, keyed by its fire.
    await page.goto(`${served.url}#/notices`);
    await expect(page.locator('[data-testid^="notice-preflight:reliability:"][data-priority]').first()).toHaveAttribute('data-priority', '1');
  });
});
