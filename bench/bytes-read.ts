import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../main/core/config/load-config';
import { Store } from '../main/core/store/store';
import { isolatedSshEnv, sshHostYaml } from '../testing/ssh-fixture';
import type { TestSshd } from '../testing/sshd';
import { CountingSource } from './counting-source';
import { figure, log, median, msSince, percentile, round, sleep, tempDir, today, type Figure } from './lib';
import { composeEngine } from '../main/core/session/core';

const FILES = 30;
/** The engine's poll interval when nothing wakes it in this figure (the session polls every 1 s; 250 ms is the stricter case). */
const POLL_MS = 250;
/** Lines appended per second over all files. */
const LINES_PER_S = 60;

const WORDS = ['pytest', '-q', 'tests/test_sync.py::test_retry_backoff', 'PASSED', 'vitest', 'run', 'web/lib/queue.test.ts', 'tool_use', 'Bash:', 'git', 'diff', '--stat', 'Read', 'web/lib/file-1234.ts', 'exit', '0', 'ms', 'ok', 'gate', 'suite'];

/** A transcript-like line of 60..220 bytes. */
function logLine(n: number): string {
  const len = 60 + ((n * 7919) % 160);
  let text = `[${new Date().toISOString()}] `;
  let i = n;
  while (text.length < len) text += `${WORDS[i++ % WORDS.length]} `;
  return `${text.slice(0, len)}\n`;
}

/**
 * Figure 2: bytes read per byte appended while following 30 files on one SSH host, by the engine
 * itself: a loop whose cycle has 30 phase transcripts, the engine running on its own schedule
 * (polled when the host's watcher says something changed, else every 250 ms), its host's file
 * source tapped to count what passes through it.
 */
export async function bytesRead(sshd: TestSshd, seconds: number): Promise<Figure[]> {
  const dir = tempDir('bytes');
  const store = Store.open(join(dir, 'loopdeck.db'));
  const runs = join(dir, 'runs');
  const cycle = join(runs, today());
  mkdirSync(cycle, { recursive: true });
  const phases = Array.from({ length: FILES }, (_, i) => `phase${String(i).padStart(2, '0')}`);
  const paths = phases.map((p) => join(cycle, `${p}.log`));
  for (const p of paths) writeFileSync(p, '');
  const configPath = join(dir, 'loopdeck.yaml');
  const yaml = [
    `hosts:`,
    `  runner: ${sshHostYaml(sshd)}`,
    `loops:`,
    `  bench: { host: runner, runs: ${JSON.stringify(runs)}, phases: [${phases.join(', ')}] }`,
    '',
  ].join('\n');
  writeFileSync(configPath, yaml);
  let source: CountingSource | null = null;
  const pollMs: number[] = [];
  let pollStarted = process.hrtime.bigint();
  const engine = composeEngine(parseConfig(configPath, yaml), {
    store,
    ssh: isolatedSshEnv(),
    tapSource: (s) => (source = new CountingSource(s)),
    afterPoll: () => {
      pollMs.push(msSince(pollStarted));
      pollStarted = process.hrtime.bigint();
    },
  });
  const counted = (): CountingSource => {
    if (!source) throw new Error('figure 2: the engine made no file source for its host');
    return source;
  };
  const linesStored = (): number => paths.reduce((a, p) => a + store.file('runner', p).lineNo, 0);
  const pollErrors: string[] = [];
  try {
    engine.start();
    // Catch up once on the (empty) files, the host connected, before the measured window.
    const ready = Date.now() + 15_000;
    while (engine.snapshot().hosts.some((h) => h.state !== 'connected') && Date.now() < ready) await sleep(50);
    await engine.poll();
    const start = counted().calls();
    const polledBefore = pollMs.length;
    let appended = 0;
    let lines = 0;
    let running = true;
    log(`figure 2: following ${FILES} files for ${seconds} s, ${LINES_PER_S} lines/s appended`);
    const appender = (async () => {
      const every = 1000 / LINES_PER_S;
      const t0 = Date.now();
      while (running) {
        const line = logLine(lines);
        appendFileSync(paths[lines % FILES] ?? '', line);
        appended += Buffer.byteLength(line);
        lines += 1;
        const next = t0 + lines * every;
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
    const t0 = Date.now();
    pollStarted = process.hrtime.bigint();
    engine.run({ intervalMs: POLL_MS, onError: (err) => pollErrors.push((err as Error).message) });
    try {
      await sleep(seconds * 1000);
    } finally {
      running = false;
      await appender;
    }
    // Drain: the engine reads what was appended after its last poll.
    const drained = Date.now() + 5000;
    while (linesStored() < lines && Date.now() < drained) await sleep(50);
    const elapsedS = (Date.now() - t0) / 1000;
    const end = counted().calls();
    const linesRead = linesStored();
    const bytes = end.bytesRead - start.bytesRead;
    const requests = end.total - start.total;
    const timed = pollMs.slice(polledBefore);
    const polls = timed.length;
    const details = {
      files: FILES,
      seconds: round(elapsedS, 1),
      linesAppended: lines,
      linesRead,
      bytesAppended: appended,
      bytesRead: bytes,
      polls,
      pollErrors: pollErrors.length,
      firstPollError: pollErrors[0] ?? null,
      calls: { list: end.list - start.list, stat: end.stat - start.stat, read: end.read - start.read },
      requestsPerPoll: round(requests / polls, 1),
      pollGapMs: { p50: round(median(timed), 1), p95: round(percentile(timed, 95), 1) },
      meanRequestMs: {
        list: round((end.listMs - start.listMs) / Math.max(1, end.list - start.list), 2),
        read: round((end.readMs - start.readMs) / Math.max(1, end.read - start.read), 2),
      },
    };
    return [
      figure({
        id: '2a',
        name: `Bytes read per byte appended (${FILES} files, ${round(elapsedS, 0)} s)`,
        value: round(bytes / appended, 3),
        unit: 'B/B',
        baseline: 1,
        baselineLabel: 'bytes appended',
        target: '≤ 1.1',
        pass: bytes / appended <= 1.1 && linesRead === lines,
        details,
        notes: [
          ...(linesRead === lines ? [] : [`read ${linesRead} lines of ${lines} appended`]),
          ...(pollErrors.length ? [`${pollErrors.length} of ${polls} polls failed and were retried: ${pollErrors[0]}`] : []),
        ],
      }),
      figure({
        id: '2b',
        name: 'SSH requests per second while following (same run)',
        value: round(requests / elapsedS, 1),
        unit: 'req/s',
        baseline: LINES_PER_S,
        baselineLabel: 'lines appended per second',
        target: 'info (requests per appended line)',
        pass: null,
        details: { requestsPerPoll: details.requestsPerPoll, polls, idlePollMs: POLL_MS },
        notes: [],
      }),
    ];
  } finally {
    await engine.close();
    store.close();
  }
}
