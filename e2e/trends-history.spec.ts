import { expect, test } from '@playwright/test';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seriousViolations } from './axe-check';
import { createRunner, serve, stamp, type Runner, type Served } from './serve-fixture';

const DAY = 86_400_000;
const H = 3_600_000;

/** 40 nights ending yesterday, one PR each; the remediate 20 nights back failed (outside the 14 followed). */
function writeNights(runner: Runner, count: number): string[] {
  const today = Math.floor(Date.now() / DAY) * DAY;
  const dates: string[] = [];
  for (let i = count; i >= 1; i--) {
    const night = today - i * DAY;
    const date = new Date(night).toISOString().slice(0, 10);
    dates.push(date);
    const t = (h: number) => stamp(new Date(night + h * H));
    runner.write(date, 'audit.status', `audit ${t(0.1)} STARTED\naudit ${t(0.6)} OK\n`);
    runner.write(date, 'remediate.status', `remediate ${t(0.7)} STARTED\nremediate ${t(1.7)} ${i === 20 ? 'FAILED 1' : 'OK'}\n`);
    runner.write(date, 'deliver.status', `deliver ${t(2)} STARTED\ndeliver ${t(2.5)} 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${500 + i}\n`);
  }
  return dates;
}

/** A DONE item BLOCKED later (REL-2), and R-3 re-found at R-1's file:line 9 days after R-1's DONE. */
function writeLedgers(clone: string, dates: readonly string[]): void {
  mkdirSync(clone, { recursive: true });
  const at = (n: number) => dates[dates.length - n] ?? '';
  const table = (date: string, rows: string[]) => `\n## Delta audit ${date}\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n${rows.join('\n')}\n`;
  writeFileSync(
    join(clone, 'RELIABILITY_AUDIT.md'),
    '# Reliability audit\n' +
      table(at(25), ['| R-1 | P1 | durability | src/orders.py:120 | write not fsynced |', '| R-2 | P1 | safety | src/halt.py:9 | halt bypassed |']) +
      '\n| ID | Findings | Sev | Acceptance |\n|---|---|---|---|\n| REL-1 | R-1 | P1 | crash mid-write |\n| REL-2 | R-2 | P1 | inject a bypass |\n' +
      table(at(15), ['| R-3 | P1 | durability | src/orders.py:120 | still not fsynced on rotate |']),
  );
  writeFileSync(
    join(clone, 'RELIABILITY_LOG.md'),
    '# Reliability log\n\n| ID | Date | Outcome | Red/Green | Notes |\n|----|------|---------|-----------|-------|\n' +
      `| REL-1 | ${at(24)} | DONE | 1/1 | fsync |\n| REL-2 | ${at(24)} | DONE | 1/1 | halt |\n| REL-2 | ${at(5)} | BLOCKED | 1/0 | skipped on retry |\n`,
  );
}

test.describe('trends past the followed window', () => {
  let served: Served;
  let runner: Runner;

  test.beforeAll(async () => {
    runner = createRunner();
    const dates = writeNights(runner, 40);
    const clone = join(runner.dir, 'clone');
    writeLedgers(clone, dates);
    appendFileSync(runner.configPath, `    cycles: 14\n    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served?.stop();
    rmSync(runner.dir, { recursive: true, force: true });
  });

  test('shows the kept nights, failures by cause and the churn with its IDs, in light and dark', async ({ page }) => {
    await page.goto(`${served.url}#/trends`);
    const loop = page.getByTestId('trends-loop-reliability');
    await expect(loop).toBeVisible({ timeout: 20_000 });
    // 40 nights with one PR each over 90 nights: 26 of them only the store keeps (14 are followed).
    await expect(loop.getByTestId('trend-measures-90')).toContainText('40', { timeout: 20_000 });
    await expect(loop.getByTestId('trend-measures-30')).toContainText('30');
    // The failed remediate 20 nights back is no followed cycle: counted from its kept night. This
    // Loopdeck was not running that night, so it is not put down to anyone (unknown), not the agent.
    await expect(loop.getByTestId('trend-failures-unknown')).toContainText('1');
    await expect(loop.getByTestId('trend-failures-agent')).toContainText('0');
    await expect(loop.getByTestId('trend-failures-fleet')).toContainText('0');
    const reopened = loop.getByTestId('trend-churn-reopened');
    await expect(reopened).toContainText('REL-2');
    await expect(reopened).toContainText('R-2');
    await expect(reopened).toContainText('BLOCKED');
    const refound = loop.getByTestId('trend-churn-refound');
    await expect(refound).toContainText('R-3');
    await expect(refound).toContainText('R-1');
    await expect(refound).toContainText('src/orders.py:120');
    await expect(refound).toContainText('after 9 d');
    mkdirSync('e2e/artifacts', { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await expect(loop.getByTestId('trend-churn')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `e2e/artifacts/trends-history-${colorScheme}.png`, fullPage: true });
    }
  });
});
