// A real Prometheus for integration tests, and llama.cpp-shaped `/metrics` servers for it to
// scrape. Prometheus runs on loopback with a throwaway TSDB folder; stop() ends it by its PID.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGetRaw, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPath } from '../scripts/system-tools.mjs';
import { freePort } from './sshd';
import { until } from './until';

/** The Prometheus binary: LOOPDECK_PROMETHEUS, else Debian's (the rule is in scripts/system-tools.mjs). */
export const PROMETHEUS = toolPath('prometheus');
/** promtool, from the same package: LOOPDECK_PROMTOOL, else Debian's. */
export const PROMTOOL = toolPath('promtool');

/** A running test Prometheus. */
export interface TestPrometheus {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Its folder: prometheus.yml and the TSDB. */
  readonly dir: string;
  /** GET a path of its HTTP API and decode the JSON answer (any status). */
  api(pathAndQuery: string): Promise<{ status: number; body: unknown }>;
  /** Resolve once every target Prometheus scrapes is up (or `count` targets are), or time out. */
  targetsUp(count: number, timeoutMs?: number): Promise<void>;
  /** End the process (SIGTERM, then SIGKILL) and remove its folder. */
  stop(): Promise<void>;
}

/** What to scrape. */
export interface PrometheusOptions {
  /** `host:port` targets of one job. */
  readonly targets: readonly string[];
  readonly job?: string;
  /** Default `1s`, so a test sees samples within seconds. */
  readonly scrapeInterval?: string;
  /** More prometheus.yml text appended after the scrape config (e.g. `rule_files:`). */
  readonly extraYaml?: string;
  /** Keep the `instance` and `job` labels a target exposes (`honor_labels: true`), as a relabelling exporter would. */
  readonly honorLabels?: boolean;
  /**
   * OpenMetrics text (ending `# EOF`) backfilled into the TSDB before Prometheus starts, with
   * `promtool tsdb create-blocks-from openmetrics`: a past the charts' range queries can read.
   */
  readonly backfill?: string;
}

function getJson(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpGetRaw(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          // Not JSON (e.g. /-/ready's plain text): the text itself.
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error(`${url}: no answer within 5 s`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Start Prometheus on a free loopback port scraping `targets` every second; resolves once it is ready. */
export async function startPrometheus(options: PrometheusOptions): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prometheus-'));
  const port = await freePort();
  const interval = options.scrapeInterval ?? '1s';
  const yaml = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  evaluation_interval: ${interval}`,
    'scrape_configs:',
    `  - job_name: ${JSON.stringify(options.job ?? 'llama')}`,
    ...(options.honorLabels ? ['    honor_labels: true'] : []),
    '    static_configs:',
    `      - targets: ${JSON.stringify(options.targets)}`,
    options.extraYaml ?? '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), `${yaml}\n`);
  if (options.backfill !== undefined) {
    writeFileSync(join(dir, 'backfill.om'), options.backfill);
    const made = spawnSync(PROMTOOL, ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'backfill.om'), join(dir, 'data')], { encoding: 'utf8' });
    if (made.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`promtool tsdb create-blocks-from openmetrics failed (${made.status}): ${made.stderr}${made.stdout}`);
    }
  }
  let log = '';
  const child = spawn(
    PROMETHEUS,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  child.stderr?.on('data', (c: Buffer) => {
    log = (log + c.toString('utf8')).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const done = exited(child);
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      const timer = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 10_000);
      await done;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${log}`);
        return (await getJson(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200;
      },
      30_000,
      `prometheus ready on ${url}`,
      50,
    );
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${log}`, { cause: e });
  }
  const api = (p: string): Promise<{ status: number; body: unknown }> => getJson(`${url}${p}`);
  return {
    url,
    port,
    pid: child.pid as number,
    dir,
    api,
    async targetsUp(count, timeoutMs = 30_000) {
      await until(
        async () => {
          const { body } = await api('/api/v1/targets?state=active');
          const targets = (body as { data?: { activeTargets?: { health: string }[] } }).data?.activeTargets ?? [];
          return targets.filter((t) => t.health === 'up').length >= count;
        },
        timeoutMs,
        `${count} Prometheus target(s) up`,
        100,
      );
    },
    stop,
  };
}

/** A llama.cpp-shaped `/metrics` server: gauges the test sets, token counters growing at a set rate. */
export interface LlamaMetricsServer {
  /** `127.0.0.1:PORT`, as a scrape target. */
  readonly target: string;
  /** Requests processing and deferred now. */
  processing: number;
  deferred: number;
  /** Generated tokens per second the counter grows by. */
  tokensPerSecond: number;
  close(): Promise<void>;
}

/** Start a server answering `/metrics` like `llama-server --metrics` (optionally with a `model` label on every series). */
export async function startLlamaMetricsServer(init: { processing?: number; deferred?: number; tokensPerSecond?: number; model?: string } = {}): Promise<LlamaMetricsServer> {
  const started = Date.now();
  let predicted = 1000;
  let last = started;
  const labels = init.model ? `{model=${JSON.stringify(init.model)}}` : '';
  const state: LlamaMetricsServer = {
    target: '',
    processing: init.processing ?? 0,
    deferred: init.deferred ?? 0,
    tokensPerSecond: init.tokensPerSecond ?? 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    const now = Date.now();
    predicted += (state.tokensPerSecond * (now - last)) / 1000;
    last = now;
    const family = (name: string, type: string, help: string, value: number): string => `# HELP llamacpp:${name} ${help}\n# TYPE llamacpp:${name} ${type}\nllamacpp:${name}${labels} ${value}\n`;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(
      family('prompt_tokens_total', 'counter', 'Number of prompt tokens processed.', Math.floor(predicted * 3)) +
        family('prompt_seconds_total', 'counter', 'Prompt process time', (now - started) / 4000) +
        family('tokens_predicted_total', 'counter', 'Number of generation tokens processed.', Math.floor(predicted)) +
        family('tokens_predicted_seconds_total', 'counter', 'Predict process time', (now - started) / 2000) +
        family('n_decode_total', 'counter', 'Total number of llama_decode() calls', Math.floor(predicted)) +
        family('n_busy_slots_per_decode', 'counter', 'Average number of busy slots per llama_decode() call', state.processing) +
        family('requests_processing', 'gauge', 'Number of requests processing.', state.processing) +
        family('requests_deferred', 'gauge', 'Number of requests deferred.', state.deferred),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return Object.assign(state, {
    target: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A `/metrics` server answering whatever exposition text the test gives it. */
export interface TextMetricsServer {
  /** `127.0.0.1:PORT`, as a scrape target. */
  readonly target: string;
  /** How many times it has been scraped. */
  scrapes(): number;
  close(): Promise<void>;
}

/** Start a server answering `/metrics` with `body(n)` on its n-th scrape (from 1): any labels and values, NaN and ±Inf included. */
export async function startTextMetricsServer(body: (n: number) => string): Promise<TextMetricsServer> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(body(++n));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    target: `127.0.0.1:${port}`,
    scrapes: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
