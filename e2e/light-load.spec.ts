import { expect, test } from '@playwright/test';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

const FINDINGS = 20_000;

/** An audit-ledger section of findings `from`..`to` (exclusive); P2/P3 only, so no notices. */
function section(title: string, from: number, to: number): string {
  const rows = Array.from(
    { length: to - from },
    (_, k) => `| R-${String(from + k).padStart(5, '0')} | P${2 + ((from + k) % 2)} | resources | scripts/worker_${k % 50}.py:${10 + (k % 400)} | retry loop ${from + k} has no upper bound |`,
  );
  return [`## ${title}`, '| ID | Sev | Category | Where | Finding |', '|----|-----|----------|-------|---------|', ...rows, '', ''].join('\n');
}

interface Frame {
  readonly bytes: number;
  readonly name: string;
}

test.describe('the light first load', () => {
  let served: Served;
  const runner = createRunner();
  const date = new Date().toISOString().slice(0, 10);
  const audit = join(runner.dir, 'clone', 'RELIABILITY_AUDIT.md');

  test.beforeAll(async () => {
    mkdirSync(join(runner.dir, 'clone'));
    writeFileSync(audit, `# Reliability audit\n\n${section('Delta audit 2026-11-28', 1, FINDINGS + 1)}`);
    writeFileSync(
      runner.configPath,
      `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(join(runner.dir, 'runs'))}\n    dir: ${JSON.stringify(join(runner.dir, 'clone'))}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`,
    );
    runner.write(date, 'audit.status', `audit ${stamp(new Date())} STARTED\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('paints the Review from a summary without rows, then the findings arrive in pages and follow appends', async ({ page }) => {
    // Which command each answer frame belongs to, and its size.
    const frames: Frame[] = [];
    const names = new Map<number, string>();
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => {
        const m = JSON.parse(String(f.payload)) as { id: number; name: string };
        names.set(m.id, m.name);
      });
      ws.on('framereceived', (f) => {
        const text = String(f.payload);
        const m = JSON.parse(text) as { type: string; id?: number };
        if (m.type === 'result' && m.id !== undefined) frames.push({ bytes: text.length, name: names.get(m.id) ?? '?' });
      });
    });
    // serve reads the ledger before the page loads everything: wait until the summary counts it.
    await expect(async () => {
      await page.goto(served.url);
      await expect(page.getByTestId('review')).toBeVisible();
      await expect(page.getByTestId('nav-findings').locator('.nav-count')).toHaveText('20,000', { timeout: 20_000 });
    }).toPass({ timeout: 60_000 });

    const summary = frames.filter((f) => f.name === 'state.summary').at(-1);
    const pages = frames.filter((f) => f.name === 'ledgers.page');
    expect(frames.some((f) => f.name === 'state.snapshot')).toBe(false);
    // The summary carries no rows (a few KB), the 20,000 rows come in several pages.
    expect(summary?.bytes ?? Infinity).toBeLessThan(50_000);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages.reduce((n, f) => n + f.bytes, 0)).toBeGreaterThan(4_000_000);

    await page.getByTestId('nav-findings').click();
    const count = page.getByTestId('findings-count');
    await expect(count).toHaveText(`${FINDINGS.toLocaleString('en-US')} of ${FINDINGS.toLocaleString('en-US')}`);
    await expect(page.locator('[data-testid="findings-table"] [data-testid^="finding-row-"]').first()).toBeVisible();

    // A section appended after the load reaches the table as a delta.
    appendFileSync(audit, section('Delta audit 2026-11-29', FINDINGS + 1, FINDINGS + 51));
    await expect(count).toHaveText('20,050 of 20,050', { timeout: 20_000 });
    await page.getByTestId('findings-filter-text').fill('retry loop 20050 ');
    await expect(page.getByTestId('finding-row-R-20050')).toBeVisible();
  });
});
