import { type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { followOnce } from '../main/core/follow/line-follower';
import { LoopFollower } from '../main/core/loops/loop-follower';
import { LoopConfigSchema } from '../main/core/config/schema';
import { rcFileParser } from '../main/core/loops/rc-file';
import { SshSource } from '../main/core/sources/ssh-source';
import { Store } from '../main/core/store/store';
import { connectTestHost } from '../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../testing/sshd';
import { CountingSource } from './counting-source';
import {
  figure,
  launchChromium,
  LOOPDECK_BIN,
  log,
  median,
  msSince,
  onCleanup,
  percentile,
  round,
  sleep,
  spawnTracked,
  stamp,
  startServe,
  stopChild,
  tempDir,
  today,
  until,
  type Figure,
} from './lib';

const HOUR = 3_600_000;
/** How long one append may take to show up anywhere before it counts as lost. */
const LOST_MS = 10_000;

/** First-seen times (Date.now()) of step numbers, from one observer. */
type Seen = Map<number, number>;

/** Record the first time each `step<N>` appears in a child's stdout lines. */
function watchLines(child: ChildProcess, pattern: RegExp, seen: Seen): void {
  let buf = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const at = Date.now();
    buf += chunk.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const line of lines) {
      for (const m of line.matchAll(pattern)) {
        const n = Number(m[1]);
        if (!seen.has(n)) seen.set(n, at);
      }
    }
  });
  child.stderr?.resume();
}

// Runs in the page (a string, so the node tsconfig needs no DOM types): records Date.now() when each
// step chip of the gates stage enters the DOM (`dom`) and two animation frames later (`paint`).
const PAGE_OBSERVER = `(() => {
  const w = window;
  w.__dom = {}; w.__paint = {};
  const scan = () => {
    const at = Date.now();
    const fresh = [];
    for (const el of document.querySelectorAll('[data-testid="stage-gates"] .chip-name')) {
      const m = /^step(\\d+)$/.exec(el.textContent || '');
      if (m && w.__dom[m[1]] === undefined) { w.__dom[m[1]] = at; fresh.push(m[1]); }
    }
    if (fresh.length) requestAnimationFrame(() => requestAnimationFrame(() => {
      const p = Date.now();
      for (const n of fresh) w.__paint[n] = p;
    }));
  };
  new MutationObserver(scan).observe(document.body, { childList: true, subtree: true, characterData: true });
  scan();
})()`;

interface Latencies {
  readonly samples: number[];
  readonly lost: number;
}

function latencies(appendedAt: readonly number[], seen: (n: number) => number | undefined): Latencies {
  const samples: number[] = [];
  let lost = 0;
  appendedAt.forEach((t0, n) => {
    const t = seen(n);
    if (t === undefined) lost += 1;
    else samples.push(Math.max(0, t - t0));
  });
  return { samples, lost };
}

function dist(l: Latencies): Record<string, number> {
  return {
    n: l.samples.length,
    lost: l.lost,
    p50: round(percentile(l.samples, 50), 1),
    p95: round(percentile(l.samples, 95), 1),
    max: round(Math.max(...l.samples), 1),
    mean: round(l.samples.reduce((a, b) => a + b, 0) / Math.max(1, l.samples.length), 1),
  };
}

/**
 * Where the time of one engine poll goes, over the same sshd: the exec round trip of `true`, and one
 * LoopFollower poll of the figure's loop (its list + read execs), measured in-process.
 */
async function pollProfile(sshd: TestSshd, runs: string): Promise<Record<string, unknown>> {
  const dir = tempDir('poll-profile');
  const store = Store.open(join(dir, 'loopdeck.db'));
  const host = await connectTestHost(sshd, store);
  try {
    const counting = new CountingSource(new SshSource('runner', host.connection));
    const rtts: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = process.hrtime.bigint();
      await host.connection.exec('true');
      rtts.push(msSince(t0));
    }
    const loop = LoopConfigSchema.parse({ host: 'runner', runs, phases: ['audit', 'remediate', 'deliver'] });
    const follower = new LoopFollower('reliability', loop, counting, store);
    await follower.poll(new Date()); // first read of everything
    const polls: number[] = [];
    const before = counting.calls();
    for (let i = 0; i < 10; i++) {
      const t0 = process.hrtime.bigint();
      await follower.poll(new Date());
      polls.push(msSince(t0));
    }
    const after = counting.calls();
    // One read of an appended line, as the follower does it: stat from the listing, then tail|head.
    const rc = join(runs, today(), 'remediate.gates.rc');
    const reads: number[] = [];
    for (let i = 0; i < 10; i++) {
      appendFileSync(rc, `profile${i}_rc=0\n`);
      const t0 = process.hrtime.bigint();
      await followOnce(counting, store, rc, rcFileParser);
      reads.push(msSince(t0));
    }
    return {
      execTrueRttMs: { p50: round(median(rtts), 2), p95: round(percentile(rtts, 95), 2) },
      idlePollMs: { p50: round(median(polls), 1), p95: round(percentile(polls, 95), 1) },
      execsPerIdlePoll: round((after.total - before.total) / 10, 1),
      appendedLineStatAndReadMs: round(median(reads), 1),
    };
  } finally {
    host.connection.close();
    store.close();
  }
}

