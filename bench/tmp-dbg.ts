import { launchChromium, runCleanups, startServe, tempDir, pageUntil } from './lib';
import { generateLedger } from './ledger-gen';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
try {
  const dir = tempDir('dbg');
  mkdirSync(join(dir, 'repo')); mkdirSync(join(dir, 'runs'));
  writeFileSync(join(dir, 'repo', 'RELIABILITY_AUDIT.md'), generateLedger(20000));
  writeFileSync(join(dir, 'config.yaml'), `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${join(dir, 'runs')}\n    dir: ${join(dir, 'repo')}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`);
  const s = await startServe(['--config', join(dir, 'config.yaml'), '--data', join(dir, 'data')]);
  const b = await launchChromium();
  const page = await b.newPage();
  await page.goto(`${s.url}#/findings`);
  await pageUntil(page, `/^20,000 of 20,000/.test((document.querySelector('[data-testid="findings-count"]') || {}).textContent || '')`, 60000, 100);
  await page.waitForTimeout(1000);
  for (let i = 0; i < 5; i++) {
    const t = Date.now();
    const r = await Promise.race([page.evaluate(`new Promise(r => requestAnimationFrame(() => r(document.querySelectorAll('[data-testid="findings-table"] [role="row"], [data-testid="findings-table"] tr').length + ' rows, dom nodes ' + document.getElementsByTagName('*').length)))`), new Promise((r) => setTimeout(() => r('raf timeout'), 5000))]);
    console.log('raf', r, Date.now() - t, 'ms');
  }
  const t = Date.now();
  console.log(await page.evaluate(`(() => { const t0 = performance.now(); let n = 0; return new Promise(r => { const f = () => { n++; if (performance.now() - t0 > 2000) r(n + ' frames in 2 s'); else requestAnimationFrame(f); }; requestAnimationFrame(f); }); })()`), Date.now() - t);
  console.log(await page.evaluate(`document.visibilityState + ' ' + document.hasFocus()`));
} finally { await runCleanups(); }
