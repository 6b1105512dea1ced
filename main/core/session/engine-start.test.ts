import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Summary } from '../../../shared/ledger-slice';
import { TEST_CALLER } from '../../../testing/callers';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { until } from '../../../testing/until';
import { FIRST_READ_WAIT_MS } from './first-read-start';
import { readSummaryCache } from './saved-summary';
import { createSession, type Session } from './session';

const NOW = (): Date => new Date('2026-11-29T12:00:00Z');

describe('a start answers the page before it reaches the hosts and the fleet', () => {
  let core: Session | null = null;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await core?.close();
    core = null;
    for (const c of closers.splice(0)) await c();
  });

  it('polls the fleet once the first read is due after a restart, not when the session opens', async () => {
    // A proxy that answers every poll 503 (down), and records when it was asked.
    const asked: number[] = [];
    const server = createServer((_req, res) => {
      asked.push(Date.now());
      res.writeHead(503);
      res.end();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    closers.push(() => new Promise((ok) => server.close(() => ok())));
    const port = (server.address() as AddressInfo).port;
    const fx = createRunnerFixture(`proxies:\n  llama-1: { host: runner, kind: llama-server, url: "http://127.0.0.1:${port}", every: 10s }\n`);
    fx.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T00:40:00+00:00 OK\n');
    // The handlers wait for the start gate: an answer is a promise.
    const summary = async (s: Session): Promise<Summary> => (await s.handlers['state.summary']({}, TEST_CALLER)) as Summary;

    // The first run: no saved summary, so the first read (and the fleet's polls) begin at once.
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    await until(async () => asked.length > 0 && (await summary(core as Session)).loops[0]?.cycles.length === 1, 20_000, 'the first read and a poll of the proxy');
    await core.close(); // saves the summary
    core = null;
    // What makes the restart wait for a console: a saved summary (else its first read begins at once).
    expect(readSummaryCache(fx.dataDir)?.loops[0]?.cycles).toHaveLength(1);

    // The restart: the saved summary is answered first; with no console asking, the first read
    // (and with it the engine: connections, the fleet's pollers) waits FIRST_READ_WAIT_MS.
    asked.length = 0;
    const openedAt = Date.now();
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    await until(() => asked.length > 0, 20_000, 'the proxy polled after the restart');
    // A timer never fires early: polled at the open (as before this change), this is a few ms.
    expect((asked[0] ?? 0) - openedAt).toBeGreaterThanOrEqual(FIRST_READ_WAIT_MS - 5);
  });
});
