import { expect, test, type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { seriousViolations } from './axe-check';
import { createRunner, serve, type Served } from './serve-fixture';

type Theme = 'light' | 'dark';

/** A view of the console, how to know it has loaded, and what to open in it (a detail panel, a dialog). */
interface Screen {
  readonly name: string;
  readonly hash: string;
  readonly ready: (page: Page) => Promise<void>;
}

const SCREENS: readonly Screen[] = [
  { name: 'review', hash: '#/review', ready: (p) => expect(p.getByTestId('review')).toBeVisible({ timeout: 20_000 }) },
  { name: 'notices', hash: '#/notices', ready: (p) => expect(p.getByTestId('notices')).toBeVisible({ timeout: 20_000 }) },
  { name: 'loops', hash: '#/loops', ready: (p) => expect(p.locator('.loop').first()).toBeVisible({ timeout: 20_000 }) },
  {
    name: 'loops with a phase detail open',
    hash: '#/loops',
    ready: async (p) => {
      await p.locator('[data-testid^="phase-"]').first().click();
      await expect(p.locator('.detail')).toBeVisible();
    },
  },
  { name: 'findings', hash: '#/findings', ready: (p) => expect(p.locator('[data-testid^="finding-row-"]').first()).toBeVisible({ timeout: 20_000 }) },
  {
    name: 'findings with a finding detail open',
    hash: '#/findings',
    ready: async (p) => {
      await p.locator('[data-testid^="finding-row-"]').first().click();
      await expect(p.locator('.detail')).toBeVisible();
    },
  },
  { name: 'ledgers', hash: '#/ledgers', ready: (p) => expect(p.getByTestId('ledgers-tasks')).toBeVisible({ timeout: 20_000 }) },
  { name: 'prs', hash: '#/prs', ready: (p) => expect(p.getByTestId('prs-table').or(p.getByTestId('prs-empty'))).toBeVisible({ timeout: 20_000 }) },
  {
    name: 'capacity',
    hash: '#/capacity',
    ready: async (p) => {
      await expect(p.locator('[data-testid^="capacity-host-"]').first()).toBeVisible({ timeout: 20_000 });
      await expect(p.locator('[data-testid^="capacity-chart-"]').first()).toBeVisible({ timeout: 20_000 });
    },
  },
  { name: 'drills', hash: '#/drills', ready: (p) => expect(p.getByTestId('drills')).toBeVisible({ timeout: 20_000 }) },
  {
    name: 'drills with the run dialog open',
    hash: '#/drills',
    ready: async (p) => {
      await p.locator('[data-testid^="drill-run-"]').first().click();
      await expect(p.getByTestId('drill-dialog')).toBeVisible();
    },
  },
];

test.describe('accessibility (axe-core) on every view in both themes', () => {
  // Each test only looks at the demo: they spread over the workers (each worker serves its own demo).
  test.describe.configure({ mode: 'parallel' });
  let served: Served;

  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  for (const theme of ['light', 'dark'] as const satisfies readonly Theme[]) {
    for (const screen of SCREENS) {
      test(`${screen.name}, ${theme} theme: no serious or critical violations`, async ({ page }) => {
        // Reduced motion: the running phase's stripes stand still, so contrast is measured on one frame.
        await page.emulateMedia({ reducedMotion: 'reduce', colorScheme: theme });
        await page.goto(`${served.url}${screen.hash}`);
        await screen.ready(page);
        await expect(page.locator('html')).toHaveAttribute('data-theme', 'system');
        expect(await seriousViolations(page), `axe on ${screen.name} (${theme})`).toEqual([]);
      });
    }
  }
});

test.describe('accessibility of the capacity warnings', () => {
  let served: Served;
  const runner = createRunner();

  test.beforeAll(async () => {
    // A Prometheus proxy that refuses connections: its history comes back as a warning list.
    writeFileSync(
      runner.configPath,
      `hosts:\n  runner: { local: true }\nproxies:\n  fleet: { kind: prometheus, url: "http://127.0.0.1:9", every: 15s }\n`,
    );
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });

  test.afterAll(async () => {
    await served?.stop();
  });

  for (const theme of ['light', 'dark'] as const satisfies readonly Theme[]) {
    test(`the history warnings are a real list (${theme} theme)`, async ({ page }) => {
      await page.emulateMedia({ reducedMotion: 'reduce', colorScheme: theme });
      await page.goto(`${served.url}#/capacity`);
      await expect(page.getByTestId('capacity-warnings')).toBeVisible({ timeout: 20_000 });
      expect(await seriousViolations(page), `axe on capacity warnings (${theme})`).toEqual([]);
    });
  }
});
