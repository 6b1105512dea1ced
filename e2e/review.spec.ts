import { expect, test, type Page } from '@playwright/test';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A morning after a bad night: a loop that did not fire, an incomplete remediate, a new P0, two ready PRs. */
test.describe('the morning review', () => {
  const runner = createRunner();
  const now = Date.now();
  // Both loops fire daily three hours ago (UTC): past the 2 h grace, so a missing cycle is missed.
  const fire = new Date(now - 3 * HOUR);
  const cron = `${fire.getUTCMinutes()} ${fire.getUTCHours()} * * *`;
  const today = fire.toISOString().slice(0, 10);
  const yesterday = new Date(fire.getTime() - DAY).toISOString().slice(0, 10);
  const clone = join(runner.dir, 'clone');
  const testingRuns = join(runner.dir, 'testing-runs');
  const prs = ['https://github.com/acme/radon/pull/88', 'https://github.com/acme/radon/pull/89'];
  let served: Served;

  const config = (): void => {
    const q = JSON.stringify;
    writeFileSync(
      runner.configPath,
      [
        'hosts:',
        '  runner: { local: true }',
        'loops:',
        '  reliability:',
        `    { host: runner, runs: ${q(join(runner.dir, 'runs'))}, dir: ${q(clone)}, schedule: "${cron}", timezone: UTC, grace: 2h, ledgers: { audit: RELIABILITY_AUDIT.md } }`,
        '  testing:',
        `    { host: runner, runs: ${q(testingRuns)}, schedule: "${cron}", timezone: UTC, grace: 2h }`,
        '',
      ].join('\n'),
    );
  };

  const night = (): void => {
    const t = (ms: number): string => stamp(new Date(fire.getTime() - DAY + ms));
    runner.write(yesterday, 'audit.status', `audit ${t(0)} STARTED\naudit ${t(HOUR)} OK\n`);
    runner.write(yesterday, 'remediate.status', `remediate ${t(HOUR)} STARTED\nremediate ${t(9 * HOUR)} INCOMPLETE\nagent exited 0 without committing to the nightly branch\n`);
    runner.write(yesterday, 'remediate.gates.rc', 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n');
    writeFileSync(
      join(clone, 'RELIABILITY_AUDIT.md'),
      `## Delta audit ${yesterday}\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n| R-201 | P0 | safety | scripts/exit_orders.py:88 | exit order placed without the halt check |\n| R-202 | P2 | observability | cloud/scan.timer:1 | timer writes no health row |\n`,
    );
    const day = join(testingRuns, today);
    mkdirSync(day, { recursive: true });
    const s = (ms: number): string => stamp(new Date(fire.getTime() + ms));
    writeFileSync(join(day, 'audit.status'), `audit ${s(0)} STARTED\naudit ${s(10 * 60_000)} OK\n`);
    writeFileSync(join(day, 'remediate.status'), `remediate ${s(11 * 60_000)} STARTED\nremediate ${s(40 * 60_000)} OK\n`);
    writeFileSync(join(day, 'deliver.status'), `deliver ${s(41 * 60_000)} STARTED\ndeliver ${s(60 * 60_000)} 2 PR(s) green, ready to merge: ${prs.join(' ')}\n`);
  };

  const notices = (page: Page) => page.locator('[data-testid^="notice-"][data-priority]');

  test.beforeAll(async () => {
    mkdirSync(clone, { recursive: true });
    mkdirSync(testingRuns, { recursive: true });
    mkdirSync(join(runner.dir, 'runs'), { recursive: true });
    config();
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  test('tells the operator everything, raises each notice once at its priority, and none again after a restart', async ({ page }) => {
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
    await page.goto(served.url);
    await expect(page.getByTestId('review')).toBeVisible();
    // The night happens while Loopdeck watches.
    night();
    const review = page.getByTestId('review');
    await expect(page.getByTestId('review-deadman-reliability')).toHaveAttribute('data-state', 'missed', { timeout: 10_000 });
    await expect(page.getByTestId('review-loop-reliability')).toContainText('suite');
    await expect(page.getByTestId('review-finding-R-201')).toBeVisible();
    await expect(page.getByTestId('review-finding-R-202')).toBeVisible();
    await expect(page.getByTestId('review-pr-88')).toBeVisible();
    await expect(page.getByTestId('review-pr-89')).toBeVisible();
    await expect(page.getByTestId('toast-finding:reliability:R-201')).toBeVisible();
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/review.png', fullPage: true });

    // Every item links to the view that explains it.
    await page.getByTestId('review-finding-R-201').click();
    await expect(page.getByTestId('finding-detail')).toContainText('exit order placed without the halt check');
    await page.goBack();
    await expect(review).toBeVisible();

    await page.goto(`${served.url}#/notices`);
    const expected: Record<string, string> = {
      [`phase:reliability:${yesterday}:remediate:incomplete`]: '1',
      'finding:reliability:R-201': '2',
      [`pr:${prs[0]}:ready`]: '0',
      [`pr:${prs[1]}:ready`]: '0',
    };
    for (const [key, priority] of Object.entries(expected)) {
      await expect(page.getByTestId(`notice-${key}`)).toHaveAttribute('data-priority', priority);
    }
    const missed = page.locator('[data-testid^="notice-deadman:reliability:"][data-priority]');
    await expect(missed).toHaveCount(1);
    await expect(missed).toHaveAttribute('data-priority', '1');
    const before = await notices(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')).sort());
    expect(before.filter((k) => k?.includes('R-202'))).toEqual([]); // a P2 raises nothing

    // Restart: the same night read again from the same database raises nothing new.
    await served.stop();
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
    await page.goto(`${served.url}#/notices`);
    await expect(page.getByTestId(`notice-finding:reliability:R-201`)).toBeVisible();
    // Polls after the restart, seen rather than waited for: a new P0 the ledger gains raises its
    // notice, and the one after it is read by a later poll (polls run one at a time), so once both
    // show, every notice an earlier poll raised has reached the page.
    const barriers = ['R-203', 'R-204'];
    for (const id of barriers) {
      appendFileSync(join(clone, 'RELIABILITY_AUDIT.md'), `| ${id} | P0 | safety | scripts/barrier.py:1 | a finding added after the restart |\n`);
      await expect(page.getByTestId(`notice-finding:reliability:${id}`)).toHaveAttribute('data-priority', '2');
    }
    const after = await notices(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')).sort());
    expect(after).toEqual([...before, ...barriers.map((id) => `notice-finding:reliability:${id}`)].sort());

    await page.goto(served.url);
    await expect(page.getByTestId('review-finding-R-201')).toBeVisible(); // so that its absence below says the mark hid it
    await page.getByTestId('review-mark').click();
    await expect(page.getByTestId('review-finding-R-201')).toHaveCount(0);
  });
});
