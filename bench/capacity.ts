import { mkdirSync } from 'node:fs';
import { freePort } from '../testing/sshd';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { historyOutput } from '../main/core/capacity/history/history-query';
import { CapacityHistory, MINUTE_MS, TEN_MINUTES_MS } from '../main/core/capacity/history/history-store';
import { databasePath } from '../main/core/config/paths';
import { Store } from '../main/core/store/store';
import { figure, inputToPaintFloor, writeLocalConfig, log, median, msSince, notMeasurable, pageUntil, round, sleep, startServe, tempDir, type Figure } from './lib';

const HOSTS = 20;
const SAMPLE_MS = 10_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A config and data folder with 30 days of capacity history, for figures 5 and 6. */
export interface CapacityFixture {
  readonly configPath: string;
  readonly dataDir: string;
  readonly home: string;
  readonly rows: number;
  readonly fillMs: number;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COLUMNS = [
  'proxy', 'host', 'resolution_ms', 't', 'n', 'up_n', 'slots_total',
  'slots_busy_sum', 'slots_busy_n', 'slots_busy_max', 'inflight_sum', 'inflight_n', 'inflight_max',
  'queued_sum', 'queued_n', 'queued_max', 'span_ms', 'requests', 'errors',
] as const;

/**
 * Fill `capacity_samples` the shape CapacityHistory writes it: raw 10 s samples for the last 48 h,
 * 1-minute rollups for 7 days and 10-minute rollups for 30 days, for 20 llama-server "hosts" (a
 * llama-server proxy's host is the proxy itself), in one transaction.
 */
function fill(dbFile: string, names: readonly string[], now: number): number {
  const store = Store.open(dbFile);
  const db = store.sql;
  const insert = db.prepare(`INSERT OR REPLACE INTO capacity_samples (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  let rows = 0;
  db.transaction(() => {
    names.forEach((name, h) => {
      const rand = rng(h + 1);
      // One smooth load curve per host (daily cycle + noise), sampled at each resolution.
      const load = (t: number): number => {
        const day = Math.sin(((t % DAY) / DAY) * 2 * Math.PI + h) * 0.5 + 0.5;
        return Math.max(0, Math.min(1, day * 0.8 + rand() * 0.3 - 0.1));
      };
      for (const [res, span] of [[0, 2 * DAY], [MINUTE_MS, 7 * DAY], [TEN_MINUTES_MS, 30 * DAY]] as const) {
        const step = res === 0 ? SAMPLE_MS : res;
        const n = step / SAMPLE_MS;
        const first = Math.ceil((now - span) / step) * step;
        for (let t = first; t <= now - step; t += step) {
          const l = load(t);
          const busy = 4 * l;
          const inflight = 6 * l;
          const queued = l > 0.8 ? 3 * (l - 0.8) * 5 : 0;
          const requests = Math.round(30 * l * n);
          const errors = l > 0.9 && rand() < 0.2 ? JSON.stringify({ '503': Math.max(1, Math.round(n * rand())) }) : null;
          insert.run(
            name, name, res, t, n, n, 4,
            busy * n, n, Math.min(4, Math.ceil(busy)),
            inflight * n, n, Math.ceil(inflight),
            queued * n, n, Math.ceil(queued),
            step, requests, errors,
          );
          rows += 1;
        }
      }
    });
  })();
  store.close();
  return rows;
}

/** Build the capacity fixture (config + 30-day database). */
export async function capacityFixture(): Promise<CapacityFixture> {
  const dir = tempDir('capacity');
  const dataDir = join(dir, 'data');
  const home = join(dir, 'home');
  mkdirSync(home);
  const port = await freePort(); // nothing listens there: the sources read as down, history still shows
  const names = Array.from({ length: HOSTS }, (_, i) => `llama-${String(i + 1).padStart(2, '0')}`);
  const configPath = writeLocalConfig(dir, [], [
    'proxies:',
    ...names.map((n) => `  ${n}: { host: runner, kind: llama-server, url: "http://127.0.0.1:${port}", every: 10s }`),
  ]);
  const t0 = process.hrtime.bigint();
  const rows = fill(databasePath(dataDir), names, Date.now());
  const fillMs = msSince(t0);
  log(`capacity fixture: ${rows} rows in ${Math.round(fillMs)} ms`);
  return { configPath, dataDir, home, rows, fillMs };
}

// In the page: time from a click on a range button to two animation frames after the charts show
// that range (loaded). A string: the node tsconfig has no DOM types.
const PAGE_PROBE = `(() => {
  const w = window;
  w.__cap = { pending: null, results: [] };
  document.addEventListener('click', (e) => {
    const b = e.target && e.target.closest && e.target.closest('[data-testid^="capacity-range-"]');
    if (b) w.__cap.pending = { t0: e.timeStamp, range: b.getAttribute('data-testid').slice('capacity-range-'.length) };
  }, true);
  const check = () => {
    const p = w.__cap.pending;
    if (!p) return;
    const s = document.querySelector('.cap-charts');
    if (!s || s.getAttribute('data-range') !== p.range || s.getAttribute('data-loading') !== 'false') return;
    if (!document.querySelector('[data-testid^="capacity-chart-"]')) return;
    w.__cap.pending = null;
    const shown = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const points = [...document.querySelectorAll('[data-testid^="capacity-chart-"]')].map((el) => Number(el.getAttribute('data-points')));
      const lines = document.querySelectorAll('[data-testid^="capacity-chart-"] path, [data-testid^="capacity-chart-"] polyline').length;
      w.__cap.results.push({ range: p.range, t0: p.t0, shown, painted: performance.now(), points, lines });
    }));
  };
  new MutationObserver(check).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-range', 'data-loading', 'data-points'] });
})()`;

interface RangeResult {
  range: string;
  t0: number;
  shown: number;
  painted: number;
  points: number[];
  lines: number;
}

/** Figure 5: rendering the 7-day capacity view of 20 hosts × 30 days at 10 s samples. */
export async function capacityChart(browser: Browser, fx: CapacityFixture): Promise<Figure[]> {
  const TARGET = '< 300 ms and ≤ 1,000 points per series';
  // Main's share, in-process on the same database: the capacity.history query for 7 days.
  const store = Store.open(databasePath(fx.dataDir));
  const hist = new CapacityHistory(store.sql);
  const queryMs: number[] = [];
  let answerBytes = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    const out = historyOutput(hist, { range: '7d', maxPoints: 1000 }, new Date(), []);
    answerBytes = JSON.stringify(out).length;
    queryMs.push(msSince(t0));
  }
  const rowsT0 = process.hrtime.bigint();
  const rows7d = hist.rows(MINUTE_MS, Date.now() - 7 * DAY, Date.now()).length;
  const sqlMs = msSince(rowsT0);
  store.close();
  const served = await startServe(['--config', fx.configPath, '--data', fx.dataDir], { HOME: fx.home });
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  try {
    await page.goto(`${served.url}#/capacity`);
    await page.locator('[data-testid="capacity"]').waitFor({ timeout: 30_000 });
    if ((await page.locator('[data-testid="capacity-range-7d"]').count()) === 0) {
      await page.waitForTimeout(5000);
      if ((await page.locator('[data-testid="capacity-range-7d"]').count()) === 0) {
        return [notMeasurable('5', 'Capacity chart, 7-day view', TARGET, 'the Capacity view shows no range buttons (capacity-range-7d): no live capacity entries, so no charts')];
      }
    }
    await pageUntil(page, `(() => { const s = document.querySelector('.cap-charts'); return s && s.getAttribute('data-loading') === 'false' && s.getAttribute('data-range') === '24h'; })()`, 60_000);
    await page.evaluate(PAGE_PROBE);
    const measure = async (): Promise<RangeResult[]> => {
      const out: RangeResult[] = [];
      for (let i = 0; i < 5; i++) {
        for (const range of ['7d', '24h']) {
          const before = (await page.evaluate('window.__cap.results.length')) as number;
          await page.locator(`[data-testid="capacity-range-${range}"]`).click();
          await pageUntil(page, `window.__cap.results.length > ${before}`, 30_000);
          await sleep(200);
          if (range === '7d') out.push(((await page.evaluate('window.__cap.results')) as RangeResult[])[before] as RangeResult);
        }
      }
      return out;
    };
    const top5 = await measure();
    const hostsText = (await page.locator('.cap-window').textContent().catch(() => '')) ?? '';
    const all = page.locator('.cap-picker button', { hasText: /^All \d+/ });
    let allHosts: RangeResult[] = [];
    if ((await all.count()) > 0) {
      await all.click();
      await sleep(500);
      allHosts = await measure();
    }
    const ms = (r: RangeResult[]): number[] => r.map((x) => x.painted - x.t0);
    const floor = median(await inputToPaintFloor(page, 'click', 10));
    const maxPoints = Math.max(...top5.flatMap((r) => r.points), ...allHosts.flatMap((r) => r.points));
    const firstMs = ms(top5)[0] ?? Number.NaN;
    const med = median(ms(top5));
    log(`figure 5: 7d view ${round(med, 0)} ms (first ${round(firstMs, 0)} ms), ${maxPoints} points per series`);
    return [
      figure({
        id: '5a',
        name: `Capacity 7-day view render (${HOSTS} hosts, default top 5 drawn), median of 5`,
        value: round(med, 1),
        unit: 'ms',
        baseline: round(floor, 1),
        baselineLabel: 'click to paint, bare button, median',
        target: TARGET,
        pass: med < 300 && maxPoints <= 1000,
        details: {
          clicksToPaintedMs: ms(top5).map((x) => round(x, 1)),
          clickToChartsShownMs: top5.map((x) => round(x.shown - x.t0, 1)),
          firstClickMs: round(firstMs, 1),
          view: hostsText,
          rowsInDatabase: fx.rows,
          main7dHistoryQueryMs: { first: round(queryMs[0] ?? Number.NaN, 0), refetches: queryMs.slice(1).map((x) => round(x, 0)) },
          allMinuteRows7dMs: round(sqlMs, 0),
          minuteRows7d: rows7d,
          answerBytes,
          fillMs: round(fx.fillMs, 0),
        },
        notes: [
          `first 7d click ${round(firstMs, 0)} ms; main's capacity.history('7d') alone, in-process: ${round(queryMs[0] ?? Number.NaN, 0)} ms the first time, ${round(median(queryMs.slice(1)), 0)} ms a refetch (it reads each series' newest bucket again, not the window), answer ${Math.round(answerBytes / 1024)} KB (for scale: reading all ${rows7d} 1-minute rows of 7 days takes ${round(sqlMs, 0)} ms)`,
        ],
      }),
      figure({
        id: '5b',
        name: 'Capacity 7-day view: points drawn per series (max over charts)',
        value: maxPoints,
        unit: 'points',
        baseline: (7 * DAY) / SAMPLE_MS,
        baselineLabel: '10 s samples of one host in 7 days',
        target: '≤ 1,000',
        pass: maxPoints <= 1000,
        details: { perChart: top5[0]?.points ?? [] },
        notes: [],
      }),
      ...(allHosts.length
        ? [
            figure({
              id: '5c',
              name: `Capacity 7-day view render, all ${HOSTS} hosts drawn, median of 5`,
              value: round(median(ms(allHosts)), 1),
              unit: 'ms',
              baseline: round(floor, 1),
              baselineLabel: 'click to paint, bare button, median',
              target: '< 300 ms',
              pass: median(ms(allHosts)) < 300,
              details: { clicksToPaintedMs: ms(allHosts).map((x) => round(x, 1)) },
              notes: [],
            }),
          ]
        : []),
    ];
  } finally {
    await page.close();
    await served.stop();
  }
}
