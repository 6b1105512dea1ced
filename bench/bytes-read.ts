import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoopConfigSchema } from '../main/core/config/schema';
import { LoopFollower } from '../main/core/loops/loop-follower';
import { PollScheduler, ENGINE_WAKE_GAPS } from '../main/core/engine/poll-scheduler';
import { SshSource } from '../main/core/sources/ssh-source';
import { Store } from '../main/core/store/store';
import { connectTestHost } from '../testing/ssh-fixture';
import type { TestSshd } from '../testing/sshd';
import { CountingSource } from './counting-source';
import { figure, log, median, msSince, percentile, round, sleep, tempDir, today, type Figure } from './lib';

const FILES = 30;
/** The engine's poll interval when nothing wakes it (app-core's default). */
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
 * Figure 2: bytes read per byte appended while following 30 files on one SSH host, the way the
 * engine follows them: a LoopFollower over a cycle of 30 phase transcripts, polled when the
 * host's watcher says something changed, else every 250 ms.
 */
export async function bytesRead(sshd: TestSshd, seconds: number): Promise<Figure[]> {
  const dir = tempDir('bytes');
  const store = Store.open(join(dir, 'loopdeck.db'));
  const host = await connectTestHost(sshd, store);
  const source = new CountingSource(new SshSource('runner', host.connection));
  const runs = join(dir, 'runs');
  const cycle = join(runs, today());
  mkdirSync(cycle, { recursive: true });
  const phases = Array.from({ length: FILES }, (_, i) => `phase${String(i).padStart(2, '0')}`);
  const paths = phases.map((p) => join(cycle, `${p}.log`));
  for (const p of paths) writeFileSync(p, '');
  const follower = new LoopFollower('bench', LoopConfigSchema.parse({ host: 'runner', runs, phases }), source, store);
  let wakes = 0;
  const linesStored = (): number => paths.reduce((a, p) => a + store.file('runner', p).lineNo, 0);
  try {
    // Catch up once on the (empty) files, then watch the hot folders as the engine does.
    await follower.poll(new Date());
    // Polled the way the engine is: on the watcher's wakes (coalesced) and every 250 ms.
    const pollMs: number[] = [];
    const pollErrors: string[] = [];
    const scheduler = new PollScheduler({
      intervalMs: POLL_MS,
      ...ENGINE_WAKE_GAPS,
      poll: async () => {
        const p0 = process.hrtime.bigint();
        try {
          await follower.poll(new Date());
        } finally {
          pollMs.push(msSince(p0));
        }
      },
      onError: (err) => pollErrors.push((err as Error).message),
    });
    source.watch(follower.hotDirs(), () => {
      wakes += 1;
      scheduler.wake();
    });
    await sleep(1000);
    const start = source.calls();
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
    scheduler.start();
    try {
      await sleep(seconds * 1000);
    } finally {
      running = false;
      await appender;
      await scheduler.stop();
    }
    const tryPoll = async (): Promise<void> => {
      await follower.poll(new Date()).catch((err: unknown) => pollErrors.push((err as Error).message));
    };
    // Drain: read what was appended after the last timed poll.
    for (let i = 0; i < 5 && linesStored() < lines; i++) await tryPoll();
    const elapsedS = (Date.now() - t0) / 1000;
    const end = source.calls();
    const linesRead = linesStored();
    const bytes = end.bytesRead - start.bytesRead;
    const requests = end.total - start.total;
    const polls = pollMs.length;
    const details = {
      files: FILES,
      seconds: round(elapsedS, 1),
      linesAppended: lines,
      linesRead,
      bytesAppended: appended,
      bytesRead: bytes,
      polls,
      wakes,
      pollErrors: pollErrors.length,
      firstPollError: pollErrors[0] ?? null,
      calls: { list: end.list - start.list, stat: end.stat - start.stat, read: end.read - start.read },
      requestsPerPoll: round(requests / polls, 1),
      pollMs: { p50: round(median(pollMs), 1), p95: round(percentile(pollMs, 95), 1) },
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
        details: { requestsPerPoll: details.requestsPerPoll, polls, wakes, idlePollMs: POLL_MS },
        notes: [],
      }),
    ];
  } finally {
    source.unwatch();
    host.connection.close();
    store.close();
  }
}
