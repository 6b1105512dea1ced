import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { followOnce } from '../main/core/follow/line-follower';
import { transcriptParser } from '../main/core/parsers/transcript';
import { SshSource } from '../main/core/sources/ssh-source';
import { Store } from '../main/core/store/store';
import { connectTestHost } from '../main/testing/ssh-fixture';
import type { TestSshd } from '../testing/sshd';
import { CountingSource } from './counting-source';
import { figure, log, median, msSince, percentile, round, sleep, tempDir, type Figure } from './lib';

const FILES = 30;
/** The engine's poll interval (app-core's default). */
const POLL_MS = 500;
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

/** Figure 2: bytes read per byte appended while following 30 files on one SSH host. */
export async function bytesRead(sshd: TestSshd, seconds: number): Promise<Figure[]> {
  const dir = tempDir('bytes');
  const store = Store.open(join(dir, 'loopdeck.db'));
  const host = await connectTestHost(sshd, store);
  const source = new CountingSource(new SshSource('runner', host.connection));
  const folder = join(dir, 'files');
  mkdirSync(folder);
  const paths = Array.from({ length: FILES }, (_, i) => join(folder, `phase-${String(i).padStart(2, '0')}.log`));
  for (const p of paths) writeFileSync(p, '');
  try {
    // Catch up once on the (empty) files, so the run counts steady-state following only.
    const poll = async (): Promise<number> => {
      const entries = (await source.list(folder)) ?? [];
      const stats = new Map(entries.map((e) => [e.name, e.stat]));
      const outs = await Promise.all(paths.map((p) => followOnce(source, store, p, transcriptParser, { stat: stats.get(posix.basename(p)) ?? null })));
      return outs.reduce((a, o) => a + o.lines, 0);
    };
    await poll();
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
    const pollMs: number[] = [];
    const pollErrors: string[] = [];
    let linesRead = 0;
    const t0 = Date.now();
    // A failed poll is retried on the next one, as the engine does: offsets are committed per file.
    const tryPoll = async (): Promise<void> => {
      try {
        linesRead += await poll();
      } catch (err) {
        pollErrors.push((err as Error).message);
      }
    };
    try {
      while (Date.now() - t0 < seconds * 1000) {
        const p0 = process.hrtime.bigint();
        await tryPoll();
        pollMs.push(msSince(p0));
        await sleep(POLL_MS);
      }
    } finally {
      running = false;
      await appender;
    }
    // Drain: read what was appended after the last timed poll.
    for (let i = 0; i < 5 && linesRead < lines; i++) await tryPoll();
    const elapsedS = (Date.now() - t0) / 1000;
    const end = source.calls();
    const bytes = end.bytesRead - start.bytesRead;
    const execs = end.total - start.total;
    const polls = pollMs.length + 1;
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
      execsPerPoll: round(execs / polls, 1),
      pollMs: { p50: round(median(pollMs), 1), p95: round(percentile(pollMs, 95), 1) },
      meanExecMs: {
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
        name: 'Exec round trips per second (same run)',
        value: round(execs / elapsedS, 1),
        unit: 'exec/s',
        baseline: null,
        baselineLabel: '',
        target: 'info',
        pass: null,
        details: { execsPerPoll: details.execsPerPoll, pollIntervalMs: POLL_MS },
        notes: [],
      }),
    ];
  } finally {
    host.connection.close();
    store.close();
  }
}
