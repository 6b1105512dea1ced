import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Capacity } from '../../../shared/domain';
import { dispatch } from '../../rpc/dispatch';
import { startLlamaMetricsServer, startPrometheus, type LlamaMetricsServer, type TestPrometheus } from '../../../testing/prometheus';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { createAppCore, type AppCore } from '../app-core';
import { ConfigError, parseConfig } from '../config/load-config';
import { Store } from '../store/store';
import { CapacityService } from './capacity-service';
import { stepFor } from './prometheus-source';

const DAY = 86_400_000;

describe('stepFor', () => {
  it.each([
    ['1h', 3_600_000, 4],
    ['24h', DAY, 87],
    ['7d', 7 * DAY, 606],
    ['30d', 30 * DAY, 2595],
  ])('%s: a whole-second step giving at most 1,000 points', (_, rangeMs, step) => {
    expect(stepFor(rangeMs)).toBe(step);
    expect(Math.floor(rangeMs / 1000 / step) + 1).toBeLessThanOrEqual(1000);
    expect((999 * step * 1000) >= rangeMs).toBe(true);
  });
});

describe('proxies.<name> of kind prometheus in the config', () => {
  const problems = (yaml: string): string[] => {
    try {
      parseConfig('/etc/loopdeck.yaml', yaml);
    } catch (e) {
      if (e instanceof ConfigError) return [...e.problems];
      throw e;
    }
    return [];
  };

  it('needs no host (reached directly), defaults to every 15s and keeps the selector', () => {
    const cfg = parseConfig('/c.yaml', 'proxies:\n  fleet:\n    kind: prometheus\n    url: http://127.0.0.1:9090\n    selector: \'{job="llama"}\'\n');
    expect(cfg.proxies.fleet).toEqual({ kind: 'prometheus', url: 'http://127.0.0.1:9090', every: 15_000, selector: '{job="llama"}' });
  });

  it('names the file, line and key of each mistake', () => {
    expect(problems('proxies:\n  fleet:\n    kind: prometheus\n    url: http://127.0.0.1:9090\n    selector: job="llama"\n')).toEqual([
      `/etc/loopdeck.yaml:5: proxies.fleet.selector: expected PromQL label matchers in braces, e.g. '{job="llama"}'`,
    ]);
    expect(problems('proxies:\n  fleet:\n    kind: prometheus\n    url: https://prom.example.com\n')).toEqual([
      expect.stringMatching(/^\/etc\/loopdeck\.yaml:4: proxies\.fleet\.url: Prometheus is read over plain http:\/\//),
    ]);
    expect(problems('proxies:\n  xb:\n    kind: crossbar\n    url: http://127.0.0.1:8090\n')).toEqual([
      '/etc/loopdeck.yaml:3: proxies.xb.host: required for kind "crossbar": the host whose loopback the URL is on',
    ]);
    expect(problems('hosts:\n  r: { local: true }\nproxies:\n  xb:\n    host: r\n    kind: crossbar\n    url: http://127.0.0.1:8090\n    selector: "{}"\n')).toEqual([
      '/etc/loopdeck.yaml:8: proxies.xb.selector: only a "prometheus" proxy takes a selector',
    ]);
    expect(problems('proxies:\n  fleet:\n    kind: prometheus\n    host: nowhere\n    url: http://127.0.0.1:9090\n')).toEqual([
      '/etc/loopdeck.yaml:4: proxies.fleet.host: host "nowhere" is not declared under hosts (declared: none)',
    ]);
  });
});

describe('a real Prometheus scraping llama.cpp-shaped servers', () => {
  let prom: TestPrometheus;
  let a: LlamaMetricsServer;
  let b: LlamaMetricsServer;
  let core: AppCore | null = null;
  const services: CapacityService[] = [];

  beforeAll(async () => {
    a = await startLlamaMetricsServer({ processing: 3, deferred: 2, tokensPerSecond: 40 });
    b = await startLlamaMetricsServer({ processing: 1, deferred: 0, tokensPerSecond: 10, model: 'qwen3-32b' });
    prom = await startPrometheus({ targets: [a.target, b.target], job: 'llama' });
    await prom.targetsUp(2);
  }, 60_000);

  afterAll(async () => {
    await core?.close();
    for (const s of services) s.stop();
    await prom?.stop();
    await a?.close();
    await b?.close();
  });

  afterEach(() => {
    for (const s of services.splice(0)) s.stop();
  });

  const startCore = async (): Promise<AppCore> => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prom-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `proxies:\n  fleet:\n    kind: prometheus\n    url: ${prom.url}\n    every: 1s\n    selector: '{job="llama"}'\n`);
    const c = createAppCore({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000 });
    await c.start();
    return c;
  };
  const fleet = (c: AppCore): Capacity[] => c.snapshot().capacity.filter((x) => x.proxy === 'fleet');

  it('shows each scraped instance as a capacity host in the snapshot, with up, in-flight, queued, tokens/s and model', async () => {
    core ??= await startCore();
    const c = core;
    await until(() => fleet(c).length === 2 && fleet(c).every((x) => x.up && (x.tokensPerSecond ?? 0) > 0), 30_000, 'both instances up with a token rate in the snapshot', 100);
    // Both instances in one poll's answer: the latest figures of each.
    await until(() => fleet(c).every((x) => x.polledAt === fleet(c)[0]?.polledAt), 10_000, 'one poll', 50);
    const [ha, hb] = [a.target, b.target].map((t) => fleet(c).find((x) => x.host === t));
    expect(ha).toMatchObject({ kind: 'prometheus', host: a.target, up: true, inflight: 3, queued: 2, models: [], error: null, missing: [] });
    expect(hb).toMatchObject({ kind: 'prometheus', host: b.target, up: true, inflight: 1, queued: 0, models: [{ id: 'qwen3-32b', inflight: 1, queued: 0 }] });
    // 40 and 10 tokens a second, as Prometheus's irate over scrapes about a second apart.
    // Bounds leave room for a busy machine delaying a scrape's answer against its timestamp.
    expect(ha?.tokensPerSecond).toBeGreaterThan(25);
    expect(ha?.tokensPerSecond).toBeLessThan(60);
    expect(hb?.tokensPerSecond).toBeGreaterThan(4);
    expect(hb?.tokensPerSecond).toBeLessThan(20);
  }, 60_000);

  it('answers a 30-day history from query_range: at most 1,000 points a series, on a 2,595 s step', async () => {
    core ??= await startCore();
    const c = core;
    let out: Awaited<ReturnType<CapacityService['history']>> | null = null;
    await until(
      async () => {
        const r = await dispatch(c.handlers, 'capacity.history', { range: '30d' });
        if (!r.ok) throw new Error(r.error.message);
        out = r.output as typeof out;
        return (out?.series.filter((s) => s.proxy === 'fleet').length ?? 0) === 2;
      },
      30_000,
      'a 30-day history with both instances',
      200,
    );
    const series = out!.series.filter((s) => s.proxy === 'fleet');
    expect(out!.warnings).toEqual([]);
    for (const s of series) {
      expect(s.t.length).toBeGreaterThan(0);
      expect(s.t.length).toBeLessThanOrEqual(1000);
      for (let i = 1; i < s.t.length; i++) expect(((s.t[i] as number) - (s.t[i - 1] as number)) % 2_595_000).toBe(0);
      expect(s.tokenRate).toHaveLength(s.t.length);
    }
    const sa = series.find((s) => s.host === a.target);
    // The newest point averages the last 2,595 s, all of which saw 3 in flight and 2 queued.
    expect(sa?.inflight.at(-1)).toBe(3);
    expect(sa?.queued.at(-1)).toBe(2);
    expect(sa?.tokenRate?.at(-1)).toBeGreaterThan(0);
    // One host asked for: only its series.
    const one = await core.handlers['capacity.history']({ range: '1h', proxy: 'fleet', host: b.target, maxPoints: 1000 });
    expect(one.series.map((s) => s.host)).toEqual([b.target]);
    expect(one.series[0]?.t.length).toBeLessThanOrEqual(1000);
  }, 60_000);

  it('finds the servers without a selector, and names the query and Prometheus\'s message on a bad one', async () => {
    const store = Store.open(':memory:');
    const svc = new CapacityService({
      proxies: {
        plain: { kind: 'prometheus', url: prom.url, every: 60_000 },
        bad: { kind: 'prometheus', url: prom.url, every: 60_000, selector: '{job=~"("}' },
      },
      getFor: () => null,
      store,
      onChange: () => undefined,
    });
    services.push(svc);
    await svc.pollOnce();
    const now = svc.current();
    expect(now.filter((x) => x.proxy === 'plain').map((x) => [x.host, x.up])).toEqual([
      [a.target, true],
      [b.target, true],
    ].sort());
    const bad = now.find((x) => x.proxy === 'bad');
    expect(bad).toMatchObject({ host: 'bad', up: false });
    // The first query in order names the failure, the same on every poll.
    expect(bad?.error).toContain(`proxy "bad" (Prometheus ${prom.url}): query \`max by (instance) (up{job=~"("})\`: `);
    expect(bad?.error).toMatch(/Prometheus answered bad_data \(HTTP 400\): .*(parse error|error parsing regexp)/);
    const hist = await svc.history({ range: '7d', proxy: 'bad' });
    expect(hist.series).toEqual([]);
    expect(hist.warnings).toEqual([expect.stringMatching(/^proxy "bad" \(Prometheus .*\): query `sum by \(instance\) \(avg_over_time\(llamacpp:requests_processing\{job=~"\("\}\[606s\]\)\)`: Prometheus answered bad_data/)]);
    // Nothing of a prometheus proxy is stored: its past is Prometheus's.
    expect(store.sql.prepare('SELECT count(*) AS n FROM capacity_samples').get()).toEqual({ n: 0 });
    store.close();
  }, 60_000);

  it('reads Prometheus through host:\'s SSH link, live figures and history', async () => {
    const sshd = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prom-ssh-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd)}\nproxies:\n  fleet:\n    kind: prometheus\n    host: runner\n    url: ${prom.url}\n    every: 1s\n`);
    const c = createAppCore({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000, ssh: isolatedSshEnv() });
    try {
      await c.start();
      await until(() => fleet(c).length >= 2 && fleet(c).every((x) => x.up), 30_000, 'the instances up through SSH', 100);
      expect(fleet(c).find((x) => x.host === a.target)).toMatchObject({ inflight: 3, queued: 2 });
      const out = await c.handlers['capacity.history']({ range: '24h', maxPoints: 1000 });
      expect(out.warnings).toEqual([]);
      const sa = out.series.find((s) => s.proxy === 'fleet' && s.host === a.target);
      expect(sa?.inflight.at(-1)).toBe(3);
      expect(sa?.t.length).toBeLessThanOrEqual(1000);
    } finally {
      await c.close();
      await sshd.stop();
    }
  }, 60_000);

  it('`loopdeck snapshot --json` lists the instances', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prom-cli-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `proxies:\n  fleet: { kind: prometheus, url: "${prom.url}" }\n`);
    const bin = fileURLToPath(new URL('../../../bin/loopdeck.mjs', import.meta.url));
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [bin, 'snapshot', '--json', '--config', configPath, '--data', join(dir, 'data')], { timeout: 60_000 }, (err, out, errText) => {
        if (err) reject(new Error(`${err.message}\n${errText}`, { cause: err }));
        else resolve(out);
      });
    });
    const snap = JSON.parse(stdout) as { capacity: Capacity[] };
    const hosts = snap.capacity.filter((x) => x.proxy === 'fleet');
    expect(hosts.map((x) => [x.kind, x.host, x.up])).toEqual([
      ['prometheus', a.target, true],
      ['prometheus', b.target, true],
    ].sort((x, y) => String(x[1]).localeCompare(String(y[1]))));
    expect(hosts.find((x) => x.host === a.target)).toMatchObject({ inflight: 3, queued: 2 });
  }, 90_000);

  it('a server that stops answering shows down, from `up`', async () => {
    core ??= await startCore();
    const c = core;
    await b.close();
    await until(() => fleet(c).find((x) => x.host === b.target)?.up === false, 30_000, 'the stopped instance down in the snapshot', 100);
    const hb = fleet(c).find((x) => x.host === b.target);
    expect(hb).toMatchObject({ up: false, inflight: null, queued: null, tokensPerSecond: null });
    expect(fleet(c).find((x) => x.host === a.target)?.up).toBe(true);
  }, 60_000);
});