/** What one run of figure 1 measured against one sshd. */
interface Measured {
  readonly renderer: Latencies;
  readonly dom: Latencies;
  readonly watch: Latencies;
  readonly tail: Latencies;
  readonly profile: Record<string, unknown>;
  readonly servePid: number | undefined;
}

/** Serve + Chromium, `watch --json` and `ssh host tail -F` (the baseline) see the same appends over `sshd`. */
async function measure(sshd: TestSshd, appends: number, label: string): Promise<Measured> {
  const dir = tempDir('line');
  const runs = join(dir, 'runs');
  const date = today();
  mkdirSync(join(runs, date), { recursive: true });
  const now = Date.now();
  writeFileSync(join(runs, date, 'audit.status'), `audit ${stamp(new Date(now - 3 * HOUR))} STARTED\naudit ${stamp(new Date(now - 2 * HOUR))} OK\n`);
  writeFileSync(join(runs, date, 'remediate.status'), `remediate ${stamp(new Date(now - HOUR))} STARTED\n`);
  const rcFile = join(runs, date, 'remediate.gates.rc');
  writeFileSync(rcFile, 'ast_refresh_rc=0\n');
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    [
      'hosts:',
      `  runner: { ssh: "${sshd.user}@127.0.0.1:${sshd.port}", identityFile: ${JSON.stringify(sshd.clientKey)}, knownHosts: ${JSON.stringify(sshd.knownHosts)} }`,
      'loops:',
      '  reliability:',
      '    host: runner',
      `    runs: ${JSON.stringify(runs)}`,
      '    phases: [audit, remediate, deliver]',
      '',
    ].join('\n'),
  );
  const home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const env = { HOME: home, SSH_AUTH_SOCK: '' };

  log(`figure 1${label}: starting serve, watch, ssh tail -F and Chromium`);
  const served = await startServe(['--config', configPath, '--data', join(dir, 'data-serve')], env);
  const watchSeen: Seen = new Map();
  const watch = spawnTracked(process.execPath, [LOOPDECK_BIN, 'watch', '--json', '--config', configPath, '--data', join(dir, 'data-watch')], env);
  watchLines(watch, /"name":"step(\d+)"/g, watchSeen);
  const tailSeen: Seen = new Map();
  const tail = spawnTracked('ssh', [
    '-i', sshd.clientKey, '-p', String(sshd.port),
    '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-F', '/dev/null',
    `${sshd.user}@127.0.0.1`, 'tail', '-F', rcFile,
  ], env);
  watchLines(tail, /^step(\d+)_rc=/g, tailSeen);

  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  await page.goto(`${served.url}#/loops`);
  const segment = page.locator(`[data-testid="phase-reliability-${date}-remediate"]`);
  await segment.waitFor({ timeout: 30_000 });
  await segment.click();
  await page.locator('[data-testid="stage-gates"]').waitFor({ timeout: 10_000 });
  await page.evaluate(PAGE_OBSERVER);

  // Warm-up: one append every observer must see before timing starts (connections up, first reads done).
  appendFileSync(rcFile, 'warmup_rc=0\n');
  await until(() => watch.exitCode === null && tail.exitCode === null, 1000, 'watch and tail to run');
  const warm = Date.now();
  await page.locator('[data-testid="stage-gates"] .chip-name', { hasText: 'warmup' }).waitFor({ timeout: 30_000 });
  await sleep(1500);
  log(`figure 1${label}: warm after ${Date.now() - warm} ms; ${appends} appends`);

  const appendedAt: number[] = [];
  for (let i = 0; i < appends; i++) {
    appendedAt.push(Date.now());
    appendFileSync(rcFile, `step${i}_rc=0\n`);
    const deadline = Date.now() + LOST_MS;
    const pageHas = async (): Promise<boolean> => (await page.evaluate(`window.__paint[${i}] !== undefined`)) as boolean;
    while (Date.now() < deadline && !(watchSeen.has(i) && tailSeen.has(i) && (await pageHas()))) await sleep(20);
    // A random gap, so appends do not phase-lock with the 250 ms poll timer.
    await sleep(Math.random() * 250);
    if ((i + 1) % 50 === 0) log(`figure 1${label}: ${i + 1}/${appends}`);
  }
  const pagePaint = (await page.evaluate('window.__paint')) as Record<string, number>;
  const pageDom = (await page.evaluate('window.__dom')) as Record<string, number>;

  const lRenderer = latencies(appendedAt, (n) => pagePaint[n]);
  const lDom = latencies(appendedAt, (n) => pageDom[n]);
  const lWatch = latencies(appendedAt, (n) => watchSeen.get(n));
  const lTail = latencies(appendedAt, (n) => tailSeen.get(n));

  const servePid = served.pid;
  await page.close();
  // Closed now, not at the end of the run: the figures after this one get a machine without it.
  await browser.close();
  await served.stop();
  await stopChild(watch);
  await stopChild(tail);

  log(`figure 1${label}: profiling one poll in-process`);
  const profile = await pollProfile(sshd, runs);
  return { renderer: lRenderer, dom: lDom, watch: lWatch, tail: lTail, profile, servePid };
}

