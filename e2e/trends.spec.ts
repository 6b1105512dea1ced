import { expect, test } from '@playwright/test';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seriousViolations } from './axe-check';
import { createRunner, serve, stamp, type Runner, type Served } from './serve-fixture';

const DAY = 86_400_000;

const H = 3_600_000;

test.describe('trends in the demo', () => {
  let served: Served;

  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('the nav opens Trends with the four charts per loop, drawn, in every range', async ({ page }) => {
    await page.goto(served.url);
    await page.getByTestId('nav-trends').click();
    await expect(page).toHaveURL(/#\/trends$/);
    const loop = page.getByTestId('trends-loop-reliability');
    await expect(loop).toBeVisible({ timeout: 20_000 });
    for (const id of ['outcomes', 'durations', 'findings', 'backlog']) {
      const chart = loop.getByTestId(`trend-chart-${id}`);
      await expect(chart.locator('svg.recharts-surface').first()).toBeVisible();
      expect(Number(await chart.getAttribute('data-points'))).toBe(30);
    }
    // The demo's week of cycles draws bars, and its ledger's findings open on their section dates.
    await expect(loop.locator('[data-testid="trend-chart-outcomes"] .recharts-bar-rectangle').first()).toBeVisible();
    await expect(loop.locator('[data-testid="trend-chart-findings"] .recharts-bar-rectangle').first()).toBeVisible();
    await expect(loop.getByTestId('trend-phase-remediate')).toBeVisible();
    await expect(page.getByTestId('trends-note')).toContainText('DONE row');
    expect(await seriousViolations(page)).toEqual([]);
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/trends-demo.png', fullPage: true });
    for (const r of [7, 90] as const) {
      await page.getByTestId(`trends-range-${r}`).click();
      await expect(loop.getByTestId('trend-chart-backlog')).toHaveAttribute('data-points', String(r));
    }
    // The dark theme draws the same charts from its own variables.
    await page.getByTestId('theme-dark').click();
    await expect(page.locator('html[data-theme="dark"]')).toHaveCount(1);
    await expect(loop.locator('[data-testid="trend-chart-outcomes"] .recharts-bar-rectangle').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: 'e2e/artifacts/trends-demo-dark.png', fullPage: true });
  });
});

/** Nightly cycles ending yesterday: audit 30 min, remediate 1 h (the last night's `lastRemediateHours`), deliver 10 min. */
function writeNights(runner: Runner, count: number, lastRemediateHours: number): string[] {
  const today = Math.floor(Date.now() / DAY) * DAY;
  const dates: string[] = [];
  for (let i = count; i >= 1; i--) {
    const night = today - i * DAY;
    const date = new Date(night).toISOString().slice(0, 10);
    dates.push(date);
    const t = (h: number) => stamp(new Date(night + h * H));
    const rem = i === 1 ? lastRemediateHours : 1;
    runner.write(date, 'audit.status', `audit ${t(0.1)} STARTED\naudit ${t(0.6)} OK\n`);
    runner.write(date, 'remediate.status', `remediate ${t(0.7)} STARTED\nremediate ${t(0.7 + rem)} OK\n`);
    runner.write(date, 'deliver.status', `deliver ${t(0.8 + rem)} STARTED\ndeliver ${t(1 + rem)} 0 PR(s), nothing to merge\n`);
  }
  return dates;
}

/** An audit ledger: 3 P0 the first night (outside the window), 2 a week back (fewer: no flag), then `lastNightP0` on the last night. */
function writeLedger(clone: string, dates: readonly string[], lastNightP0: number): void {
  mkdirSync(clone, { recursive: true });
  let r = 1;
  const section = (date: string, sevs: readonly string[]) =>
    [
      '',
      `## Delta audit ${date}`,
      '',
      '| ID | Sev | Category | Where | Finding |',
      '|----|-----|----------|-------|---------|',
      ...sevs.map((s) => `| R-${String(r++).padStart(3, '0')} | ${s} | durability | src/store.ts:${r} | a write can be torn |`),
      '',
    ].join('\n');
  let text = '# Reliability audit\n';
  text += section(dates[0] ?? '', ['P0', 'P0', 'P0']);
  text += section(dates[dates.length - 8] ?? '', ['P0', 'P0', 'P1']);
  text += section(dates[dates.length - 1] ?? '', Array.from({ length: lastNightP0 }, () => 'P0'));
  writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), text);
}

test.describe('trends on a runner with a known regression', () => {
  let served: Served;
  let runner: Runner;

  test.beforeAll(async () => {
    runner = createRunner();
    const dates = writeNights(runner, 35, 3);
    const clone = join(runner.dir, 'clone');
    writeLedger(clone, dates, 5);
    // Follow every generated night, and the clone's audit ledger.
    appendFileSync(runner.configPath, `    cycles: 40\n    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served?.stop();
    rmSync(runner.dir, { recursive: true, force: true });
  });

  test('flags the last night’s remediate at 3× its median and its 5 new P0 findings, on the charts', async ({ page }) => {
    await page.goto(`${served.url}#/trends`);
    const loop = page.getByTestId('trends-loop-reliability');
    const slow = loop.getByTestId('trend-flag-phase-slow');
    await expect(slow).toBeVisible({ timeout: 20_000 });
    await expect(slow).toContainText('remediate took 3.0h');
    await expect(slow).toContainText('(1.0h)');
    const spike = loop.getByTestId('trend-flag-p0-spike');
    await expect(spike).toBeVisible();
    await expect(spike).toContainText('5 new P0 finding(s)');
    await expect(spike).toContainText('the 30 before (2)');
    // The flagged nights are marked where they happen: a line on the durations and findings charts.
    await expect(loop.locator('[data-testid="trend-chart-durations"] .trend-flag-line')).toHaveCount(1);
    await expect(loop.locator('[data-testid="trend-chart-findings"] .trend-flag-line')).toHaveCount(1);
    // Every night succeeded, so no success-rate flag.
    await expect(loop.getByTestId('trend-flag-success-drop')).toHaveCount(0);
    await expect(loop.getByTestId('trend-phase-remediate')).toBeVisible();
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/trends-regression.png', fullPage: true });
  });
});
