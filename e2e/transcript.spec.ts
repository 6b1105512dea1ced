import { expect, test, type Page } from '@playwright/test';
import { appendFileSync, closeSync, mkdirSync, openSync, renameSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { sshHostYaml } from '../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../testing/sshd';
import { createRunner, serve, serveWithFreshHome, stamp, type Runner, type Served } from './serve-fixture';

// The transcript view against serve and a real sshd: a generated transcript of more than 200 MB
// (ANSI colours, other escapes, invalid UTF-8, NUL bytes, a 2 MiB line, a Traceback and a needle
// three times), a running phase followed live, truncation, replacement and deletion while open.

const HOUR = 3_600_000;
/** Lines of the big transcript: 2.3 million of ~90 bytes (over 200 MiB). */
const BIG_LINES = 2_300_000;
const NEEDLE = 'needle-7f3a';
const NEEDLE_AT = [17, 1_234_567, 2_100_000];
const TRACEBACK_AT = 1_500_000;

/** Line n of the big transcript (1-based), without its newline, as bytes. */
function bigLine(n: number): Buffer {
  if (n === 5) return Buffer.from('plain \x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m then \x1b[?25l hidden-cursor and a tab\there');
  if (n === 6) return Buffer.concat([Buffer.from('bad utf-8: '), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(' nul:'), Buffer.from([0]), Buffer.from(' end')]);
  if (n === 7) return Buffer.from(`giant ${'x'.repeat(2 * 1024 * 1024)}`);
  if (NEEDLE_AT.includes(n)) return Buffer.from(`step ${n}: found the ${NEEDLE} here`);
  if (n === TRACEBACK_AT) return Buffer.from('Traceback (most recent call last):');
  return Buffer.from(`[2026-11-30T01:${String(n % 60).padStart(2, '0')}:00Z] line ${n} pytest -q tests/test_sync.py::test_retry_backoff PASSED`);
}

function writeBig(path: string): number {
  const fd = openSync(path, 'w');
  let size = 0;
  try {
    let chunk: Buffer[] = [];
    let bytes = 0;
    for (let n = 1; n <= BIG_LINES; n++) {
      const b = bigLine(n);
      chunk.push(b, Buffer.from('\n'));
      bytes += b.length + 1;
      if (bytes > 8 * 1024 * 1024 || n === BIG_LINES) {
        writeSync(fd, Buffer.concat(chunk));
        size += bytes;
        chunk = [];
        bytes = 0;
      }
    }
  } finally {
    closeSync(fd);
  }
  return size;
}

async function rowsInDom(page: Page): Promise<number> {
  return page.locator('[data-testid^="transcript-line-"]').count();
}

test.describe('the transcript view', () => {
  test.describe.configure({ timeout: 240_000 });
  let sshd: TestSshd;
  let runner: Runner;
  let served: Served;
  const date = new Date().toISOString().slice(0, 10);

  test.beforeAll(async () => {
    sshd = await startSshd();
    runner = createRunner(sshHostYaml(sshd));
    const now = Date.now();
    runner.write(date, 'audit.status', `audit ${stamp(new Date(now - 3 * HOUR))} STARTED\naudit ${stamp(new Date(now - 2 * HOUR))} OK\n`);
    runner.write(date, 'audit.log', '');
    const size = writeBig(join(runner.dir, 'runs', date, 'audit.log'));
    expect(size).toBeGreaterThan(200 * 1024 * 1024);
    runner.write(date, 'remediate.status', `remediate ${stamp(new Date(now - HOUR))} STARTED\n`);
    runner.write(date, 'remediate.log', 'remediate: starting\n');
    runner.write(date, 'deliver.status', `deliver ${stamp(new Date(now - HOUR / 2))} STARTED\ndeliver ${stamp(new Date(now - HOUR / 4))} FAILED 1\n`);
    runner.write(date, 'deliver.log', 'deliver: pushing\nError: gh pr create failed: exit code 1\n');
    served = await serveWithFreshHome(runner);
  });

  test.afterAll(async () => {
    await served?.stop();
    await sshd?.stop();
  });

  test('opens a 200 MB transcript on its last screen, jumps anywhere, renders hostile bytes safely, and finds a needle', async ({ page }) => {
    await page.goto(`${served.url}#/loops/reliability/${date}/audit/log`);
    const view = page.getByTestId('transcript');
    // The follower reads the whole file once (its line index); the view shows its last screen.
    await expect(view).toHaveAttribute('data-lines', String(BIG_LINES), { timeout: 180_000 });
    await expect(page.getByTestId(`transcript-line-${BIG_LINES}`)).toBeVisible();
    expect(await rowsInDom(page)).toBeLessThan(120);

    // Home: the first screen, with the hostile lines.
    await page.getByTestId('transcript-scroll').focus();
    await page.keyboard.press('Home');
    await expect(page.getByTestId('transcript-line-1')).toBeVisible();
    const styled = page.getByTestId('transcript-line-5');
    await expect(styled).toContainText('plain red and bold then ␛[?25l hidden-cursor and a tab     here');
    await expect(styled.locator('span', { hasText: /^red$/ })).toHaveCSS('color', /rgb/);
    expect(await styled.locator('span', { hasText: /^red$/ }).evaluate((e) => e.getAttribute('style') ?? '')).toContain('var(--ansi-1)');
    await expect(styled.locator('.tx-ph')).toHaveText('␛[?25l');
    await expect(page.getByTestId('transcript-line-6')).toContainText('bad utf-8: \uFFFD(\uFFFD nul:␀ end');
    await expect(page.getByTestId('transcript-line-7').getByTestId('transcript-long')).toBeVisible();
    await expect(page.getByTestId('transcript-line-8')).toContainText('line 8 pytest');
    mkdirSync('e2e/artifacts', { recursive: true });
    await page.screenshot({ path: 'e2e/artifacts/transcript-light.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'e2e/artifacts/transcript-dark.png' });
    await page.emulateMedia({ colorScheme: 'light' });

    // A link to a line: one seek.
    await page.goto(`${served.url}#/loops/reliability/${date}/audit/log?line=1234567`);
    await expect(page.getByTestId('transcript-line-1234567')).toContainText(NEEDLE);
    await expect(page.getByTestId('transcript-line-1234567')).toHaveClass(/tl-selected/);

    // The marks: the Traceback, listed and on the scrollbar.
    await expect(page.getByTestId(`transcript-mark-${TRACEBACK_AT}`)).toBeVisible();
    await page.getByTestId(`transcript-mark-${TRACEBACK_AT}`).click();
    await expect(page.getByTestId(`transcript-line-${TRACEBACK_AT}`)).toContainText('Traceback');

    // Search where the file is: three hits, next and previous.
    await page.getByTestId('transcript-search').fill(NEEDLE);
    await page.getByTestId('transcript-search').press('Enter');
    await expect(page.getByTestId('transcript-hits')).toHaveText('1 of 3');
    await expect(page.getByTestId(`transcript-line-${NEEDLE_AT[0]}`)).toBeVisible();
    await page.getByTestId('transcript-search').press('Enter');
    await expect(page.getByTestId('transcript-hits')).toHaveText('2 of 3');
    await expect(page.getByTestId(`transcript-line-${NEEDLE_AT[1]}`)).toBeVisible();
    // A regex, case-sensitive: nothing in capitals.
    await page.getByTestId('transcript-regex').check();
    await page.getByTestId('transcript-case').check();
    await page.getByTestId('transcript-search').fill('NEEDLE-[0-9a-f]+');
    await page.getByTestId('transcript-search').press('Enter');
    await expect(page.getByTestId('transcript-hits')).toHaveText('no match');
    expect(await rowsInDom(page)).toBeLessThan(120);
  });

  test('follows a running phase, says when the file was truncated or replaced, and when it is gone', async ({ page }) => {
    const log = join(runner.dir, 'runs', date, 'remediate.log');
    for (let i = 1; i < 300; i++) appendFileSync(log, `remediate line ${i}\n`);
    await page.goto(`${served.url}#/loops/reliability/${date}/remediate/log`);
    const view = page.getByTestId('transcript');
    await expect(view).toHaveAttribute('data-lines', '300');
    await expect(view).toHaveAttribute('data-follow', 'true');
    appendFileSync(log, 'remediate line 300: \x1b[32mgreen\x1b[0m\n');
    await expect(page.getByTestId('transcript-line-301')).toContainText('remediate line 300: green');

    // Replaced under the view (a new inode): said, and shown afresh.
    writeFileSync(`${log}.new`, 'fresh 1\nfresh 2\n');
    renameSync(`${log}.new`, log);
    await expect(page.getByTestId('transcript-notice')).toContainText('replaced');
    await expect(page.getByTestId('transcript-line-2')).toContainText('fresh 2');
    await expect(page.getByTestId('transcript-line-3')).toHaveCount(0);

    // Truncated under the view (the same inode, shorter): said, and shown afresh.
    writeFileSync(log, 'short\n');
    await expect(page.getByTestId('transcript-notice')).toContainText('truncated');
    await expect(page.getByTestId('transcript-line-1')).toContainText('short');
    await expect(page.getByTestId('transcript-line-2')).toHaveCount(0);

    // Gone: the view says so, naming the file.
    rmSync(log);
    await page.reload();
    await expect(page.getByTestId('transcript-error')).toContainText('remediate.log');
  });

  test("a failed phase's notice links to its transcript, and a host link lands on the host", async ({ page }) => {
    await page.goto(`${served.url}#/notices`);
    const key = `phase:reliability:${date}:deliver:failed`;
    const link = page.getByTestId(`notice-link-${key}`);
    await expect(link).toHaveAttribute('href', `#/loops/reliability/${date}/deliver/log`);
    await link.click();
    await expect(page.getByTestId('transcript')).toHaveAttribute('data-lines', '2');
    await expect(page.getByTestId('transcript-mark-2')).toContainText('Failure');

    await page.goto(`${served.url}#/hosts/runner`);
    await expect(page.getByTestId('hosts-view').getByTestId('host-runner')).toHaveAttribute('aria-current', 'true');
  });

  test('opens from the phase detail', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    await page.getByTestId(`phase-reliability-${date}-audit`).click();
    await page.getByTestId('open-transcript').click();
    await expect(page).toHaveURL(new RegExp(`#/loops/reliability/${date}/audit/log$`));
    await expect(page.getByTestId('transcript')).toBeVisible();
  });
});

test.describe("the demo's transcripts", () => {
  let served: Served;
  test.beforeAll(async () => {
    served = await serve([], {}, 'demo');
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test('an incomplete remediate opens on why it stopped: the stream watchdog killed the agent', async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    const incomplete = page.locator('[data-testid^="phase-reliability-"][data-testid$="-remediate"][data-status="incomplete"]').first();
    await incomplete.click();
    await page.getByTestId('open-transcript').click();
    const view = page.getByTestId('transcript');
    await expect(view).toBeVisible();
    await expect(page.getByTestId('transcript-marks')).toContainText('Watchdog kill');
    // It opens on the last screen: the kill and the agent's exit are in view.
    await expect(view.locator('.tl').last()).toContainText('agent exited 0 without committing');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: 'e2e/artifacts/transcript-demo-light.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'e2e/artifacts/transcript-demo-dark.png' });
  });
});

test.describe('line links: from a notice, the review and the verdict', () => {
  let served: Served;
  const date = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 24 * HOUR).toISOString().slice(0, 10);
  const VERDICT_AT = 120;
  test.beforeAll(async () => {
    const runner = createRunner();
    // Yesterday's deliver ended INCOMPLETE with its verdict on line 120 of 400: its last non-blank
    // line (a verdict with output after it is prose), the 280 lines after it blank, so the link
    // must move the view off the last screen to reach it.
    const t = (hoursAgo: number): string => stamp(new Date(Date.now() - hoursAgo * HOUR));
    runner.write(yesterday, 'deliver.status', `deliver ${t(6)} STARTED\ndeliver ${t(5)} INCOMPLETE\n`);
    const deliver = Array.from({ length: 400 }, (_, i) =>
      i + 1 === VERDICT_AT ? 'NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/test pr=https://github.com/acme/radon/pull/87' : i + 1 < VERDICT_AT ? `deliver step ${i + 1}` : '',
    );
    runner.write(yesterday, 'deliver.log', `${deliver.join('\n')}\n`);
    runner.write(date, 'audit.status', `audit ${stamp(new Date(Date.now() - 2 * HOUR))} STARTED\n`);
    runner.write(date, 'audit.log', Array.from({ length: 40 }, (_, i) => `audit step ${i + 1}`).join('\n') + '\n');
    // Silent for an hour, past the default `silence` (30 min), with no rc step: the phase is hung.
    // Its stamp was written when it started (no file of the phase grew since).
    const old = new Date(Date.now() - HOUR);
    utimesSync(join(runner.dir, 'runs', date, 'audit.log'), old, old);
    utimesSync(join(runner.dir, 'runs', date, 'audit.status'), new Date(Date.now() - 2 * HOUR), new Date(Date.now() - 2 * HOUR));
    served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  });
  test.afterAll(async () => {
    await served?.stop();
  });

  test("a hung phase's notice opens its transcript at the line it is about", async ({ page }) => {
    await page.goto(`${served.url}#/notices`);
    const link = page.getByTestId(`notice-link-signal:reliability:${date}:audit:hung`);
    await expect(link).toHaveAttribute('href', `#/loops/reliability/${date}/audit/log?line=40`);
    await link.click();
    await expect(page.getByTestId('transcript-line-40')).toHaveClass(/tl-selected/);
    await expect(page.getByTestId('transcript-line-40')).toContainText('audit step 40');
  });

  test('the review links each stop to the line it is about: the hung line, the verdict of a deliver that stopped short', async ({ page }) => {
    await page.goto(served.url);
    const hung = page.getByTestId(`review-stop-reliability-${date}-audit`);
    await expect(hung).toHaveAttribute('href', `#/loops/reliability/${date}/audit/log?line=40`);
    await expect(hung).toContainText('transcript line 40');
    const short = page.getByTestId(`review-stop-reliability-${yesterday}-deliver`);
    await expect(short).toHaveAttribute('href', `#/loops/reliability/${yesterday}/deliver/log?line=${VERDICT_AT}`);
    await short.click();
    await expect(page.getByTestId(`transcript-line-${VERDICT_AT}`)).toHaveClass(/tl-selected/);
    await expect(page.getByTestId(`transcript-line-${VERDICT_AT}`)).toContainText('NIGHTLY DELIVER INCOMPLETE');
    // The loop itself is still one click from the review.
    await page.goto(served.url);
    await page.getByTestId('review-loop-link-reliability').click();
    await expect(page).toHaveURL(/#\/loops\/reliability$/);
  });

  test("the phase detail links its verdict to the verdict's line", async ({ page }) => {
    await page.goto(`${served.url}#/loops`);
    await page.getByTestId(`phase-reliability-${yesterday}-deliver`).click();
    const link = page.getByTestId('verdict-line');
    await expect(link).toContainText(`Line ${VERDICT_AT} of deliver.log`);
    await link.click();
    await expect(page).toHaveURL(new RegExp(`#/loops/reliability/${yesterday}/deliver/log\\?line=${VERDICT_AT}$`));
    await expect(page.getByTestId(`transcript-line-${VERDICT_AT}`)).toHaveClass(/tl-selected/);
  });
});
