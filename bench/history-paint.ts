/**
 * Figures 6c and 4b, paint with a year of history: serve's cold start to the painted Review with a
 * 365-day, 60,000-finding history already read into its data folder, and the click on the Findings
 * nav item to the first table rows painted (60,000 findings, and 20,000 as the issue has it).
 */
import type { Browser, Page } from 'playwright-core';
import { connectCounter } from './event-counter';
import { generateHistory, type HistoryFixture } from './history-gen';
import { figure, inputToPaintFloor, log, median, pageUntil, round, sleep, startServe, tempDir, until, type Figure, type ServeProcess } from './lib';
import { coldStart, coldStartBound, staticServer, type StartSample } from './start-footprint';

const DAYS = 365;
const LINES_PER_CYCLE = 100;
const COLD_STARTS = 3;
const NAV_CLICKS = 5;

interface SnapshotLike {
  readonly loops: readonly { name: string; cycles: readonly unknown[] }[];
  readonly findings: readonly unknown[];
}

/** Wait until serve's snapshot holds every finding and followed cycle, then until it has been quiet 2 s. */
async function settled(served: ServeProcess, fx: HistoryFixture, what: string): Promise<number> {
  const client = await connectCounter(served.url);
  let seen = '';
  let snapAt = 0;
  try {
    await until(
      async () => {
        // Snapshots are tens of MB at 60k: ask when serve has been quiet a second, else every 5 s.
        if (Date.now() - client.lastFrameAt < 1000 && Date.now() - snapAt < 5000) return false;
        snapAt = Date.now();
        const snap = (await client.invoke('state.snapshot').catch(() => null)) as SnapshotLike | null;
        if (!snap) return false;
        const cycles = snap.loops.find((l) => l.name === 'reliability')?.cycles.length ?? -1;
        seen = `${snap.findings.length} findings, ${cycles} cycles`;
        return snap.findings.length === fx.findings && cycles === fx.followed;
      },
      300_000,
      `serve to read ${what}`,
      1000,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message} (last snapshot: ${seen || 'none'})`, { cause: err });
    });
    const loadMs = Date.now() - served.spawnedAt;
    await until(() => Date.now() - client.lastFrameAt > 2000, 60_000, `serve to fall quiet after reading ${what}`, 100);
    return loadMs;
  } finally {
    client.close();
  }
}

// In the page: from a click on the Findings nav item to two animation frames after the findings
// table first holds a row. A string: the node tsconfig has no DOM types.
const NAV_PROBE = `(() => {
  const w = window;
  w.__nav = { pending: null, results: [] };
  document.addEventListener('click', (e) => {
    const a = e.target && e.target.closest && e.target.closest('[data-testid="nav-findings"]');
    if (a) w.__nav.pending = { t0: e.timeStamp };
  }, true);
  const check = () => {
    const p = w.__nav.pending;
    if (!p) return;
    if (!document.querySelector('[data-testid="findings-table"] [data-testid^="finding-row-"]')) return;
    w.__nav.pending = null;
    const shown = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => {
      w.__nav.results.push({ t0: p.t0, shown, painted: performance.now(), rows: document.querySelectorAll('[data-testid^="finding-row-"]').length });
    }));
  };
  new MutationObserver(check).observe(document.body, { childList: true, subtree: true });
})()`;

// Before any page script: Date.now() two frames after the Review shows its findings (their
// counts, or "nothing needs you"): the ledger rows, read in pages after the first paint, are in.
const ROWS_PROBE = `(() => {
  const w = window;
  w.__rows = undefined;
  const check = () => {
    if (w.__rows !== undefined || w.__rowsSeen) return;
    if (!document.querySelector('[data-testid="review-finding-counts"], [data-testid="review-empty"]')) return;
    w.__rowsSeen = true;
    requestAnimationFrame(() => requestAnimationFrame(() => { w.__rows = Date.now(); }));
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
})()`;

/** Spawn of serve to the Review's findings painted (the rows loaded after the first paint). */
async function coldStartToRows(browser: Browser, fx: HistoryFixture): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  await page.addInitScript({ content: ROWS_PROBE });
  await page.goto('about:blank');
  const served = await startServe(['--config', fx.configPath, '--data', fx.dataDir], { HOME: fx.home });
  try {
    await page.goto(served.url, { waitUntil: 'commit' });
    await pageUntil(page, 'window.__rows !== undefined', 120_000, 10);
    return ((await page.evaluate('window.__rows')) as number) - served.spawnedAt;
  } finally {
    await page.close();
    await served.stop();
  }
}

interface NavResult {
  readonly findings: number;
  readonly loadMs: number;
  /** Click → rows painted, in click order (the first is the view's first open in the page). */
  readonly paintedMs: readonly number[];
  readonly shownMs: readonly number[];
  readonly rows: number;
  /** Click → paint on the bare button (only measured on the first page). */
  readonly floorMs: readonly number[];
}

/** Open the Review, then click Findings and back `NAV_CLICKS` times. */
async function navClicks(page: Page): Promise<{ paintedMs: number[]; shownMs: number[]; rows: number }> {
  await page.evaluate(NAV_PROBE);
  for (let i = 0; i < NAV_CLICKS; i++) {
    await page.locator('[data-testid="nav-findings"]').click();
    await pageUntil(page, `window.__nav.results.length > ${i}`, 30_000);
    await sleep(300);
    await page.locator('[data-testid="nav-review"]').click();
    await pageUntil(page, `!!document.querySelector('[data-testid="review"]') && !document.querySelector('[data-testid="findings-table"]')`, 30_000);
    await sleep(500);
  }
  const results = (await page.evaluate('window.__nav.results')) as { t0: number; shown: number; painted: number; rows: number }[];
  return { paintedMs: results.map((r) => r.painted - r.t0), shownMs: results.map((r) => r.shown - r.t0), rows: results[0]?.rows ?? 0 };
}

/** A settled serve on `fx`, a page on its Review with the findings in its store, the clicks measured. */
async function findingsNav(browser: Browser, fx: HistoryFixture, withFloor: boolean): Promise<NavResult> {
  const served = await startServe(['--config', fx.configPath, '--data', fx.dataDir], { HOME: fx.home });
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  try {
    const loadMs = await settled(served, fx, `${fx.findings} findings (warm)`);
    await page.goto(served.url);
    // The Findings nav count appears once the page's store holds the findings.
    await pageUntil(page, `!!document.querySelector('[data-testid="review"]') && !!document.querySelector('[data-testid="nav-findings"] .nav-count')`, 120_000, 100);
    await sleep(1500);
    const nav = await navClicks(page);
    const floorMs = withFloor ? await inputToPaintFloor(page, 'click', 10) : [];
    return { findings: fx.findings, loadMs, ...nav, floorMs };
  } finally {
    await page.close();
    await served.stop();
  }
}

/** A 365-day history whose data folder already holds everything serve read from it. */
async function readHistory(findings: number): Promise<HistoryFixture> {
  const fx = generateHistory(tempDir(`paint-${findings}`), DAYS, findings, LINES_PER_CYCLE);
  const served = await startServe(['--config', fx.configPath, '--data', fx.dataDir], { HOME: fx.home });
  try {
    const loadMs = await settled(served, fx, `${DAYS} days and ${findings} findings`);
    log(`figure 6c/4b: ${DAYS} days (${fx.followed} followed), ${findings} findings read in ${round(loadMs / 1000, 1)} s`);
  } finally {
    await served.stop();
  }
  return fx;
}

/** Figures 6c (cold start with a year of history) and 4b (Findings nav click to rows painted). */
export async function historyPaint(browser: Browser, quick: boolean): Promise<Figure[]> {
  const large = await readHistory(60_000);
  const loopdeck: StartSample[] = [];
  const bare: StartSample[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    bare.push(await coldStart(browser, staticServer));
    loopdeck.push(await coldStart(browser, () => startServe(['--config', large.configPath, '--data', large.dataDir], { HOME: large.home })));
  }
  const toRows: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) toRows.push(await coldStartToRows(browser, large));
  const start = median(loopdeck.map((s) => s.toPaintMs));
  const startBase = median(bare.map((s) => s.toPaintMs));
  log(`figure 6c: cold start ${round(start, 0)} ms (bare node ${round(startBase, 0)} ms)`);

  const navs: NavResult[] = [await findingsNav(browser, large, true)];
  if (!quick) navs.push(await findingsNav(browser, await readHistory(20_000), false));
  const main = navs[0] as NavResult;
  const value = median(main.paintedMs);
  const floor = median(main.floorMs);
  const per = navs.map((n) => `${n.findings.toLocaleString('en-US')} findings: median ${round(median(n.paintedMs), 0)} ms, first open ${round(n.paintedMs[0] ?? Number.NaN, 0)} ms (clicks ${n.paintedMs.map((x) => round(x, 0)).join(', ')}), ${n.rows} rows drawn`);
  log(`figure 4b: ${per.join('; ')}`);
  return [
    figure({
      id: '6c',
      name: `Serve cold start: spawn to painted Review view (${DAYS}-day history, 60k findings, already read), median of ${COLD_STARTS}`,
      value: round(start, 0),
      unit: 'ms',
      baseline: round(startBase, 0),
      baselineLabel: 'bare node http + static page',
      target: `≤ 1.5 × bare + 200 ms (= ${round(coldStartBound(startBase), 0)} ms)`,
      pass: start <= coldStartBound(startBase),
      details: {
        followedCycles: large.followed,
        findings: large.findings,
        loopdeck: loopdeck.map((s) => ({ spawnToUrlMs: s.toUrlMs, spawnToPaintMs: s.toPaintMs })),
        bareNode: bare.map((s) => ({ spawnToUrlMs: s.toUrlMs, spawnToPaintMs: s.toPaintMs })),
        spawnToFindingsInReviewMs: toRows,
      },
      notes: [
        `spawn → URL printed ${round(median(loopdeck.map((s) => s.toUrlMs)), 0)} ms; URL → painted ${round(median(loopdeck.map((s) => s.toPaintMs - s.toUrlMs)), 0)} ms; ${large.followed} cycles followed`,
        `the Review paints from a summary without the ledger rows; spawn → its findings painted (60,000 rows read in pages after the first paint) ${round(median(toRows), 0)} ms, median of ${COLD_STARTS}`,
      ],
    }),
    figure({
      id: '4b',
      name: `Findings view: click on Findings to first rows painted (${DAYS} d, 60k findings, settled), median of ${NAV_CLICKS}`,
      value: round(value, 0),
      unit: 'ms',
      baseline: round(floor, 1),
      baselineLabel: 'click to paint, bare button, median',
      target: '< 1 s',
      pass: navs.every((n) => median(n.paintedMs) < 1000),
      details: {
        sizes: navs.map((n) => ({
          findings: n.findings,
          serveReadMs: n.loadMs,
          clickToPaintedMs: n.paintedMs.map((x) => round(x, 1)),
          clickToRowsInDomMs: n.shownMs.map((x) => round(x, 1)),
          rowsDrawn: n.rows,
        })),
        floorMs: main.floorMs.map((x) => round(x, 1)),
      },
      notes: [...per, ...(quick ? ['--quick: the 20,000-finding history was not measured'] : [])],
    }),
  ];
}
