import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng, httpRequest, pool, throwAt, wsFrame } from '../../testing/fuzz-wire';
import { rawExchange } from '../../testing/raw-wire';
import { servedUrl } from '../../testing/served-url';
import { createRunnerFixture } from '../../testing/runner-fixture';
import { connectWsBridge } from '../../testing/ws-bridge';
import { LOOPDECK_BIN } from '../../testing/cli-run';
import { until } from '../../testing/until';

const BIN = LOOPDECK_BIN;
const SEED = Number(process.env.LOOPDECK_FUZZ_SEED ?? 20261129);
const WIDTH = 20;

/** What serve holds after a full collection, in KiB: the resident set, and V8's live objects. */
interface Held {
  readonly rssKiB: number;
  readonly heapKiB: number;
}

/**
 * Preloaded into serve (with --expose-gc): on SIGUSR2 it collects all garbage, then writes its
 * memory, so the figures are what serve keeps, not garbage V8 has not yet swept.
 */
function gcProbe(dir: string): { readonly probe: string; read: (child: ChildProcess) => Promise<Held> } {
  const probe = join(dir, 'gc-probe.cjs');
  const out = join(dir, 'held.json');
  const [part, whole] = [JSON.stringify(`${out}.part`), JSON.stringify(out)];
  writeFileSync(
    probe,
    [
      "process.on('SIGUSR2', () => {",
      '  gc();',
      '  const m = process.memoryUsage();',
      `  require('fs').writeFileSync(${part}, JSON.stringify({ rssKiB: Math.round(m.rss / 1024), heapKiB: Math.round(m.heapUsed / 1024) }));`,
      `  require('fs').renameSync(${part}, ${whole});`,
      '});',
    ].join('\n'),
  );
  return {
    probe,
    read: async (child) => {
      rmSync(out, { force: true });
      child.kill('SIGUSR2');
      await until(() => existsSync(out), 30_000, `serve's memory after a collection (${out})`);
      return JSON.parse(readFileSync(out, 'utf8')) as Held;
    },
  };
}

/** The upgrade request (with or without the token) and then the frames, in one write: ws reads them as its head. */
function wsConnection(rng: Rng, port: number, token: string, frames: number): Buffer {
  const auth = rng.chance(0.75) ? `?token=${token}` : rng.chance(0.5) ? '' : `?token=${rng.junk(10)}`;
  const upgrade =
    `GET /ws${auth} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${rng.bytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
  const body = Array.from({ length: frames }, () => wsFrame(rng));
  const bye = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]); // close 1000, masked with a zero key
  return Buffer.concat([Buffer.from(upgrade), ...body, ...(rng.chance(0.7) ? [bye] : [])]);
}

/** Throw `requests` HTTP requests and `frames` WebSocket frames, on raw sockets, WIDTH at a time. */
async function barrage(rng: Rng, port: number, token: string, requests: number, frames: number): Promise<void> {
  const httpJobs: Buffer[] = [];
  for (let left = requests; left > 0; ) {
    const n = Math.min(left, 1 + rng.int(4)); // some pipelined
    httpJobs.push(Buffer.from(Array.from({ length: n }, (_, i) => httpRequest(rng, port, token, i === n - 1)).join(''), 'latin1'));
    left -= n;
  }
  const wsJobs: Buffer[] = [];
  for (let left = frames; left > 0; ) {
    const n = Math.min(left, 1 + rng.int(12));
    wsJobs.push(wsConnection(rng, port, token, n));
    left -= n;
  }
  const jobs = [...httpJobs, ...wsJobs];
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [jobs[i], jobs[j]] = [jobs[j] as Buffer, jobs[i] as Buffer];
  }
  await pool(jobs.length, WIDTH, (i) => throwAt(port, jobs[i] as Buffer));
}

describe('a live serve process under a barrage of generated input', () => {
  let child: ChildProcess;
  let url: string;
  let port: number;
  let token: string;
  let output = (): string => '';
  let held: (child: ChildProcess) => Promise<Held>;

  beforeAll(async () => {
    const fixture = createRunnerFixture();
    fixture.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T00:41:12+00:00 OK\n');
    const renderer = mkdtempSync(join(tmpdir(), 'ld-fuzz-renderer-'));
    mkdirSync(join(renderer, 'assets'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Loopdeck</title>');
    writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)'.repeat(1000));
    const gc = gcProbe(mkdtempSync(join(tmpdir(), 'ld-fuzz-gc-')));
    held = gc.read;
    // The young generation fixed at 2 × 16 MB: left to V8 it grows under the barrage, to 32 MB on
    // Node 20 and 128 MB on Node 24, which is RSS that no leak of serve's made.
    const v8 = ['--expose-gc', '--min-semi-space-size=16', '--max-semi-space-size=16', '--require', gc.probe];
    child = spawn(process.execPath, [...v8, BIN, 'serve', '--config', fixture.configPath, '--data', fixture.dataDir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOOPDECK_RENDERER_DIR: renderer },
    });
    ({ url, output } = await servedUrl(child, { timeoutMs: 60_000 }));
    const page = new URL(url);
    port = Number(page.port);
    token = page.searchParams.get('token') ?? '';
  }, 60_000);

  afterAll(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
    child.kill('SIGTERM');
    await exited;
  });

  async function answersNormally(): Promise<void> {
    const page = await rawExchange(port, `GET /?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(page, output()).toMatch(/^HTTP\/1\.1 200/);
    const ws = await connectWsBridge(url);
    expect(await ws.invoke('app.info', {})).toMatchObject({ ok: true });
    expect(await ws.invoke('state.snapshot', {})).toMatchObject({ ok: true });
    ws.close();
  }

  it('survives 10,000 requests and 10,000 frames, and its memory stays put', async () => {
    await answersNormally();
    // Warm-up: the same kinds of input, so the baseline includes a heap that has seen them.
    await barrage(new Rng(SEED ^ 0x5eed), port, token, 1_500, 1_500);
    await answersNormally();
    const before = await held(child);

    await barrage(new Rng(SEED), port, token, 10_000, 10_000);

    expect(child.exitCode, `serve exited during the barrage (seed ${SEED}):\n${output()}`).toBeNull();
    expect(child.signalCode).toBeNull();
    await answersNormally();
    const after = await held(child);
    const grew = `RSS ${before.rssKiB} → ${after.rssKiB} KiB, live heap ${before.heapKiB} → ${after.heapKiB} KiB after a full collection (seed ${SEED})`;
    console.log(`fuzz: ${grew}`);
    expect(after.heapKiB, grew).toBeLessThan(before.heapKiB * 1.5);
    expect(after.rssKiB, grew).toBeLessThan(before.rssKiB * 1.5);
  }, 180_000);
});
