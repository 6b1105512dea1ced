import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRunner, serve, type Served } from './serve-fixture';

// What the ledgers say beyond their findings, shown: the implementer tasks (stopped first), the
// audit ledger's Audited-through lines, the lessons (new ones on the Review), the finding's
// category as a column and a filter, and a contested severity as the ledger wrote it.

const today = new Date().toISOString().slice(0, 10);

const AUDIT = [
  '# Reliability audit',
  '',
  '## Audit ledger',
  '',
  'Audited through: c529c92a on 2026-08-16 — 83 new findings',
  `Audited through: 4f9c2e1ab7 on ${today} — 3 new findings`,
  '',
  `## Delta audit ${today}`,
  '',
  '| ID | Sev | Category | Where | Finding |',
  '|---|---|---|---|---|',
  '| R-125 | P1 | state | web/api/scan.ts:88 | route serves `fresh` without checking `scan_time` |',
  '| R-126 | P0 | safety | scripts/ib_execute.py:41 | order path bypasses `check_order_limits` |',
  '| R-140 | P1 (contested: P0) | state | scripts/scan_writer.py:17 | writer stamps `scan_time` before the write lands |',
  '',
  '## Lessons',
  '',
  '- 2026-08-22 (audit): check for a remote nightly branch before numbering anything.',
  `- ${today} (audit): escape pipes at emission, not in the source strings.`,
  '',
].join('\n');

const IMPLEMENTER = [
  '# Implementer log',
  '',
  '| Task | Date | Status | Gate runs | First gate | Deviations | Notes | Model |',
  '|---|---|---|---|---|---|---|---|',
  '| v2/01-control-plane | 2026-09-24 | done | 1 | pass | none | control calls take no slot | ? |',
  '| v2/02-route-listeners | 2026-09-25 | stopped | 2 | fail | `main.go` shares one checker | refused `/tmp` write while committing | ? |',
  '| v2/03-wake | 2026-09-25 | done | 1 | pass | none | wake-on-LAN sender | ? |',
  '',
].join('\n');

test.describe('ledgers shown, not only parsed', () => {
  let served: Served;
  const runner = createRunner();

  test.beforeAll(async () => {
    const clone = join(runner.dir, 'clone');
    mkdirSync(join(clone, 'docs'), { recursive: true });
    writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), AUDIT);
    writeFileSync(join(clone, 'docs', 'implementer-log.md'), IMPLEMENTER);
    writeFileSync(
      runner.configPath,
      `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(join(runner.dir, 'runs'))}\n    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md, implementer: docs/implementer-log.md }\n`,
    );
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('tasks, the audit ledger and the lessons on the Ledgers view', async ({ page }) => {
    await page.goto(`${served.url}#/ledgers`);
    const rows = page.getByTestId('tasks-table').locator('tbody tr');
    await expect(rows).toHaveCount(3, { timeout: 30_000 });
    // Stopped first, with its gate runs, first gate, deviations and notes.
    const first = rows.first();
    await expect(first).toHaveAttribute('data-testid', 'task-row-v2/02-route-listeners');
    await expect(first).toContainText('stopped');
    await expect(first).toContainText('fail');
    await expect(first).toContainText('shares one checker');
    await expect(first).toContainText('refused `/tmp` write while committing');

    await expect(page.getByTestId('audit-latest-reliability')).toContainText(`4f9c2e1ab7 on ${today} — 3 new findings`);
    await expect(page.getByTestId('audit-ledger-reliability').locator('tbody tr')).toHaveCount(2);
    await expect(page.getByTestId('audit-mark-reliability-c529c92a')).toContainText('83');

    const lessons = page.getByTestId('lessons-reliability').locator('li');
    await expect(lessons).toHaveCount(2);
    await expect(lessons.first()).toContainText('escape pipes at emission');
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/ledgers.png', fullPage: true });
  });

  test('the Review lists the lessons new since the last review', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const list = page.getByTestId('review-lessons');
    await expect(list).toBeVisible({ timeout: 30_000 });
    await expect(list.locator('li')).toHaveCount(1);
    await expect(list).toContainText('escape pipes at emission');
    await list.locator('a').first().click();
    await expect(page).toHaveURL(/#\/ledgers$/);
  });

  test('findings show the category as a column and a filter, and a contested severity as written', async ({ page }) => {
    await page.goto(`${served.url}#/findings`);
    const count = page.getByTestId('findings-count');
    await expect(count).toContainText('3 of 3', { timeout: 30_000 });
    await expect(page.getByTestId('finding-row-R-126').locator('.fcol-category')).toHaveText('safety');
    await expect(page.getByTestId('finding-row-R-140').getByTestId('severity-written')).toHaveText('P1 (contested: P0)');

    await page.getByTestId('findings-filter-category').selectOption('state');
    await expect(count).toContainText('2 of 3');
    await expect(page.getByTestId('finding-row-R-126')).toHaveCount(0);
    await expect(page.getByTestId('finding-row-R-140')).toBeVisible();

    await page.getByTestId('finding-row-R-140').click();
    await expect(page.getByTestId('finding-detail')).toContainText('P1 (contested: P0)');
  });
});