/** Figure 1's rows for one run: each observer against that run's own `ssh host tail -F`. */
function rows(m: Measured, appends: number, ids: { renderer: string; watch: string; dom: string }, host: string): Figure[] {
  const lTail = m.tail;
  const profile = m.profile;
  const servePid = m.servePid;
  const base = { p50: percentile(lTail.samples, 50), p95: percentile(lTail.samples, 95) };
  const target = 1.5 * base.p95 + 100;
  const mk = (id: string, what: string, l: Latencies): Figure[] => {
    const p95 = percentile(l.samples, 95);
    const p50 = percentile(l.samples, 50);
    return [
      figure({
        id: `${id}-p50`,
        name: `Line to screen, ${what}${host}, p50`,
        value: round(p50, 1),
        unit: 'ms',
        baseline: round(base.p50, 1),
        baselineLabel: 'ssh tail -F p50',
        target: 'p95 figure decides',
        pass: null,
        details: {},
        notes: [],
      }),
      figure({
        id: `${id}-p95`,
        name: `Line to screen, ${what}${host}, p95`,
        value: round(p95, 1),
        unit: 'ms',
        baseline: round(base.p95, 1),
        baselineLabel: 'ssh tail -F p95',
        target: `≤ 1.5 × baseline + 100 ms (= ${round(target, 1)} ms)`,
        pass: l.lost === 0 && p95 <= target,
        details: { [what]: dist(l), baseline: dist(lTail), pollProfile: profile, servePid },
        notes: l.lost ? [`${l.lost} of ${appends} appends never arrived within ${LOST_MS} ms`] : [],
      }),
    ];
  };
  const lDom = m.dom;
  return [
    ...mk(ids.renderer, 'renderer (Chromium, serve)', m.renderer),
    ...mk(ids.watch, 'watch --json', m.watch),
    figure({
      id: ids.dom,
      name: `Line to DOM (before paint), renderer p95${host}`,
      value: round(percentile(lDom.samples, 95), 1),
      unit: 'ms',
      baseline: round(base.p95, 1),
      baselineLabel: 'ssh tail -F p95',
      target: 'info',
      pass: null,
      details: { dom: dist(lDom) },
      notes: [],
    }),
  ];
}

/** How long each SSH session of the slow-login host waits before its command runs (pyenv in .bashrc). */
const SLOW_LOGIN_MS = 500;

/**
 * Figure 1: an appended line until it is in the renderer and in `watch --json`, against `ssh host
 * tail -F`; then the same against a host whose login shell takes 0.5 s (1d–1f), with its own
 * `tail -F` baseline measured the same way.
 */
export async function lineToScreen(sshd: TestSshd, appends: number, options: { contended?: boolean } = {}): Promise<Figure[]> {
  const normal = rows(await measure(sshd, appends, ''), appends, { renderer: '1a', watch: '1b', dom: '1c' }, '');
  const contended = options.contended ? await underContention(() => measure(sshd, appends, ' (contended)')) : null;
  const busy = contended ? rows(contended, appends, { renderer: '1g', watch: '1h', dom: '1i' }, ', two CPU-bound processes beside it') : [];
  const slowSshd = await startSshd({ loginDelayMs: SLOW_LOGIN_MS });
  onCleanup(async () => {
    await slowSshd.stop();
    rmSync(slowSshd.dir, { recursive: true, force: true });
  });
  const slow = await measure(slowSshd, appends, ' (slow login)');
  await slowSshd.stop();
  return [...normal, ...rows(slow, appends, { renderer: '1d', watch: '1e', dom: '1f' }, `, ${SLOW_LOGIN_MS} ms login shell`), ...busy];
}

/**
 * Run `fn` with two CPU-bound processes beside it (on a 2-core machine, every core busy), the way
 * an operator's laptop is during a build: the baseline (`ssh … tail -F`) is measured under the
 * same load in the same run. The burners end with `fn`, whatever happens.
 */
async function underContention<T>(fn: () => Promise<T>): Promise<T> {
  const burners = [0, 1].map(() => spawnTracked(process.execPath, ['-e', 'for (;;) {}']));
  try {
    return await fn();
  } finally {
    await Promise.all(burners.map((b) => stopChild(b, 1000)));
  }
}
