import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { TestSshd } from '../testing/sshd';
import type { CapacityFixture } from './capacity';
import { cpuMs, figure, log, median, pageUntil, round, rssMb, sleep, spawnTracked, stamp, startServe, stopChild, tempDir, type Figure } from './lib';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// Before any page script: record Date.now() two frames after the Review (or Loops) view first exists.
const PAINT_PROBE = `(() => {
  const w = window;
  w.__painted = undefined;
  const sel = '[data-testid="review"], [data-testid^="loop-"], [data-testid="bench-static"]';
  const check = () => {
    if (w.__painted !== undefined || w.__seen) return;
    if (!document.querySelector(sel)) return;
    w.__seen = Date.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { w.__painted = Date.now(); }));
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', check);
})()`;

const STATIC_SERVER = `
const http = require('http');
const page = '<!doctype html><html><head><title>static</title></head><body><div data-testid="bench-static">Loopdeck</div></body></html>';
const srv = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(page); });
srv.listen(0, '127.0.0.1', () => console.log('serving at http://127.0.0.1:' + srv.address().port + '/'));
process.on('SIGTERM', () => process.exit(0));
`;

/** The cold-start figures' bound (issue 45): 1.5 × the bare server's start, plus 200 ms. */
export function coldStartBound(bareMs: number): number {
  return 1.5 * bareMs + 200;
}

/** One cold start: spawn to URL printed, and spawn to the view painted. */
export interface StartSample {
  readonly toUrlMs: number;
  readonly toPaintMs: number;
}

/** Spawn a server with `start`, open its URL in a fresh page, and time spawn → first view painted (two frames). */
export async function coldStart(browser: Browser, start: () => Promise<{ url: string; spawnedAt: number; urlAt: number; stop: () => Promise<void> }>): Promise<StartSample> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  await page.addInitScript({ content: PAINT_PROBE });
  await page.goto('about:blank');
  const served = await start();
  try {
    await page.goto(served.url, { waitUntil: 'commit' });
    await pageUntil(page, 'window.__painted !== undefined', 60_000, 10);
    const painted = (await page.evaluate('window.__painted')) as number;
    return { toUrlMs: served.urlAt - served.spawnedAt, toPaintMs: painted - served.spawnedAt };
  } finally {
    await page.close();
    await served.stop();
  }
}

/** The bare baseline of the cold-start figures: a `node -e` http server with a static page. */
export async function staticServer(): Promise<{ url: string; spawnedAt: number; urlAt: number; stop: () => Promise<void> }> {
  const spawnedAt = Date.now();
  const child = spawnTracked(process.execPath, ['-e', STATIC_SERVER]);
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /serving at (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`static server exited (${code})`)));
  });
  return { url, spawnedAt, urlAt: Date.now(), stop: () => stopChild(child) };
}

/** Figure 6a: serve-mode cold start to the first painted Review view, with the 30-day database. */
export async function coldStartFigure(browser: Browser, fx: CapacityFixture): Promise<Figure[]> {
  const loopdeck: StartSample[] = [];
  const bare: StartSample[] = [];
  for (let i = 0; i < 3; i++) {
    bare.push(await coldStart(browser, staticServer));
    loopdeck.push(await coldStart(browser, () => startServe(['--config', fx.configPath, '--data', fx.dataDir], { HOME: fx.home })));
  }
  const value = median(loopdeck.map((s) => s.toPaintMs));
  const base = median(bare.map((s) => s.toPaintMs));
  log(`figure 6: cold start ${round(value, 0)} ms (bare node ${round(base, 0)} ms)`);
  return [
    figure({
      id: '6a',
      name: 'Serve cold start: spawn to painted Review view (30-day DB), median of 3',
      value: round(value, 0),
      unit: 'ms',
      baseline: round(base, 0),
      baselineLabel: 'bare node http + static page',
      target: `≤ 1.5 × bare + 200 ms (= ${round(coldStartBound(base), 0)} ms)`,
      pass: value <= coldStartBound(base),
      details: {
        loopdeck: loopdeck.map((s) => ({ spawnToUrlMs: s.toUrlMs, spawnToPaintMs: s.toPaintMs })),
        bareNode: bare.map((s) => ({ spawnToUrlMs: s.toUrlMs, spawnToPaintMs: s.toPaintMs })),
      },
      notes: [`spawn → URL printed ${round(median(loopdeck.map((s) => s.toUrlMs)), 0)} ms; URL → painted ${round(median(loopdeck.map((s) => s.toPaintMs - s.toUrlMs)), 0)} ms`],
    }),
  ];
}

