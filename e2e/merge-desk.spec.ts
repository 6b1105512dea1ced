import { expect, test, type Page } from '@playwright/test';
import { appendFileSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { startGithubServer, type FakePr, type GithubServer } from '../testing/github-server';
import { seriousViolations } from './axe-check';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

// The merge desk in serve mode (issue 44): with a `github:` section and the loop's `repo:`, the
// Pull requests view lists every open PR of the loop's repository from a GitHub stand-in on
// loopback (testing/github-server.ts): titles, checks by name, stale and overlapping PRs marked,
// the Next section ticked step by step, and the merge of the head the operator saw.

const TOKEN = 'ghp_e2e_desk_token';
const SHOTS = 'test-results/screens';
const HOUR = 3_600_000;
const SHA_90 = '90a1b2c3d4e5f60718293a4b5c6d7e8f90123456';
const SHA_91 = '91b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const MOVED_91 = '91ffffffffffffffffffffffffffffffffffffff';

/** Who serve's per-run token acts as: the account Loopdeck runs under (main/rpc/local-caller.ts). */
function localUser(): string {
  try {
    return userInfo().username || 'local';
  } catch {
    return 'local';
  }
}

/** The page background of each theme (as theme.spec.ts checks it). */
const BACKGROUND = { light: 'rgb(244, 245, 247)', dark: 'rgb(15, 19, 24)' } as const;

/** Both themes, the page settled in each (the theme follows the system). */
async function inThemes(page: Page, shoot: (theme: 'light' | 'dark') => Promise<void>): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await expect(page.locator('html')).toHaveCSS('background-color', BACKGROUND[theme]);
    await shoot(theme);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe('the merge desk, in serve mode against a GitHub stand-in', () => {
  let served: Served;
  let github: GithubServer;
  let pr90: FakePr;
  let pr91: FakePr;

  test.beforeAll(async () => {
    github = await startGithubServer(TOKEN);
    const now = Date.now();
    const day = new Date(now).toISOString().slice(0, 10);
    const before = new Date(now - 3 * 24 * HOUR).toISOString().slice(0, 10);
    pr90 = {
      state: 'open',
      merged: false,
      title: 'Scanner writes a health row (R-183)',
      author: 'loop-bot',
      head: `reliability/${day}`,
      base: 'main',
      sha: SHA_90,
      createdAt: new Date(now - 5 * HOUR).toISOString(),
      additions: 40,
      deletions: 6,
      files: ['scanner/health.py', 'scanner/rows.py'],
      body: '## What was done to fix it\n- **Scanner**: writes one.\n\n## Next\n- **Control plane**: run `bootstrap-control-plane.sh` install-copy before merge.\n- **Credentials**: rotate the IB gateway password.\n',
      checks: [
        { kind: 'run', name: 'suite', status: 'completed', conclusion: 'success', url: 'https://127.0.0.1/acme/radon/runs/1' },
        { kind: 'status', context: 'ci/lint', state: 'failure', url: 'https://127.0.0.1/acme/radon/lint/1' },
      ],
      reviews: [{ login: 'olive', state: 'APPROVED' }],
    };
    pr91 = {
      state: 'open',
      merged: false,
      title: 'Scanner: retry the health row write',
      author: 'loop-bot',
      head: `reliability/${before}`,
      base: 'main',
      sha: SHA_91,
      createdAt: new Date(now - 3 * 24 * HOUR).toISOString(),
      additions: 12,
      deletions: 2,
      files: ['scanner/health.py'],
      body: null,
      checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }],
    };
    github.prs.set('acme/radon#90', pr90);
    github.prs.set('acme/radon#91', pr91);
    // Not the loop's: its head does not match `reliability/{date}`, so the desk leaves it out.
    github.prs.set('acme/radon#7', { state: 'open', merged: false, head: 'feature/other', title: 'Someone else', body: null, checks: [] });

    const runner = createRunner('{ local: true }', '    repo: acme/radon\n');
    appendFileSync(runner.configPath, `github:\n  token: "env:LOOPDECK_E2E_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(github.url)}\n  every: 1s\n`);
    // The loop's deliver said #90 green: its failing lint is "red after READY".
    runner.write(day, 'deliver.log', 'NIGHTLY DELIVER READY: loop=reliability prs=1 https://127.0.0.1/acme/radon/pull/90\n');
    runner.write(day, 'deliver.status', `deliver ${stamp(new Date(now - 2 * HOUR))} STARTED\ndeliver ${stamp(new Date(now - HOUR))} 1 PR(s) green, ready to merge: https://127.0.0.1/acme/radon/pull/90\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir], { LOOPDECK_E2E_GITHUB_TOKEN: TOKEN });
    mkdirSync(SHOTS, { recursive: true });
  });
  test.afterAll(async () => {
    await served?.stop();
    await github?.close();
  });

  test('lists the PRs, marks what to look at, ticks the Next steps and merges the head shown; a moved head is refused as GitHub says', async ({ page }) => {
    await page.goto(`${served.url}#/prs`);
    const card90 = page.getByTestId('desk-pr-90');
    const card91 = page.getByTestId('desk-pr-91');
    await expect(card90).toContainText('#90 Scanner writes a health row (R-183)', { timeout: 20_000 });
    await expect(card91).toContainText('Scanner: retry the health row write');
    await expect(page.getByTestId('desk-pr-7')).toHaveCount(0);

    // Each check by name with its state; the size, the base, the review, the finding it fixes.
    await expect(page.getByTestId('desk-check-90-suite')).toHaveAttribute('data-state', 'passing');
    await expect(page.getByTestId('desk-check-90-ci/lint')).toHaveAttribute('data-state', 'failing');
    await expect(page.getByTestId('desk-size-90')).toHaveText('+40 −6 · 2 files');
    await expect(page.getByTestId('desk-review-90')).toHaveText('approved');
    await expect(card90.getByRole('link', { name: 'R-183', exact: true })).toHaveAttribute('href', '#/findings/reliability/R-183');
    await expect(page.getByTestId('desk-red-90')).toBeVisible();

    // The stale one, and the two touching the same file, each linking to the other's card.
    await expect(page.getByTestId('desk-stale-91')).toBeVisible();
    await expect(page.getByTestId('desk-stale-90')).toHaveCount(0);
    await expect(page.getByTestId('desk-overlaps-90')).toContainText('Touches the same files as #91');
    await expect(page.getByTestId('desk-overlaps-91')).toContainText('Touches the same files as #90');
    await page.getByTestId('desk-overlap-90-91').click();
    await expect(card91).toBeFocused();

    // While a check fails and the Next steps are open, the merge says why.
    const merge90 = page.getByTestId('desk-merge-90');
    await expect(merge90).toBeDisabled();
    const blockers = page.getByTestId('desk-blockers-90');
    await expect(blockers).toContainText('a check has not passed: ci/lint (failing)');
    await expect(blockers).toContainText('2 Next steps are not ticked: 1, 2');

    // Ticking both steps: who and when are shown, and they stay ticked.
    const who = localUser();
    for (const step of [0, 1]) {
      await page.getByTestId(`desk-step-box-90-${step}`).check();
      await expect(page.getByTestId(`desk-step-who-90-${step}`)).toContainText(`ticked by ${who} at`);
      await expect(page.getByTestId(`desk-step-box-90-${step}`)).toBeChecked();
      await expect(page.getByTestId(`desk-step-box-90-${step}`)).toBeDisabled();
    }
    await expect(blockers).not.toContainText('Next step');
    await expect(merge90).toBeDisabled();

    await inThemes(page, async (theme) => {
      await page.getByTestId('desk').screenshot({ path: `${SHOTS}/merge-desk-${theme}.png` });
      expect(await seriousViolations(page, '[data-testid="desk"]'), `axe on the desk (${theme})`).toEqual([]);
    });

    // The check turns green at GitHub: the next round enables the merge.
    pr90.checks = [pr90.checks[0]!, { kind: 'status', context: 'ci/lint', state: 'success', url: 'https://127.0.0.1/acme/radon/lint/2' }];
    await expect(merge90).toBeEnabled({ timeout: 20_000 });
    await expect(page.getByTestId('desk-check-90-ci/lint')).toHaveAttribute('data-state', 'passing');

    // The confirmation: a modal dialog naming the PR, its base, its size, the head and the method; Escape cancels.
    await merge90.click();
    const dialog = page.getByRole('dialog', { name: /Merge #90: Scanner writes a health row/ });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    for (let i = 0; i < 4; i += 1) {
      await page.keyboard.press('Tab');
      await expect(page.getByTestId('merge-dialog').locator('*:focus'), 'focus stays in the dialog').toHaveCount(1);
    }
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    expect(github.merges).toEqual([]);

    await merge90.click();
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId('merge-base')).toContainText('main');
    await expect(page.getByTestId('merge-size')).toHaveText('+40 −6 · 2 files');
    await expect(page.getByTestId('merge-sha')).toHaveText(SHA_90.slice(0, 7));
    await expect(page.getByTestId('merge-method')).toHaveValue('');
    await inThemes(page, async (theme) => {
      await page.screenshot({ path: `${SHOTS}/merge-dialog-${theme}.png` });
      expect(await seriousViolations(page, '[data-testid="merge-dialog"]'), `axe on the confirmation (${theme})`).toEqual([]);
    });
    await page.getByTestId('merge-method').selectOption('squash');
    await page.getByTestId('merge-confirm').click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('desk-merged-90')).toContainText(`merged by ${who} at`);
    await expect(page.getByTestId('desk-merged-90')).toContainText(`(${SHA_90.slice(0, 7)}, squash)`);
    expect(github.merges.map((m) => ({ key: m.key, sha: m.sha, method: m.method }))).toEqual([{ key: 'acme/radon#90', sha: SHA_90, method: 'squash' }]);

    // The Review's "Ready to merge" says who merged it from the console, and when — also once the
    // PR tracker has read it merged at GitHub (no longer ready, nothing else needing the operator).
    await expect(page.getByTestId('pr-row-90')).toHaveClass(/\bpr-merged\b/, { timeout: 20_000 });
    await page.goto(`${served.url}#/review`);
    await expect(page.getByTestId('review')).toContainText('1 merged from the console');
    await expect(page.getByTestId('review-pr-90').getByTestId('review-pr-merged')).toContainText(`merged by ${who} at`);

    // #91 moves at GitHub while Loopdeck cannot ask about it: the head the operator saw is refused, as GitHub said it.
    await page.goto(`${served.url}#/prs`);
    const merge91 = page.getByTestId('desk-merge-91');
    await expect(merge91).toBeEnabled();
    pr91.fail = 502;
    pr91.sha = MOVED_91;
    await merge91.click();
    await expect(page.getByTestId('merge-sha')).toHaveText(SHA_91.slice(0, 7));
    await page.getByTestId('merge-confirm').click();
    await expect(page.getByTestId('merge-error')).toContainText('Head branch was modified. Review and try the merge again.');
    await expect(page.getByTestId('merge-dialog')).toBeVisible();
    expect(github.merges).toHaveLength(1);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('merge-dialog')).toHaveCount(0);
  });
});

