import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../main/core/config/load-config';
import { Store } from '../main/core/store/store';
import { TRANSCRIPT_BEING_READ } from '../shared/transcript-domain';
import { isolatedSshEnv, sshHostYaml } from '../testing/ssh-fixture';
import type { TestSshd } from '../testing/sshd';
import { figure, log, percentile, round, sleep, tempDir, today, type Figure } from './lib';
import { composeEngine } from '../main/core/session/core';

const NEEDLE = 'needle-5e1f';
/** Rows of one screen of the view. */
const SCREEN = 50;
const RUNS = 15;

/** A transcript line of ~100 bytes; three carry the needle. */
function line(n: number, needleAt: ReadonlySet<number>): string {
  if (needleAt.has(n)) return `[2026-11-30T01:00:00Z] step ${n}: ${NEEDLE} found here\n`;
  return `[2026-11-30T01:${String(n % 60).padStart(2, '0')}:00Z] line ${n} pytest -q tests/test_sync.py::test_retry_backoff PASSED ok\n`;
}

function writeTranscript(path: string, bytes: number): { lines: number; size: number } {
  const fd = openSync(path, 'w');
  let size = 0;
  let n = 0;
  const needleAt = new Set([1000, Math.round(bytes / 200), Math.round(bytes / 110)]);
  try {
    while (size < bytes) {
      let chunk = '';
      while (chunk.length < 8 * 1024 * 1024) chunk += line(++n, needleAt);
      const b = Buffer.from(chunk);
      writeSync(fd, b);
      size += b.length;
    }
  } finally {
    closeSync(fd);
  }
  return { lines: n, size };
}

/** Wall times (ms) of `runs` calls of `fn`. */
async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/**
 * Figure 10: the transcript view's reads of a 1 GB transcript on the SSH host (the test sshd),
 * measured at the engine's commands (what the view asks for and main answers), each against a
 * stock `ssh host …` doing the same job in the same run: the last screen against `tail -n 200`,
 * a jump against the same, search against `grep -c`; the bytes brought against the rows' own.
 */
