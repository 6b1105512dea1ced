import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RENDERER_ERRORS_PER_MINUTE } from '../../shared/contract';
import { createSession, type Session } from '../core/session/session';
import { useLogger } from '../core/logging/log';
import { createLogger, logFilePath } from '../core/logging/logger';
import { until } from '../../testing/until';
import { startServer, type Served } from './server';

/** A WebSocket client of serve mode that sends command frames and waits for their answers. */
async function connect(served: Served): Promise<{ call(name: string, input: unknown): Promise<unknown>; close(): void }> {
  const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws?token=${served.token}`);
  await new Promise<void>((ok, fail) => {
    ws.once('open', () => ok());
    ws.once('error', fail);
  });
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string; id?: number; result?: unknown };
    if (frame.type === 'result' && frame.id !== undefined) waiting.get(frame.id)?.(frame.result);
  });
  let id = 0;
  return {
    call: (name, input) =>
      new Promise((ok) => {
        waiting.set(++id, ok);
        ws.send(JSON.stringify({ id, name, input }));
      }),
    close: () => ws.close(),
  };
}

describe('renderer errors over serve mode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ld-rerr-'));
  const logText = (): string => (existsSync(logFilePath(dataDir)) ? readFileSync(logFilePath(dataDir), 'utf8') : '');
  let core: Session;
  let served: Served;
  let restore: () => void;

  beforeAll(async () => {
    restore = useLogger(createLogger({ dataDir, level: 'info' }));
    // The real core with no config (the first-run state): log.error needs none.
    core = createSession({ configPath: join(dataDir, 'absent.yaml'), dataDir, shell: 'serve' });
    await core.start();
    served = await startServer({ session: core, rendererDir: dataDir });
  });
  afterAll(async () => {
    await served.close();
    await core.close();
    restore();
  });

  it('lands in the log file with its stack and where it came from', async () => {
    const client = await connect(served);
    const result = await client.call('log.error', {
      message: 'TypeError: cycles is undefined',
      stack: 'TypeError: cycles is undefined\n    at LoopView (assets/index-abc.js:12:34)',
      source: 'http://127.0.0.1/assets/index-abc.js:12:34',
    });
    client.close();
    expect(result).toEqual({ ok: true, output: { logged: true } });
    await until(() => logText().includes('cycles is undefined'), 5000, 'the renderer error in the log');
    expect(logText()).toMatch(/ERROR renderer: TypeError: cycles is undefined \(http:\/\/127\.0\.0\.1\/assets\/index-abc\.js:12:34\)\n {4}TypeError: cycles is undefined\n {8}at LoopView/);
  });

  it('cuts a huge message instead of refusing it, and indents a forged line', async () => {
    const client = await connect(served);
    const result = await client.call('log.error', { message: `forged\n2026-01-01T00:00:00.000Z ERROR fake${'y'.repeat(50_000)}` });
    client.close();
    expect(result).toEqual({ ok: true, output: { logged: true } });
    await until(() => logText().includes('[cut, '), 5000, 'the cut report in the log');
    expect(logText()).toContain('renderer: forged\n    2026-01-01T00:00:00.000Z ERROR fake');
    expect(logText().length).toBeLessThan(20_000);
  });

  it('takes at most RENDERER_ERRORS_PER_MINUTE from one client a minute, drops the rest and logs that it did', async () => {
    const flood = await connect(served);
    const results = [];
    for (let i = 0; i < RENDERER_ERRORS_PER_MINUTE + 5; i++) results.push(await flood.call('log.error', { message: `loop error ${i}` }));
    const logged = results.filter((r) => (r as { output: { logged: boolean } }).output.logged).length;
    expect(logged).toBe(RENDERER_ERRORS_PER_MINUTE);
    // Another client (another tab) has its own allowance.
    const other = await connect(served);
    expect(await other.call('log.error', { message: 'from the other tab' })).toEqual({ ok: true, output: { logged: true } });
    flood.close();
    other.close();
    await until(() => logText().includes('from the other tab'), 5000, "the other tab's error in the log");
    const text = logText();
    expect(text.match(/renderer: loop error \d+/g)).toHaveLength(RENDERER_ERRORS_PER_MINUTE);
    expect(text).not.toContain(`loop error ${RENDERER_ERRORS_PER_MINUTE}`);
    expect(text.match(/WARN {2}log\.error from serve client 127\.0\.0\.1:\d+ \(\S+\): more than 20 calls in 60 s; dropping the rest of this window\./g)).toHaveLength(1);
  });
});
