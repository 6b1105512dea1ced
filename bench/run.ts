import { transcriptPaint } from './transcript-paint';
import { transcriptView } from './transcript-view';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { startSshd } from '../testing/sshd';
import { bytesRead } from './bytes-read';
import { capacityChart, capacityFixture } from './capacity';
import { findingsTable } from './findings-table';
import { historyCost } from './history-cost';
import { historyPaint } from './history-paint';
import { hundredHosts } from './hundred-hosts';
import { ledgerParsing } from './ledger';
import { launchChromium, log, onCleanup, ROOT, round, runCleanups, type Figure } from './lib';
import { lineToScreen } from './line-to-screen';
import { coldStartFigure, footprintFigure } from './start-footprint';
import { preflightCost } from './preflight';
import { sqliteIngest } from './sqlite-ingest';

const ALL = ['1', '2', '3', '4', '5', '6', '6d', '7', '8', '9', '10', '11'] as const;

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    json: { type: 'boolean', default: false },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    contended: { type: 'boolean', default: false },
  },
  strict: true,
});

/** Newest modification time under a folder (for the renderer-build staleness check). */
function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    t = Math.max(t, st.isDirectory() ? newest(p) : st.mtimeMs);
  }
  return t;
}

/** Build the renderer when it is missing; say so when it is older than its sources. */
function ensureRenderer(notes: string[]): void {
  const index = join(ROOT, 'out', 'renderer', 'index.html');
  if (!existsSync(index)) {
    log('building the renderer (out/renderer/index.html is missing)');
    execFileSync('npx', ['vite', 'build', '--config', 'renderer/vite.config.ts'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    return;
  }
  const built = statSync(index).mtimeMs;
  if (newest(join(ROOT, 'renderer', 'src')) > built) {
    const msg = 'out/renderer is older than renderer/src: the Chromium figures measure the existing build (run `npm run build:renderer` first to measure the sources)';
    log(msg);
    notes.push(msg);
  }
}

function fmt(n: number | null, unit = ''): string {
  if (n === null || Number.isNaN(n)) return '—';
  const abs = Math.abs(n);
  const s = abs >= 1000 ? Math.round(n).toLocaleString('en-US') : abs >= 10 ? String(round(n, 1)) : abs >= 0.1 ? String(round(n, 3)) : String(round(n, 4));
  return unit ? `${s} ${unit}` : s;
}

function table(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    f.id,
    f.name,
    fmt(f.value, f.unit),
    f.baseline === null ? f.baselineLabel || '—' : `${fmt(f.baseline, f.unit)} (${f.baselineLabel})`,
    f.ratio === null ? '—' : `${fmt(f.ratio)}×`,
    f.target,
    f.pass === null ? '·' : f.pass ? '✓' : '✗',
  ]);
  const head = ['#', 'figure', 'measured', 'baseline', 'ratio', 'target', 'ok'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' │ ');
  const sep = widths.map((w) => '─'.repeat(w)).join('─┼─');
  const notes = figures.flatMap((f) => f.notes.map((n) => `  ${f.id}: ${n}`));
  return [line(head), sep, ...rows.map(line), ...(notes.length ? ['', 'notes:', ...notes] : [])].join('\n');
}

