import { defineConfig } from '@playwright/test';
import { toolPath } from './scripts/system-tools.mjs';

/**
 * The e2e suite runs in the system's Chromium (Debian's /usr/bin/chromium): Playwright's own
 * browser download is not available offline, and a test must never depend on a download.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results',
  // Each spec serves its own `loopdeck serve` on a port of its own: two at a time.
  workers: 2,
  // The CLI the specs serve, bundled once from the sources (testing/test-cli.ts).
  globalSetup: './testing/test-cli.ts',
  // A test, and each beforeAll (which may start a demo: serve-fixture.ts's SERVE_TIMEOUT_MS).
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1360, height: 860 },
    launchOptions: {
      // LOOPDECK_CHROMIUM, else /usr/bin/chromium: the rule `npm test` checks first (scripts/system-tools.mjs).
      executablePath: toolPath('chromium'),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
