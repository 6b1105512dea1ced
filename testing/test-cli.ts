/**
 * The CLI the tests run: the sources bundled once per test run (vitest's and Playwright's global
 * setup), like `npm start` runs them. A start costs ~0.3 s of CPU instead of ~2 s through tsx's
 * loader, and the suite starts the CLI a few hundred times. It is built from the checkout at the
 * start of every run, so it is never stale; `bin/loopdeck.mjs` (tsx) is still run where that path
 * is the point (host-leftovers-*.test.ts: whatever it starts must end with it).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Where the tests' bundle is written (two folders below the root, like out/cli/). */
export const TEST_CLI = fileURLToPath(new URL('../out/test-cli/loopdeck.mjs', import.meta.url));

const BUILD = fileURLToPath(new URL('../scripts/build-cli.mjs', import.meta.url));

/** Bundle the CLI's sources into TEST_CLI (the global setup of both test runners). */
export default function buildTestCli(): void {
  execFileSync(process.execPath, [BUILD, '--out', TEST_CLI], { stdio: 'inherit' });
}