export async function transcriptView(sshd: TestSshd, quick: boolean): Promise<Figure[]> {
  const dir = tempDir('transcript');
  const runs = join(dir, 'runs');
  const date = today();
  mkdirSync(join(runs, date), { recursive: true });
  const path = join(runs, date, 'audit.log');
  const target = quick ? 100 * 1024 * 1024 : 1024 * 1024 * 1024;
  const t0 = Date.now();
  const file = writeTranscript(path, target);
  writeFileSync(join(runs, date, 'audit.status'), `audit 2026-11-30T01:00:00+00:00 STARTED\naudit 2026-11-30T02:00:00+00:00 OK\n`);
  log(`figure 10: ${round(file.size / 1024 / 1024, 0)} MiB, ${file.lines} lines written in ${round((Date.now() - t0) / 1000, 1)} s`);
  const yaml = `hosts:\n  runner: ${sshHostYaml(sshd)}\nloops:\n  reliability: { host: runner, runs: ${JSON.stringify(runs)}, phases: [audit] }\n`;
  const configPath = join(dir, 'loopdeck.yaml');
  writeFileSync(configPath, yaml);
  const store = Store.open(join(dir, 'loopdeck.db'));
  const engine = composeEngine(parseConfig(configPath, yaml), { store, ssh: isolatedSshEnv() });
  const ref = { loop: 'reliability', date, phase: 'audit' };
  const ssh = (...cmd: string[]): void => {
    execFileSync('ssh', ['-i', sshd.clientKey, '-p', String(sshd.port), '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-F', '/dev/null', `${sshd.user}@127.0.0.1`, ...cmd], {
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
  };
  try {
    engine.start();
    engine.run();
    // The follower's first read of the file (its line index): once, as the console would.
    const r0 = Date.now();
    for (;;) {
      try {
        const info = await engine.transcripts.open(ref);
        if (info.lines >= file.lines) break;
      } catch (err) {
        if (!(err as Error).message.includes(TRANSCRIPT_BEING_READ) && !(err as Error).message.includes('cannot be reached')) throw err;
      }
      if (Date.now() - r0 > 30 * 60_000) throw new Error('figure 10: the transcript was not read within 30 minutes');
      await sleep(200);
    }
    const firstReadS = (Date.now() - r0) / 1000;
    log(`figure 10: first read (the line index) in ${round(firstReadS, 1)} s`);
    const rss0 = process.memoryUsage().rss;

    const tailMs = await timed(RUNS, async () => ssh('tail', '-n', '200', path));
    let shownBytes = 0;
    let broughtBytes = 0;
    const count = (rows: readonly { text: string }[], bytesRead: number): void => {
      shownBytes += rows.reduce((a, r) => a + Buffer.byteLength(r.text) + 1, 0);
      broughtBytes += bytesRead;
    };
    const openMs = await timed(RUNS, async () => {
      await engine.transcripts.open(ref);
      const got = await engine.transcripts.lines({ ...ref, at: 'end', count: SCREEN });
      count(got.rows, got.bytesRead);
    });
    const jumpMs = await timed(RUNS, async () => {
      const got = await engine.transcripts.lines({ ...ref, at: { line: 5_000_000 > file.lines ? Math.floor(file.lines / 2) : 5_000_000 }, count: SCREEN });
      count(got.rows, got.bytesRead);
    });
    const halfMs = await timed(RUNS, async () => {
      const got = await engine.transcripts.lines({ ...ref, at: { fraction: 0.5 }, count: SCREEN });
      count(got.rows, got.bytesRead);
    });
    const grepMs = await timed(5, async () => ssh('grep', '-c', NEEDLE, path));
    let hits = 0;
    const searchMs = await timed(5, async () => {
      hits = (await engine.transcripts.search({ ...ref, query: NEEDLE, regex: false, ignoreCase: false, maxHits: 1000 }, 'bench')).total;
    });
    const rssGrowMb = (process.memoryUsage().rss - rss0) / 1024 / 1024;
    const tail95 = percentile(tailMs, 95);
    const bound = 1.5 * tail95 + 100;
    const grep95 = percentile(grepMs, 95);
    const size = `${round(file.size / 1024 / 1024 / 1024, 2)} GiB, ${file.lines.toLocaleString('en')} lines`;
    const jump95 = Math.max(percentile(jumpMs, 95), percentile(halfMs, 95));
    const notes = ['measured at the engine (the commands the view sends), not to paint: the paint of 50 rows is figure 1\'s order of time'];
    return [
      figure({
        id: '10a',
        name: `Transcript view: open on the last screen (${size}), p95`,
        value: round(percentile(openMs, 95), 1),
        unit: 'ms',
        baseline: round(tail95, 1),
        baselineLabel: 'ssh host tail -n 200 FILE, p95',
        target: `≤ 1.5 × baseline + 100 ms (= ${round(bound, 0)} ms)`,
        pass: percentile(openMs, 95) <= bound,
        details: { openMs: openMs.map((v) => round(v, 1)), tailMs: tailMs.map((v) => round(v, 1)), firstReadS: round(firstReadS, 1) },
        notes: [...notes, `the first read of the file (its line index, once) took ${round(firstReadS, 1)} s`],
      }),
      figure({
        id: '10b',
        name: 'Transcript view: jump to line 5,000,000 and to 50 %, p95',
        value: round(jump95, 1),
        unit: 'ms',
        baseline: round(tail95, 1),
        baselineLabel: 'ssh host tail -n 200 FILE, p95',
        target: `≤ 1.5 × baseline + 100 ms (= ${round(bound, 0)} ms)`,
        pass: jump95 <= bound,
        details: { jumpMs: jumpMs.map((v) => round(v, 1)), halfMs: halfMs.map((v) => round(v, 1)) },
        notes,
      }),
      figure({
        id: '10c',
        name: 'Transcript view: bytes brought over the link per byte of the rows shown',
        value: round(broughtBytes / shownBytes, 2),
        unit: 'B/B',
        baseline: 1,
        baselineLabel: 'bytes of the rows shown',
        target: '≤ 4',
        pass: broughtBytes / shownBytes <= 4,
        details: { broughtBytes, shownBytes },
        notes: [],
      }),
      figure({
        id: '10d',
        name: `Transcript search for a needle found ${hits} times, on the host, median of 5`,
        value: round(percentile(searchMs, 50), 0),
        unit: 'ms',
        baseline: round(percentile(grepMs, 50), 0),
        baselineLabel: 'ssh host grep -c NEEDLE FILE, median',
        target: '≤ 1.5 ×',
        pass: percentile(searchMs, 50) <= 1.5 * percentile(grepMs, 50) && hits === 3,
        details: { searchMs: searchMs.map((v) => round(v, 0)), grepMs: grepMs.map((v) => round(v, 0)), grep95: round(grep95, 0) },
        notes: hits === 3 ? [] : [`found ${hits} hits, expected 3`],
      }),
      figure({
        id: '10e',
        name: 'Transcript view: main-process RSS growth while reading it',
        value: round(rssGrowMb, 1),
        unit: 'MB',
        baseline: null,
        baselineLabel: '',
        target: '≤ 50 MB',
        pass: rssGrowMb <= 50,
        details: {},
        notes: ['in the bench process (the engine runs in it), from after the first read to after every open, jump and search above'],
      }),
    ];
  } finally {
    await engine.close();
    store.close();
  }
}