/** Two loops whose audits both use R-001 and REL-001: each link, selection and card is the loop's own. */
test.describe('two loops sharing an id', () => {
  let served: Served;
  const runner = createRunner();
  const audit = (loop: string, text: string, acceptance: string): string =>
    [
      `## Delta audit ${today}`,
      '',
      '| ID | Sev | Category | Where | Finding |',
      '|---|---|---|---|---|',
      `| R-001 | P1 | state | ${loop}/main.py:1 | ${text} |`,
      '',
      '| ID | Covers | Sev | Acceptance |',
      '|---|---|---|---|',
      `| REL-001 | R-001 | P1 | ${acceptance} |`,
      '',
    ].join('\n');

  test.beforeAll(async () => {
    const q = JSON.stringify;
    const lines = ['hosts:', '  runner: { local: true }', 'loops:'];
    for (const [loop, text, acceptance] of [
      ['reliability', 'reliability: the order path skips the halt check', 'reliability acceptance: a halted broker refuses the order'],
      ['testing', 'testing: the suite passes with the network down', 'testing acceptance: the suite fails without the network'],
    ] as const) {
      const clone = join(runner.dir, `${loop}-clone`);
      mkdirSync(clone, { recursive: true });
      mkdirSync(join(runner.dir, `${loop}-runs`), { recursive: true });
      writeFileSync(join(clone, 'AUDIT.md'), audit(loop, text, acceptance));
      lines.push(`  ${loop}: { host: runner, runs: ${q(join(runner.dir, `${loop}-runs`))}, dir: ${q(clone)}, ledgers: { audit: AUDIT.md } }`);
    }
    writeFileSync(runner.configPath, `${lines.join('\n')}\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('a link names the loop; the detail, the highlighted row and the backlog card are that loop’s', async ({ page }) => {
    await page.goto(`${served.url}#/findings/testing/R-001`);
    const detail = page.getByTestId('finding-detail');
    await expect(detail).toContainText('testing: the suite passes with the network down', { timeout: 30_000 });
    await expect(detail.getByTestId('backlog-REL-001')).toHaveAttribute('data-loop', 'testing');
    await expect(detail.getByTestId('backlog-REL-001')).toContainText('testing acceptance');
    const rows = page.getByTestId('finding-row-R-001');
    await expect(rows).toHaveCount(2);
    await expect(page.locator('[data-testid="finding-row-R-001"][aria-selected="true"]')).toHaveAttribute('data-loop', 'testing');

    // The other loop's row opens the other loop's finding.
    await page.locator('[data-testid="finding-row-R-001"][data-loop="reliability"]').click();
    await expect(page).toHaveURL(/#\/findings\/reliability\/R-001$/);
    await expect(detail).toContainText('reliability: the order path skips the halt check');
    await expect(detail.getByTestId('backlog-REL-001')).toContainText('reliability acceptance');
    await expect(page.locator('[data-testid="finding-row-R-001"][aria-selected="true"]')).toHaveCount(1);
    await expect(page.locator('[data-testid="finding-row-R-001"][aria-selected="true"]')).toHaveAttribute('data-loop', 'reliability');
  });
});
