import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { serve, type Served } from './serve-fixture';

// "Waiting on you" on the demo, which produces every kind: BLOCKED and operator-only outcomes, a
// stopped implementer task, a finding no backlog item covers, ready PRs, a drill due. Each item
// names its loop, its id and what the human must do, and lands where its evidence is; so does
// every kind of notice the demo raises.

/** Check that following a console link landed on what it names, not on an empty or "not found" view. */
async function expectLanded(page: Page, hash: string): Promise<void> {
  const path = decodeURIComponent(hash);
  let m: RegExpExecArray | null;
  if ((m = /^#\/findings\/([^/]+)\/(.+)$/.exec(hash))) {
    const detail = page.getByTestId('finding-detail');
    await expect(detail.locator('.finding-title')).toContainText(decodeURIComponent(m[2] ?? ''));
    await expect(detail.locator('.detail-crumbs')).toContainText(decodeURIComponent(m[1] ?? ''));
    await expect(page.locator(`[data-testid^="finding-row-"][aria-selected="true"]`)).toHaveAttribute('data-loop', decodeURIComponent(m[1] ?? ''));
  } else if ((m = /^#\/loops\/[^/]+\/[^/]+\/[^/]+\/log(?:\?line=(\d+))?$/.exec(hash))) {
    await expect(page.getByTestId('transcript')).toBeVisible();
    await expect(page.getByTestId('transcript-error')).toHaveCount(0);
    await expect(page.locator('[data-testid^="transcript-line-"]').first()).toBeVisible();
    if (m[1]) await expect(page.getByTestId(`transcript-line-${m[1]}`)).toHaveClass(/tl-selected/);
  } else if ((m = /^#\/loops\/([^/]+)$/.exec(hash))) {
    await expect(page.getByTestId(`loop-${decodeURIComponent(m[1] ?? '')}`)).toBeVisible();
  } else if (path === '#/drills') {
    await expect(page.getByTestId('drills').locator('[data-testid^="drill-cadence-"]').first()).toHaveAttribute('data-state', /due|overdue/);
  } else if (path === '#/ledgers') {
    await expect(page.getByTestId('tasks-table').locator('tr.task-stopped').first()).toBeVisible();
  } else if (path === '#/review') {
    // The pre-flight's notice: tonight's section of the Review.
    await expect(page.getByTestId('preflight')).toBeVisible();
  } else if (path === '#/prs') {
    await expect(page.getByTestId('prs-table')).toBeVisible();
  } else if (path === '#/capacity') {
    await expect(page.getByTestId('capacity').first()).toBeVisible();
  } else if ((m = /^#\/hosts\/(.+)$/.exec(hash))) {
    await expect(page.getByTestId('hosts-view').getByTestId(`host-${decodeURIComponent(m[1] ?? '')}`)).toHaveAttribute('aria-current', 'true');
  } else {
    throw new Error(`no check for where ${hash} lands`);
  }
}

test.describe('waiting on you, on the demo', () => {
  let served: Served;
  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('lists every kind of item at the top of the Review, each with its loop, id and what to do', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const waiting = page.getByTestId('waiting');
    await expect(waiting).toBeVisible();
    const first = (kind: string) => waiting.locator(`[data-testid^="waiting-${kind}-"]`).first();
    await expect(first('blocked-reliability')).toContainText('root cause: the broker mock cannot drop mid-frame');
    await expect(first('operator-only-reliability')).toContainText('rotate the broker credential');
    await expect(first('stopped-reliability')).toContainText('v2/03-route-listeners');
    await expect(first('stopped-reliability')).toContainText('the owner must hand over a scaffold');
    await expect(first('uncovered-reliability')).toContainText('no backlog item covers it');
    await expect(first('pr-reliability')).toContainText('CI is green');
    await expect(first('drill-due-demo-runner')).toContainText('sigterm-drain');
    // Fleet incidents beyond down and saturated: the demo's gateway sheds too late and its 504s are a burst.
    await expect(page.getByTestId('review-incident-shed-threshold-gateway-gateway')).toContainText('Lower it to about', { timeout: 60_000 });
    await expect(page.locator('[data-testid^="review-incident-error-burst-"]').first()).toContainText('failed with a server error', { timeout: 60_000 });
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/waiting-light.png', fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'e2e/artifacts/waiting-dark.png', fullPage: true });
  });

  test('each kind of waiting item lands where its evidence is', async ({ page }) => {
    await page.goto(`${served.url}#/review`);
    const waiting = page.getByTestId('waiting');
    await expect(waiting.locator('[data-testid^="waiting-drill-due-"]')).toHaveCount(1);
    for (const kind of ['blocked', 'operator-only', 'stopped', 'uncovered', 'pr', 'drill-due']) {
      await page.goto(`${served.url}#/review`);
      // Pinned by its id: the demo's live cycle may put another of its kind first meanwhile.
      const id = (await waiting.locator(`[data-testid^="waiting-${kind}-"]`).first().getAttribute('data-testid')) ?? '';
      const item = page.getByTestId(id);
      const href = (await item.getAttribute('href')) ?? '';
      await item.click();
      await expect(page).toHaveURL(new RegExp(`${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      await expectLanded(page, href);
    }
  });

  test('follows one notice link of every kind the demo raises to its target', async ({ page }) => {
    await page.goto(`${served.url}#/notices`);
    const links = page.locator('[data-testid^="notice-link-"]');
    // The demo's waiting items, its P0 findings, its past phases, the hollow remediate, its PRs, its fleet, tonight's pre-flight.
    await expect(page.getByTestId('notice-link-waiting:drill-due:demo-runner:sigterm-drain:never')).toBeVisible({ timeout: 20_000 });
    // The demo's gateway fails with 504s under a shed threshold of 80: a fleet incident once ~20 requests are counted.
    await expect(page.locator('[data-testid^="notice-link-fleet:"]').first()).toBeVisible({ timeout: 60_000 });
    const all = await links.evaluateAll((els) => els.map((e) => [(e.getAttribute('data-testid') ?? '').replace('notice-link-', ''), e.getAttribute('href') ?? ''] as const));
    const byKind = new Map<string, { key: string; href: string }>();
    for (const [key, href] of all) {
      const parts = key.split(':');
      const head = parts[0] ?? key;
      const kind = head === 'waiting' ? `waiting:${parts[1]}` : head === 'phase' ? `phase:${parts.at(-1)}` : head;
      if (!byKind.has(kind)) byKind.set(kind, { key, href });
    }
    expect([...byKind.keys()].sort()).toEqual(
      expect.arrayContaining(['finding', 'fleet', 'hollow', 'preflight', 'phase:failed', 'phase:incomplete', 'pr', 'waiting:blocked', 'waiting:drill-due', 'waiting:operator-only', 'waiting:stopped', 'waiting:uncovered']),
    );
    for (const [kind, { key, href }] of byKind) {
      await page.goto(`${served.url}#/notices`);
      const link = page.getByTestId(`notice-link-${key}`);
      if (href.startsWith('https://')) {
        // A PR opens outside (in the system browser): a plain https link in a new context, never the console.
        // The list is the whole of it once loaded again: wait for it as long as for the first notices.
        await expect(link, kind).toBeVisible({ timeout: 20_000 });
        await expect(link, kind).toHaveAttribute('rel', /noopener/);
        continue;
      }
      await link.click();
      await expect(page, kind).toHaveURL(new RegExp(`${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      await expectLanded(page, href);
    }
  });
});
