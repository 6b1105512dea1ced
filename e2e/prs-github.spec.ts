import { expect, test } from '@playwright/test';
import { appendFileSync, mkdirSync } from 'node:fs';
import { startGithubServer, type GithubServer } from '../testing/github-server';
import { seriousViolations } from './axe-check';
import { createRunner, serve, stamp, type Served } from './serve-fixture';

// The PRs view with a `github:` section: serve mode asks a GitHub API (a real HTTP server on
// loopback with GitHub's example bodies) about the PRs the deliver phase named, and shows a
// merged one as merged (by whom), the checks of the open ones, and the body's Next section,
// which "Waiting on you" lists before the merge.

const TOKEN = 'ghp_e2e_token';

test.describe('PRs from GitHub, in serve mode', () => {
  let served: Served;
  let github: GithubServer;
  test.beforeAll(async () => {
    github = await startGithubServer(TOKEN);
    github.prs.set('acme/radon#88', { state: 'closed', merged: true, mergedBy: 'hubot', mergedAt: new Date(Date.now() - 3_600_000).toISOString(), body: null, checks: [] });
    github.prs.set('acme/radon#90', { state: 'open', merged: false, body: null, checks: [{ kind: 'status', context: 'ci/test', state: 'failure' }] });
    github.prs.set('acme/radon#92', {
      state: 'open',
      merged: false,
      body: '## Issue discovered\n- **Scanner**: no health row.\n\n## What was done to fix it\n- **Scanner**: writes one.\n\n## Next\n- **Control plane**: run `bootstrap-control-plane.sh` install-copy before merge.\n- **Credentials**: rotate the IB gateway password.\n',
      checks: [{ kind: 'run', name: 'suite', status: 'completed', conclusion: 'success' }],
    });
    const runner = createRunner();
    appendFileSync(runner.configPath, `github:\n  token: "env:LOOPDECK_E2E_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(github.url)}\n`);
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const urls = [88, 90, 92].map((n) => `https://127.0.0.1/acme/radon/pull/${n}`);
    runner.write(day, 'deliver.status', `deliver ${stamp(new Date(now.getTime() - 7_200_000))} STARTED\ndeliver ${stamp(new Date(now.getTime() - 5_400_000))} 3 PR(s) green, ready to merge: ${urls.join(' ')}\n`);
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir], { LOOPDECK_E2E_GITHUB_TOKEN: TOKEN });
  });
  test.afterAll(async () => {
    await served?.stop();
    await github?.close();
  });

  test('shows merged by whom, the checks, and the Next section on the PR and in Waiting on you', async ({ page }) => {
    await page.goto(`${served.url}#/prs`);
    await expect(page.getByTestId('pr-row-88').getByTestId('pr-state')).toHaveText(/merged/);
    await expect(page.getByTestId('pr-row-88').getByTestId('pr-github')).toContainText('merged by hubot');
    await expect(page.getByTestId('pr-row-90').getByTestId('pr-checks')).toHaveText(/checks failing/);
    await expect(page.getByTestId('pr-row-90').getByTestId('pr-github')).toContainText('ci/test');
    await expect(page.getByTestId('pr-row-92').getByTestId('pr-checks')).toHaveText(/checks passing/);
    const next = page.getByTestId('pr-next-92');
    await expect(next).toContainText('Control plane: run `bootstrap-control-plane.sh` install-copy before merge.');
    await expect(next).toContainText('Credentials: rotate the IB gateway password.');
    await expect(page.getByTestId('prs-table')).not.toContainText(TOKEN);
    mkdirSync('e2e/artifacts', { recursive: true });
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.getByTestId('prs-table').screenshot({ path: `e2e/artifacts/prs-github-${theme}.png` });
      // The new parts (badges, the Next row, muted merged rows) keep axe's contrast and structure rules.
      expect(await seriousViolations(page, '[data-testid="prs-table"]'), `axe on the PR table (${theme})`).toEqual([]);
    }

    await page.goto(`${served.url}#/review`);
    const waiting = page.getByTestId('waiting');
    await expect(waiting.getByTestId('waiting-pr-reliability-92')).toContainText('Credentials: rotate the IB gateway password.');
    await expect(waiting.getByTestId('waiting-pr-reliability-90')).toContainText('GitHub now shows checks failing');
    await expect(waiting.getByTestId('waiting-pr-reliability-88')).toHaveCount(0);
  });
});
