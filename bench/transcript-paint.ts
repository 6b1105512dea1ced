import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, openSync, closeSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright';
import { sshHostYaml } from '../testing/ssh-fixture';
import type { TestSshd } from '../testing/sshd';
import { figure, log, percentile, round, sleep, startServe, stamp, tempDir, today, type Figure } from './lib';

const LINES = 1_000_000;
const APPENDS = 40;

/**
 * Figure 10f/10g: the transcript view in Chromium against serve and the test sshd. 10f: scrolling
 * a 1,000,000-line transcript 60 rows a wheel step, the p95 of the frames' intervals while it
 * scrolls. 10g: follow, a line appended to a running phase's transcript until its row is in the
 * view, against `ssh host tail -F` of the same file (figure 1's bound).
 */
export async function transcriptPaint(browser: Browser, sshd: TestSshd): Promise<Figure[]> {
  const dir = tempDir('transcript-paint');
  const runs = join(dir, 'runs');
  const date = today();
  mkdirSync(join(runs, date), { recursive: true });
  const big = join(runs, date, 'audit.log');
  const fd = openSync(big, 'w');
  for (let n = 1; n <= LINES; ) {
    let chunk = '';
    for (let k = 0; k < 50_000 && n <= LINES; k++, n++) chunk += `[2026-11-30T01:00:00Z] line ${n} \u001b[32mPASSED\u001b[0m tests/test_sync.py::test_retry_backoff\n`;
    writeSync(fd, chunk);
  }
  closeSync(fd);
  const now = Date.now();
  writeFileSync(join(runs, date, 'audit.status'), `audit ${stamp(new Date(now - 7_200_000))} STARTED\naudit ${stamp(new Date(now - 3_600_000))} OK\n`);
  writeFileSync(join(runs, date, 'remediate.status'), `remediate ${stamp(new Date(now - 600_000))} STARTED\n`);
  const live = join(runs, date, 'remediate.log');
  writeFileSync(live, 'remediate: starting\n');
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd)}\nloops:\n  reliability: { host: runner, runs: ${JSON.stringify(runs)}, phases: [audit, remediate] }\n`);
  const home = mkdtempSync(join(tmpdir(), 'loopdeck-bench-home-'));
  mkdirSync(join(home, '.ssh'));
  const served = await startServe(['--config', configPath, '--data', join(dir, 'data')], { HOME: home, SSH_AUTH_SOCK: '' });
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  try {
    // 10f: the big transcript, read once by serve (its index), then scrolled.
    await page.goto(`${served.url}#/loops/reliability/${date}/audit/log`);
    await page.waitForSelector(`[data-testid="transcript"][data-lines="${LINES}"]`, { timeout: 180_000 });
    await page.waitForSelector(`[data-testid="transcript-line-${LINES}"]`, { timeout: 30_000 });
    await page.getByTestId('transcript-scroll').focus();
    await page.keyboard.press('Home');
    await page.waitForSelector('[data-testid="transcript-line-1"]');
    await page.getByTestId('transcript-scroll').hover();
    await page.evaluate(`(() => {
      window.__frames = [];
      let last = performance.now();
      const tick = (t) => { window.__frames.push(t - last); last = t; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    })()`);
    for (let i = 0; i < 120; i++) {
      await page.mouse.wheel(0, 60 * 18);
      await sleep(16);
    }
    await sleep(200);
    const frames = ((await page.evaluate('window.__frames')) as number[]).slice(2);
    const top = Number(await page.getByTestId('transcript').getAttribute('data-top'));
    const frame95 = percentile(frames, 95);

    // 10g: follow a running phase, against ssh tail -F of the same file.
    await page.goto(`${served.url}#/loops/reliability/${date}/remediate/log`);
    await page.waitForSelector('[data-testid="transcript"][data-follow="true"]', { timeout: 60_000 });
    const tail = spawn('ssh', ['-i', sshd.clientKey, '-p', String(sshd.port), '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-F', '/dev/null', `${sshd.user}@127.0.0.1`, 'tail', '-n', '0', '-F', live]);
    const seenByTail = new Map<number, number>();
    let rest = '';
    tail.stdout.on('data', (c: Buffer) => {
      rest += c.toString();
      for (const m of rest.matchAll(/follow (\d+)\n/g)) if (!seenByTail.has(Number(m[1]))) seenByTail.set(Number(m[1]), performance.now());
      rest = rest.slice(rest.lastIndexOf('\n') + 1);
    });
    await sleep(1500);
    const viewMs: number[] = [];
    const tailMs: number[] = [];
    for (let i = 1; i <= APPENDS; i++) {
      const t0 = performance.now();
      appendFileSync(live, `follow ${i}\n`);
      await page.waitForSelector(`[data-testid="transcript-line-${i + 1}"]`, { timeout: 10_000 });
      viewMs.push(performance.now() - t0);
      const until = Date.now() + 5000;
      while (!seenByTail.has(i) && Date.now() < until) await sleep(2);
      const seen = seenByTail.get(i);
      if (seen !== undefined) tailMs.push(seen - t0);
      await sleep(100 + Math.random() * 200);
    }
    tail.kill();
    const tail95 = percentile(tailMs, 95);
    const bound = 1.5 * tail95 + 100;
    log(`figure 10: scrolled to line ${top}; follow p95 ${round(percentile(viewMs, 95), 1)} ms against tail -F ${round(tail95, 1)} ms`);
    return [
      figure({
        id: '10f',
        name: `Transcript view: scrolling ${LINES.toLocaleString('en')} lines at 60 rows a wheel step, frame interval p95 (Chromium)`,
        value: round(frame95, 1),
        unit: 'ms',
        baseline: null,
        baselineLabel: '',
        target: '≤ 16 ms (a frame at 60 Hz; headless Chromium paces frames at ~16.7 ms)',
        pass: frame95 <= 16.7 * 1.05,
        details: { frames: frames.length, p50: round(percentile(frames, 50), 1), p99: round(percentile(frames, 99), 1), reachedLine: top },
        notes: [`120 wheel steps of 1080 px; the view reached line ${top.toLocaleString('en')}`],
      }),
      figure({
        id: '10g',
        name: 'Transcript view: follow, line appended on the SSH host to its row in the view, p95 (Chromium)',
        value: round(percentile(viewMs, 95), 1),
        unit: 'ms',
        baseline: round(tail95, 1),
        baselineLabel: 'ssh host tail -F FILE, p95',
        target: `≤ 1.5 × baseline + 100 ms (= ${round(bound, 0)} ms)`,
        pass: percentile(viewMs, 95) <= bound,
        details: { viewMs: viewMs.map((v) => round(v, 1)), tailMs: tailMs.map((v) => round(v, 1)) },
        notes: ['measured from the append to the row existing in the page (waitForSelector polls at animation frames)'],
      }),
    ];
  } finally {
    await page.close();
    await served.stop();
  }
}
