import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

const FINDINGS = 20_000;
const SEVERITIES = ['P0', 'P1', 'P2', 'P2', 'P1'];

/** A 20,000-finding audit ledger in two delta sections, one row in 997 about a torn rename. */
function ledger(): string {
  const rows = (from: number, to: number): string[] =>
    Array.from({ length: to - from }, (_, k) => {
      const i = from + k;
      const text = i % 997 === 0 ? 'state file torn by a concurrent rename' : `retry loop ${i} has no upper bound when the broker answers 503`;
      return `| R-${String(i).padStart(5, '0')} | ${SEVERITIES[i % 5]} | resources | scripts/worker_${i % 50}.py:${10 + (i % 400)} | ${text} |`;
    });
  const head = '| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|';
  return [
    '# Reliability audit',
    '',
    '## Delta audit 2026-11-28',
    head,
    ...rows(1, FINDINGS / 2 + 1),
    '',
    '## Delta audit 2026-11-29 (second pass)',
    head,
    ...rows(FINDINGS / 2 + 1, FINDINGS + 1),
    '',
  ].join('\n');
}

test.describe('findings and pull requests', () => {
  let served: Served;
  const runner = createRunner();
  const date = new Date().toISOString().slice(0, 10);
  const pr = 'https://github.com/acme/radon/pull/88';

  test.beforeAll(async () => {
    const clone = join(runner.dir, 'clone');
    mkdirSync(clone);
    writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), ledger());
    writeFileSync(
      runner.configPath,
      `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(join(runner.dir, 'runs'))}\n    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`,
    );
    const t = stamp(new Date());
    runner.write(date, 'deliver.status', `deliver ${t} STARTED\ndeliver ${t} 1 PR(s) green, ready to merge: ${pr}\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('filters 20,000 findings and opens a PR in the system browser', async ({ page, context }) => {
    await page.goto(`${served.url}#/findings`);
    const count = page.getByTestId('findings-count');
    await expect(count).toContainText('20,000 of 20,000', { timeout: 30_000 });
    await page.getByTestId('findings-filter-text').fill('torn by a concurrent');
    await expect(count).toContainText(`${Math.floor(FINDINGS / 997)} of 20,000`);
    await expect(page.getByTestId('finding-row-R-00997')).toBeVisible();
    // The virtualized table renders only what is on screen, even unfiltered.
    await page.getByTestId('findings-filter-text').fill('');
    await expect(count).toContainText('20,000 of 20,000'); // counted once the rows are the unfiltered ones
    expect(await page.locator('[data-testid^="finding-row-"]').count()).toBeLessThan(200);

    await context.route('https://github.com/**', (route) => route.fulfill({ status: 200, body: 'intercepted' }));
    await page.goto(`${served.url}#/prs`);
    const popup = page.waitForEvent('popup');
    await page.getByTestId('pr-link-88').click();
    expect((await popup).url()).toBe(pr);
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/prs.png' });
  });
});
