import { expect, test } from '@playwright/test';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { servedUrl } from '../testing/served-url';
import { TEST_CLI } from '../testing/test-cli';
import { SERVE_TIMEOUT_MS } from './serve-fixture';

const BIN = TEST_CLI;
const run = promisify(execFile);

/** `loopdeck demo`, holding still (its live cycle barely advances), with the runner folder it printed. */
interface Demo {
  readonly url: string;
  readonly dir: string;
  stop(): Promise<void>;
}

async function startDemo(args: readonly string[] = []): Promise<Demo> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--speed', '0.0001', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { url, also } = await servedUrl(child, { name: 'loopdeck demo', timeoutMs: SERVE_TIMEOUT_MS, also: [/Demo runner folder: (\S+)/] });
  return {
    url,
    dir: also[0] ?? '',
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** What may differ between two reads of a live console a few seconds apart: the fleet (polled every 5 s) and "(12s in)" ages. */
function steady(markdown: string): string {
  return markdown
    .replace(/\d+ fleet incidents?/, 'N fleet incidents')
    .replace(/\n## Fleet incidents\n[\s\S]*$/, '\n')
    .replace(/\((?:\d+[smhd] ?)+ in\)/g, '(… in)');
}

test.describe('the morning summary to paste', () => {
  let demo: Demo;

  test.beforeAll(async () => {
    demo = await startDemo();
  });

  test.afterAll(async () => {
    await demo.stop();
  });

  test('Copy as Markdown puts on the clipboard what `loopdeck review --markdown` prints for the same state', async ({ page, context }) => {
    test.setTimeout(120_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`${demo.url}#/review`);
    const copy = page.getByTestId('copy-markdown');
    await expect(copy).toBeEnabled(); // once every finding has arrived
    await copy.click();
    await expect(page.getByTestId('copy-markdown-status')).toHaveText('Copied');
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');

    const since = /^# Loopdeck review since (\S+)\n/.exec(copied)?.[1];
    expect(since, copied.slice(0, 200)).toBeTruthy();
    const cli = await run(process.execPath, [BIN, 'review', '--config', join(demo.dir, 'config.yaml'), '--data', join(demo.dir, 'data'), '--since', since ?? '', '--markdown'], {
      timeout: 60_000,
    });
    expect(steady(copied)).toBe(steady(cli.stdout));

    // And what it says: the demo's loop and where its cycles stopped, its new P0/P1 findings with their places, the PR waiting.
    expect(copied).toContain('## What ran\n\n- **reliability** on demo-runner');
    expect(copied).toMatch(/^ {2}- \d{4}-\d{2}-\d{2} · \*\*running\*\* · running audit/m);
    const findings = copied.match(/^- \*\*P[01]\*\* `R-\d+` `[^`]+:\d+` — .+$/gm) ?? [];
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) expect(cli.stdout).toContain(f);
    expect(copied).toMatch(/## Ready to merge\n\n(- reliability #\d+(?: .*)? — https:\/\/github\.com\/acme\/radon\/pull\/\d+\n)+/);
    for (const url of copied.match(/https:\/\/github\.com\/\S+/g) ?? []) expect(cli.stdout).toContain(url);
  });
});

test.describe('the summary where the clipboard is refused', () => {
  // Served on a non-loopback address over plain HTTP: not a secure context, so the browser gives no clipboard.
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  let demo: Demo | null = null;

  test.beforeAll(async () => {
    demo = await startDemo(address ? ['--host', address] : []);
  });

  test.afterAll(async () => {
    await demo?.stop();
  });

  test('says it could not copy, rather than failing silently', async ({ page }) => {
    // Without a non-loopback address (a sandbox with loopback only), the page is served on
    // 127.0.0.1 and made what an insecure context is: a Navigator without `clipboard`.
    if (!address) await page.addInitScript('delete Object.getPrototypeOf(navigator).clipboard');
    await page.goto(`${demo?.url ?? ''}#/review`);
    await page.getByTestId('copy-markdown').click();
    await expect(page.getByTestId('copy-markdown-error')).toContainText('Could not copy to the clipboard: the clipboard is only available on https:// or localhost');
    await expect(page.getByTestId('copy-markdown-status')).toHaveText('');
  });
});