async function main(): Promise<number> {
  const started = Date.now();
  const only = new Set(flags.only ? flags.only.split(',') : ALL);
  const quick = flags.quick ?? false;
  const figures: Figure[] = [];
  const runNotes: string[] = [];
  const failures: string[] = [];
  // `--only 6d` runs figure 6d alone (likewise 6a, 6b); `--only 6` runs 6a, 6b and 6d.
  const wanted = (id: string): boolean => only.has(id) || only.has(id.replace(/[a-z]+$/, ''));
  const step = async (id: string, fn: () => Promise<Figure[]> | Figure[]): Promise<void> => {
    if (!wanted(id)) return;
    const t0 = Date.now();
    try {
      figures.push(...(await fn()));
    } catch (err) {
      const message = `figure ${id} failed: ${(err as Error).stack ?? String(err)}`;
      log(message);
      failures.push(message);
    }
    log(`figure ${id} took ${round((Date.now() - t0) / 1000, 1)} s`);
  };

  const needsBrowser = ['1', '4', '5', '6a', '9', '10'].some((id) => wanted(id));
  if (needsBrowser) ensureRenderer(runNotes);
  // The spawned loopdeck processes run the bundle npm start runs, built from the sources now.
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-cli.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const sshd = await startSshd();
  onCleanup(async () => {
    await sshd.stop();
    rmSync(sshd.dir, { recursive: true, force: true });
  });
  log(`sshd on 127.0.0.1:${sshd.port}`);
  // Every browser figure gets a Chromium of its own, closed after it, so none measures what the
  // figures before it left in the browser (a page's heap, a renderer process still winding down).
  const inBrowser = async (fn: (browser: Browser) => Promise<Figure[]>): Promise<Figure[]> => {
    const browser = await launchChromium();
    try {
      return await fn(browser);
    } finally {
      await browser.close();
    }
  };

  let ledgerText: string | null = null;
  await step('7', () => sqliteIngest());
  await step('3', async () => {
    const r = await ledgerParsing();
    ledgerText = r.ledgerText;
    return r.figures;
  });
  await step('2', () => bytesRead(sshd, quick ? 10 : 60));
  await step('1', () => lineToScreen(sshd, quick ? 30 : 200, { contended: flags.contended ?? false }));
  await step('4', async () => {
    const { generateLedger } = await import('./ledger-gen');
    return inBrowser((browser) => findingsTable(browser, ledgerText ?? generateLedger(20_000)));
  });
  if (wanted('5') || wanted('6a')) {
    const fx = await capacityFixture();
    await step('5', () => inBrowser((browser) => capacityChart(browser, fx)));
    await step('6a', () => inBrowser((browser) => coldStartFigure(browser, fx)));
  }
  await step('6b', () => footprintFigure(sshd, quick ? 15 : 60));
  await step('6d', () => hundredHosts(quick));
  await step('8', () => historyCost(quick));
  await step('9', () => inBrowser((browser) => historyPaint(browser, quick)));
  await step('11', () => preflightCost(sshd));
  await step('10', async () => [...(await transcriptView(sshd, quick)), ...(await inBrowser((browser) => transcriptPaint(browser, sshd)))]);

  const order = (id: string): number => Number.parseFloat(id) + (id.charCodeAt(1) || 0) / 1000;
  figures.sort((a, b) => order(a.id) - order(b.id) || a.id.localeCompare(b.id));
  const totalS = (Date.now() - started) / 1000;
  console.log(`\nLoopdeck bench — ${new Date().toISOString()} — node ${process.version}, ${quick ? 'QUICK, ' : ''}total ${round(totalS, 1)} s\n`);
  console.log(table(figures));
  for (const n of runNotes) console.log(`\nnote: ${n}`);
  for (const f of failures) console.log(`\n${f}`);
  if (flags.json) {
    const file = join(ROOT, 'bench', 'results.json');
    writeFileSync(
      file,
      `${JSON.stringify({ takenAt: new Date().toISOString(), node: process.version, quick, totalSeconds: round(totalS, 1), figures, notes: runNotes, failures }, null, 2)}\n`,
    );
    console.log(`\nwrote ${file}`);
  }
  return failures.length > 0 ? 1 : 0;
}

// A stray failure in a figure's background work must not skip the cleanup below.
process.on('unhandledRejection', (err) => log(`unhandled: ${(err as Error).stack ?? String(err)}`));
process.on('uncaughtException', (err) => log(`uncaught: ${err.stack ?? String(err)}`));

let code = 1;
try {
  code = await main();
} catch (err) {
  log(`bench failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  await runCleanups();
}
process.exit(code);
