import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Capacity } from '../../../../shared/domain';
import { dispatch } from '../../../rpc/dispatch';
import { startLlamaMetricsServer, startPrometheus, startTextMetricsServer, type LlamaMetricsServer, type TestPrometheus, type TextMetricsServer } from '../../../../testing/prometheus';
import { isolatedSshEnv, sshHostYaml } from '../../../../testing/ssh-fixture';
import { startSshd } from '../../../../testing/sshd';
import { until } from '../../../../testing/until';
import { createSession, type Session } from '../../session/session';
import { ConfigError, parseConfig } from '../../config/load-config';
import { Store } from '../../store/store';
import { CapacityService } from '../capacity-service';
import { prometheusQueries } from './prometheus-queries';
import { stepFor } from './prometheus-source';
import { TEST_CALLER } from '../../../../testing/callers';
import { LOOPDECK_BIN } from '../../../../testing/cli-run';

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
  let core: Session | null = null;
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

  const startCore = async (): Promise<Session> => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prom-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `proxies:\n  fleet:\n    kind: prometheus\n    url: ${prom.url}\n    every: 1s\n    selector: '{job="llama"}'\n`);
    const c = createSession({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000 });
    await c.start();
    return c;
  };
  const fleet = (c: Session): Capacity[] => c.snapshot().capacity.filter((x) => x.proxy === 'fleet');

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
        const r = await dispatch(c.handlers, 'capacity.history', { range: '30d' }, TEST_CALLER);
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
    const one = await core.handlers['capacity.history']({ range: '1h', proxy: 'fleet', host: b.target, maxPoints: 1000 }, TEST_CALLER);
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
    expect(hist.warnings).toEqual([expect.stringMatching(/^proxy "bad" \(Prometheus .*\): query `sum by \(instance\) \(avg_over_time\(llamacpp:requests_processing\{job=~"\("\}\[606s\]\)\) or [^`]*`: Prometheus answered bad_data/)]);
    // Nothing of a prometheus proxy is stored: its past is Prometheus's.
    expect(store.sql.prepare('SELECT count(*) AS n FROM capacity_samples').get()).toEqual({ n: 0 });
    store.close();
  }, 60_000);

  it('reads Prometheus through host:\'s SSH link, live figures and history', async () => {
    const sshd = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prom-ssh-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd)}\nproxies:\n  fleet:\n    kind: prometheus\n    host: runner\n    url: ${prom.url}\n    every: 1s\n`);
    const c = createSession({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000, ssh: isolatedSshEnv() });
    try {
      await c.start();
      await until(() => fleet(c).length >= 2 && fleet(c).every((x) => x.up), 30_000, 'the instances up through SSH', 100);
      expect(fleet(c).find((x) => x.host === a.target)).toMatchObject({ inflight: 3, queued: 2 });
      const out = await c.handlers['capacity.history']({ range: '24h', maxPoints: 1000 }, TEST_CALLER);
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
    const bin = LOOPDECK_BIN;
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

  it('`snapshot --now` runs the queries at the pinned time, and an empty answer says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-prom-now-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `proxies:\n  fleet: { kind: prometheus, url: "${prom.url}", selector: '{job="llama"}' }\n`);
    const bin = LOOPDECK_BIN;
    const snapshotAt = (now: string) =>
      new Promise<{ capacity: Capacity[] }>((resolve, reject) => {
        execFile(process.execPath, [bin, 'snapshot', '--json', '--now', now, '--config', configPath, '--data', join(dir, `data-${now}`)], { timeout: 60_000 }, (err, out, errText) => {
          try {
            resolve(JSON.parse(out) as { capacity: Capacity[] });
          } catch {
            reject(new Error(`${err?.message ?? 'no JSON'}\n${errText}`, { cause: err }));
          }
        });
      });
    // Long before Prometheus started: nothing then.
    const before = await snapshotAt('2020-01-01T00:00:00Z');
    const fleetBefore = before.capacity.filter((x) => x.proxy === 'fleet');
    expect(fleetBefore.map((x) => x.host)).toEqual(['fleet']);
    expect(fleetBefore[0]?.error).toBe(
      `proxy "fleet" (Prometheus ${prom.url}): no inference servers: \`max by (instance) (up{job="llama"})\` matched no series at 2020-01-01T00:00:00Z (the time --now pinned; the queries ran at that time: is it within the data Prometheus keeps, and were the llama.cpp (started with --metrics) or vLLM servers scraped then, and matched by selector {job="llama"}?)`,
    );
    // Pinned at a time Prometheus has data for: the servers, as they were then.
    const recent = await snapshotAt(new Date().toISOString());
    expect(recent.capacity.filter((x) => x.proxy === 'fleet').map((x) => x.host)).toContain(a.target);
  }, 90_000);

  it('without a pinned time, an empty answer asks whether the servers are scraped', async () => {
    const store = Store.open(':memory:');
    const svc = new CapacityService({ proxies: { none: { kind: 'prometheus', url: prom.url, every: 60_000, selector: '{job="nobody"}' } }, getFor: () => null, store, onChange: () => undefined });
    services.push(svc);
    await svc.pollOnce();
    expect(svc.current()).toMatchObject([
      {
        host: 'none',
        up: true,
        error: `proxy "none" (Prometheus ${prom.url}): no inference servers: \`max by (instance) (up{job="nobody"})\` matched no series (are the llama.cpp (started with --metrics) or vLLM servers scraped, and matched by selector {job="nobody"}?)`,
      },
    ]);
    store.close();
  }, 60_000);

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

describe('a real Prometheus scraping an exporter with hostile labels and values', () => {
  // What a relabelling exporter (honor_labels) can hand Prometheus, which stores it as it is: the
  // exposition format escapes only `\n`, `"` and `\`; ESC, NUL, DEL, C1 and bidi controls go raw.
  let prom: TestPrometheus;
  let labels: TextMetricsServer;
  const values: Record<'nan' | 'inf' | 'huge' | 'negative', TextMetricsServer> = {} as never;
  let store: Store;
  let svc: CapacityService;
  const gauge = (name: string, lines: readonly string[]): string => `# TYPE llamacpp:${name} gauge\n${lines.map((l) => `llamacpp:${name}${l}\n`).join('')}`;
  const counter = (value: number): string => `# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total ${value}\n`;

  beforeAll(async () => {
    labels = await startTextMetricsServer(() =>
      gauge('requests_processing', [
        '{instance="gpu\x1b[31m"} 1',
        '{instance="nul\x00host"} 1',
        '{instance="two\\nlines"} 1',
        '{instance="evil\u202etxt.exe"} 1',
        '{instance="gpu-ok",model="qwen3"} 2',
        '{instance="gpu-ok",model="bad\u2066model"} 5',
      ]) +
        gauge('requests_deferred', ['{instance="c1\u0085host"} 1', '{instance="lrm\u200ehost"} 1', '{instance="del\x7fhost"} 1', '{instance="gpu-ok",model="qwen3"} 1']) +
        '# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total{instance="gpu-ok",model="qwen3"} 100\n',
    );
    values.nan = await startTextMetricsServer(() => gauge('requests_processing', [' NaN']) + gauge('requests_deferred', [' 0']) + counter(10));
    values.inf = await startTextMetricsServer(() => gauge('requests_processing', [' +Inf']) + gauge('requests_deferred', [' -Inf']) + counter(10));
    // A request count no server holds, and a counter growing by 1e300 a scrape.
    values.huge = await startTextMetricsServer((n) => gauge('requests_processing', [' 1e308']) + gauge('requests_deferred', [' 0']) + counter(n * 1e300));
    values.negative = await startTextMetricsServer(() => gauge('requests_processing', [' 1']) + gauge('requests_deferred', [' -3']) + counter(10));
    const targets = [labels, ...Object.values(values)].map((x) => x.target);
    prom = await startPrometheus({ targets, job: 'hostile', honorLabels: true });
    await prom.targetsUp(targets.length);
    store = Store.open(':memory:');
    svc = new CapacityService({ proxies: { fleet: { kind: 'prometheus', url: prom.url, every: 60_000, selector: '{job="hostile"}' } }, getFor: () => null, store, onChange: () => undefined });
  }, 60_000);

  afterAll(async () => {
    svc?.stop();
    store?.close();
    await prom?.stop();
    for (const x of [labels, ...Object.values(values)]) await x?.close();
  });

  /** Poll until `cond` holds of the proxy's hosts (irate needs two scrapes of the counters). */
  const pollUntil = async (cond: (hosts: Capacity[]) => boolean, what: string): Promise<Capacity[]> => {
    let hosts: Capacity[] = [];
    await until(
      async () => {
        await svc.pollOnce();
        hosts = svc.current().filter((x) => x.proxy === 'fleet');
        return cond(hosts);
      },
      30_000,
      what,
      200,
    );
    return hosts;
  };

  it('leaves out a series whose instance or model label holds a control or bidi character, naming the query and the label escaped', async () => {
    const hosts = await pollUntil((h) => h.some((x) => x.host === 'gpu-ok' && x.queued !== null), 'gpu-ok with its figures');
    // Only the names that can be shown: the targets' own and gpu-ok.
    expect(hosts.map((x) => x.host).sort()).toEqual(['gpu-ok', labels.target, ...Object.values(values).map((x) => x.target)].sort());
    const ok = hosts.find((x) => x.host === 'gpu-ok');
    // The series with the bidi model is left out: neither its model nor its 5 requests count.
    expect(ok).toMatchObject({ inflight: 2, queued: 1, models: [{ id: 'qwen3', inflight: 2, queued: 1 }] });
    // A problem of the proxy: on every host of it, naming the query and each label escaped.
    for (const x of hosts) {
      expect(x.error).toContain(`proxy "fleet" (Prometheus ${prom.url}): query \`${prometheusQueries('{job="hostile"}').inflight}\`: left out 5 series whose labels hold a control or bidi character`);
      for (const name of ['instance "gpu\\x1b[31m"', 'instance "nul\\x00host"', 'instance "two\\x0alines"', 'instance "evil\\u202etxt.exe"', 'model "bad\\u2066model"']) expect(x.error).toContain(name);
      expect(x.error).toContain(`query \`${prometheusQueries('{job="hostile"}').queued}\`: left out 3 series`);
      for (const name of ['instance "c1\\u0085host"', 'instance "lrm\\u200ehost"', 'instance "del\\x7fhost"']) expect(x.error).toContain(name);
    }
    // No control or bidi character anywhere in what the console is handed.
    const shown = hosts.flatMap((x) => [x.host, x.error ?? '', ...x.models.map((m) => m.id)]).join('');
    const unsafe = [...shown].filter((ch) => {
      const c = ch.codePointAt(0) as number;
      return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    });
    expect(unsafe).toEqual([]);

    const hist = await svc.history({ range: '1h', proxy: 'fleet' });
    // (The labels' own target has only `up`, which the charts do not read.)
    expect(hist.series.map((x) => x.host).sort()).toEqual(['gpu-ok', ...Object.values(values).map((x) => x.target)].sort());
    expect(hist.warnings).toContainEqual(expect.stringMatching(/query `sum by \(instance\) \(avg_over_time\(llamacpp:requests_processing\{job="hostile"\}\[60s\]\)\) or [^`]*`: left out 4 series .*instance "gpu\\x1b\[31m"/));
  }, 60_000);

  it('treats NaN, ±Inf, a negative count and 1e308 requests as missing, and says so', async () => {
    const host = (hosts: Capacity[], k: keyof typeof values): Capacity | undefined => hosts.find((x) => x.host === values[k].target);
    const rated = (h: Capacity[]): boolean =>
      (host(h, 'huge')?.error ?? '').includes('irate(llamacpp:tokens_predicted_total) = ') && (['nan', 'inf', 'negative'] as const).every((k) => host(h, k)?.tokensPerSecond === 0);
    const hosts = await pollUntil(rated, 'two scrapes of every counter');
    const at = (k: keyof typeof values): string => `proxy "fleet" (Prometheus ${prom.url}): instance "${values[k].target}": `;
    expect(host(hosts, 'nan')).toMatchObject({ up: true, inflight: null, slotsBusy: null, queued: 0, missing: ['llamacpp:requests_processing'] });
    expect(host(hosts, 'nan')?.error).toContain(`${at('nan')}llamacpp:requests_processing = NaN is not a number: not a count of requests (treated as missing)`);
    expect(host(hosts, 'inf')).toMatchObject({ up: true, inflight: null, queued: null, missing: ['llamacpp:requests_processing', 'llamacpp:requests_deferred'] });
    expect(host(hosts, 'inf')?.error).toContain(`${at('inf')}llamacpp:requests_processing = +Inf is not finite: not a count of requests; llamacpp:requests_deferred = -Inf is not finite: not a count of requests (treated as missing)`);
    expect(host(hosts, 'huge')).toMatchObject({ up: true, inflight: null, queued: 0, tokensPerSecond: null, missing: ['llamacpp:requests_processing', 'llamacpp:tokens_predicted_total'] });
    expect(host(hosts, 'huge')?.error).toContain(`${at('huge')}llamacpp:requests_processing = 1e+308 is past 100000: not a count of requests; irate(llamacpp:tokens_predicted_total) = `);
    expect(host(hosts, 'huge')?.error).toMatch(/irate\(llamacpp:tokens_predicted_total\) = [0-9.e+]+ is past 1000000: not a rate of tokens a second \(treated as missing\)/);
    expect(host(hosts, 'negative')).toMatchObject({ up: true, inflight: 1, queued: null, tokensPerSecond: 0, missing: ['llamacpp:requests_deferred'] });
    expect(host(hosts, 'negative')?.error).toContain(`${at('negative')}llamacpp:requests_deferred = -3 is negative: not a count of requests (treated as missing)`);

    // The charts: such points are gaps, said in a warning naming the query.
    const hist = await svc.history({ range: '1h', proxy: 'fleet' });
    const series = (k: keyof typeof values) => hist.series.find((x) => x.host === values[k].target);
    for (const k of ['nan', 'inf', 'huge'] as const) expect(series(k)?.inflight.every((v) => v === null)).toBe(true);
    expect(series('negative')?.queued.every((v) => v === null)).toBe(true);
    expect(series('negative')?.inflight.some((v) => v === 1)).toBe(true);
    expect(hist.warnings).toContainEqual(expect.stringMatching(/query `sum by \(instance\) \(avg_over_time\(llamacpp:requests_processing\{job="hostile"\}\[60s\]\)\) or [^`]*`: \d+ point\(s\) are not figures from 0 to 100000 \(e\.g\. instance "127\.0\.0\.1:\d+": .*\) and are charted as gaps/));
    expect(hist.warnings).toContainEqual(expect.stringMatching(/llamacpp:requests_deferred.*: \d+ point\(s\) are not figures from 0 to 100000 .* and are charted as gaps/));
  }, 60_000);
});