test.describe('the merge desk for a viewer, behind a trusted proxy', () => {
  let served: Served;
  let github: GithubServer;

  test.beforeAll(async () => {
    github = await startGithubServer(TOKEN);
    const day = new Date().toISOString().slice(0, 10);
    github.prs.set('acme/radon#90', {
      state: 'open',
      merged: false,
      title: 'Scanner writes a health row',
      head: `reliability/${day}`,
      sha: SHA_90,
      createdAt: new Date(Date.now() - HOUR).toISOString(),
      files: ['scanner/health.py'],
      body: '## Next\n- **Credentials**: rotate the IB gateway password.\n',
      checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }],
    });
    const runner = createRunner('{ local: true }', '    repo: acme/radon\n');
    appendFileSync(
      runner.configPath,
      `github:\n  token: "env:LOOPDECK_E2E_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(github.url)}\nserve:\n  auth:\n    proxyHeader: X-Forwarded-User\n    trustedProxies: [127.0.0.1]\n    roles:\n      operator: [olive]\n      viewer: ['*']\n`,
    );
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir], { LOOPDECK_E2E_GITHUB_TOKEN: TOKEN });
  });
  test.afterAll(async () => {
    await served?.stop();
    await github?.close();
  });

  test('sees the PR and its Next steps, but no merge button, the boxes disabled, and which role may', async ({ browser }) => {
    const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-User': 'victor' } });
    const page = await context.newPage();
    await page.goto(`${served.url}#/prs`);
    await expect(page.getByTestId('desk-pr-90')).toContainText('Scanner writes a health row', { timeout: 20_000 });
    await expect(page.getByTestId('desk-step-box-90-0')).toBeDisabled();
    await expect(page.getByTestId('desk-merge-90')).toHaveCount(0);
    await expect(page.getByTestId('desk-role-note')).toHaveText('Ticking Next steps and merging need the operator role.');
    await context.close();
  });
});
