import { defineConfig } from '@playwright/test';

/**
 * The Electron suite (`npm run test:electron`): Playwright's `_electron` launches the built desktop
 * app. Apart from `npm test`, because it needs Electron's own binary, which a machine without
 * network access to Electron's downloads does not have; scripts/test-electron.mjs says so.
 */
export default defineConfig({
  testDir: 'e2e-electron',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/electron',
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
});