/** Established TCP connections to the sshd port. */
function sshdConnections(port: number): number {
  try {
    const out = execFileSync('ss', ['-Htn', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' });
    return out.split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    return -1;
  }
}

/** Figure 6b: serve's RSS after following 20 SSH hosts × 30 files for `seconds`. */
export async function footprintFigure(sshd: TestSshd, seconds: number): Promise<Figure[]> {
  const HOSTS = 20;
  const dir = tempDir('footprint');
  const home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const config: string[] = ['hosts:'];
  const loops: string[] = ['loops:'];
  const now = Date.now();
  const latestLogs: string[] = [];
  for (let h = 1; h <= HOSTS; h++) {
    const name = `h${String(h).padStart(2, '0')}`;
    config.push(`  ${name}: { ssh: "${sshd.user}@127.0.0.1:${sshd.port}", identityFile: ${JSON.stringify(sshd.clientKey)}, knownHosts: ${JSON.stringify(sshd.knownHosts)} }`);
    const runs = join(dir, `runs-${name}`);
    for (let c = 0; c < 10; c++) {
      const t = now - c * DAY;
      const date = new Date(t).toISOString().slice(0, 10);
      const cyc = join(runs, date);
      mkdirSync(cyc, { recursive: true });
      const started = new Date(Date.parse(`${date}T00:00:05Z`));
      writeFileSync(join(cyc, 'audit.status'), `audit ${stamp(started)} STARTED\n${c === 0 ? '' : `audit ${stamp(new Date(started.getTime() + HOUR))} OK\n`}`);
      writeFileSync(join(cyc, 'audit.log'), Array.from({ length: 200 }, (_, i) => `[${stamp(started)}] step ${i}: tool_use Bash pytest -q tests/test_${i}.py ok`).join('\n') + '\n');
      writeFileSync(join(cyc, 'audit.gates.rc'), 'ast_refresh_rc=0\ngates_rc=0\nsuite_rc=0\nDONE\n');
      if (c === 0) latestLogs.push(join(cyc, 'audit.log'));
    }
    loops.push(`  loop-${name}:`, `    host: ${name}`, `    runs: ${JSON.stringify(runs)}`, '    phases: [audit]', '    cycles: 10');
  }
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, [...config, ...loops, ''].join('\n'));

  // Bare node for scale: an idle http server's RSS.
  const bare = spawnTracked(process.execPath, ['-e', "require('http').createServer().listen(0,'127.0.0.1',()=>console.log('up'))"]);
  await sleep(1000);
  const bareRss = rssMb(bare.pid ?? 0);
  await stopChild(bare);

  const served = await startServe(['--config', configPath, '--data', join(dir, 'data')], { HOME: home, SSH_AUTH_SOCK: '' });
  log(`figure 6: following ${HOSTS} hosts × 30 files for ${seconds} s`);
  const samples: { s: number; rssMb: number | null; cpuMs: number | null }[] = [];
  const t0 = Date.now();
  let k = 0;
  while (Date.now() - t0 < seconds * 1000) {
    await sleep(1000);
    // Keep the loops live: a transcript line on each latest cycle every second.
    for (const p of latestLogs) appendFileSync(p, `[${stamp(new Date())}] tick ${k}: tool_use Read web/lib/file-${k}.ts\n`);
    k += 1;
    if (k % 5 === 0) samples.push({ s: round((Date.now() - t0) / 1000, 0), rssMb: rssMb(served.pid), cpuMs: cpuMs(served.pid) });
  }
  const rss = rssMb(served.pid);
  const connections = sshdConnections(sshd.port);
  const cpu = cpuMs(served.pid);
  await served.stop();
  const peak = Math.max(...samples.map((s) => s.rssMb ?? 0), rss ?? 0);
  log(`figure 6: RSS ${round(rss ?? 0, 0)} MB (peak ${round(peak, 0)} MB), ${connections} ssh connections`);
  return [
    figure({
      id: '6b',
      name: `Serve RSS after ${seconds} s following ${HOSTS} SSH hosts × 30 files`,
      value: rss === null ? null : round(rss, 0),
      unit: 'MB',
      baseline: bareRss === null ? null : round(bareRss, 0),
      baselineLabel: 'idle bare node http server',
      target: '< 250 MB',
      pass: rss !== null && rss < 250,
      details: { peakMb: round(peak, 0), sshConnections: connections, serveCpuMs: cpu, samples },
      notes: [`serve used ${round((cpu ?? 0) / 1000, 1)} s of CPU over the ${seconds} s (${round(((cpu ?? 0) / 10) / seconds, 0)}% of one core)`],
    }),
  ];
}
