import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

// Failure attribution on the demo: its week has a remediate killed while gpu-b was down for 40
// minutes (the fleet), one failed on a full disk (the runner) and a deliver stopped by a red CI
// check (the agent). Each bad phase carries its cause on the timeline and in its detail.

test.describe('why it stopped: fleet, runner or agent, on the demo', () => {
  let served: Served;
  test.beforeAll(async () => {
    // The live cycle slowed to a standstill (its next step hours away): it is running whenever the
    // pre-flight is looked at, not finished or stopped because a slow run got there minutes later.
    served = await serve(['--speed', '0.001'], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('marks each bad phase on the timeline with its cause, and the detail says which, when and for how long', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const mark = (cause: string) => page.locator(`[data-testid^="cause-reliability-"][data-cause="${cause}"]`).first();
    await expect(mark('fleet')).toBeVisible({ timeout: 20_000 });
    await expect(mark('runner')).toBeVisible();
    await expect(mark('agent')).toBeVisible();

    // The fleet's night: the mark is on the incomplete remediate; its detail names the host and the stretch.
    const fleetPhase = page.locator('[data-testid^="phase-reliability-"]', { has: mark('fleet') }).first();
    await expect(fleetPhase).toHaveAttribute('data-status', 'incomplete');
    await fleetPhase.click();
    const cause = page.getByTestId('phase-detail').getByTestId('phase-cause');
    await expect(cause).toHaveAttribute('data-cause', 'fleet');
    await expect(cause).toContainText(/gpu-b \(via crossbar\) was down for 40m \(03:00–03:40 UTC\) during the phase/);
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/causes-light.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'e2e/artifacts/causes-dark.png' });

    const runnerPhase = page.locator('[data-testid^="phase-reliability-"]', { has: mark('runner') }).first();
    await runnerPhase.click();
    await expect(cause).toHaveAttribute('data-cause', 'runner');
    await expect(cause).toContainText("the runner's disk was full");
    await expect(cause).toContainText('No space left on device');

    const agentPhase = page.locator('[data-testid^="phase-reliability-"]', { has: mark('agent') }).first();
    await agentPhase.click();
    await expect(cause).toHaveAttribute('data-cause', 'agent');
  });

  test('Trends counts the failures by cause and lists the churn, each with its IDs', async ({ page }) => {
    await page.goto(`${served.url}#/trends`);
    const failures = page.getByTestId('trend-failures').first();
    await expect(failures).toBeVisible({ timeout: 30_000 });
    for (const cause of ['fleet', 'runner', 'agent']) await expect(failures.getByTestId(`trend-failures-${cause}`)).toContainText('1');
    const churn = page.getByTestId('trend-churn').first();
    await expect(churn.getByTestId('trend-churn-reopened')).toContainText('REL-041');
    await expect(churn.getByTestId('trend-churn-refound')).toContainText('R-103');
    await page.getByTestId('trend-churn').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'e2e/artifacts/churn-light.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'e2e/artifacts/churn-dark.png' });
  });

  test("the Review says whether tonight's run will work: the demo's pre-flight (a day's lead), each check named", async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const tonight = page.getByTestId('preflight-reliability');
    await expect(tonight).toHaveAttribute('data-state', /^(ready|at-risk)$/, { timeout: 30_000 });
    // The demo plays a cycle all the time: tonight's fire finds the previous one still running.
    await expect(tonight).toHaveAttribute('data-state', 'at-risk');
    await expect(page.getByTestId('preflight-check-reliability-previous-cycle')).toBeVisible();
  });
});
