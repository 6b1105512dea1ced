import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Phase } from '../../../shared/domain';
import { startPrometheus, type TestPrometheus } from '../../../testing/prometheus';
import { createRunnerFixture, type RunnerFixture } from '../../../testing/runner-fixture';
import { parseConfig } from '../config/load-config';
import { Store } from '../store/store';
import { composeEngine } from '../session/core';

// A night Loopdeck slept through (issue 40, item 3), put down from Prometheus's own history: one
// range query over the phase's window finds gpu-a down 07:20–08:10 inside a remediate that ran
// 07:11–08:15, so it is the fleet, naming gpu-a, as if Loopdeck had watched. The same night with
// only a polled proxy (whose past is what Loopdeck stored while running: nothing) is unknown.

const MIN = 60_000;
// A day whose 06:00–10:00 UTC is at least two hours past and inside Prometheus's retention.
const DAY = new Date(Date.now() - 26 * 3_600_000).toISOString().slice(0, 10);
const at = (hhmm: string): number => Date.parse(`${DAY}T${hhmm}:00Z`);

/** `up` of gpu-a (down 07:20–08:10) and gpu-b (up) every minute 06:00–10:00, as OpenMetrics for promtool. */
function pastFleet(): string {
  const lines = ['# TYPE up gauge'];
  for (const host of ['gpu-a', 'gpu-b']) {
    for (let t = at('06:00'); t <= at('10:00'); t += MIN) {
      const down = host === 'gpu-a' && t >= at('07:20') && t < at('08:10');
      lines.push(`up{instance="${host}",job="llama"} ${down ? 0 : 1} ${t / 1000}`);
    }
  }
  return [...lines, '# EOF', ''].join('\n');
}

describe('attribution of a night Loopdeck did not watch', () => {
  let prom: TestPrometheus;
  let fx: RunnerFixture;

  beforeAll(async () => {
    prom = await startPrometheus({ targets: ['127.0.0.1:9'], job: 'idle', backfill: pastFleet() });
    fx = createRunnerFixture();
    fx.write(DAY, 'remediate.status', `remediate ${DAY}T07:11:00+00:00 STARTED\nremediate ${DAY}T08:15:00+00:00 INCOMPLETE\n`);
  }, 60_000);
  afterAll(async () => {
    await prom?.stop();
  });

  /** The remediate phase as an engine with `proxies` derives it, polled until nothing is left to read. */
  async function remediate(proxies: string): Promise<Phase | undefined> {
    const text = `${readFileSync(fx.configPath, 'utf8').replace(/proxies:[\s\S]*$/, '')}proxies:\n${proxies}`;
    writeFileSync(fx.configPath, text);
    const engine = composeEngine(parseConfig(fx.configPath, text), { store: Store.open(':memory:') });
    try {
      await engine.poll();
      for (let i = 0; engine.behind() && i < 20; i++) await engine.poll();
      return engine.snapshot().loops[0]?.cycles.find((c) => c.date === DAY)?.phases.find((p) => p.name === 'remediate');
    } finally {
      await engine.close();
    }
  }

  it('from Prometheus: the fleet, naming gpu-a and when, read in one range query over the window', async () => {
    const phase = await remediate(`  fleet: { kind: prometheus, url: ${JSON.stringify(prom.url)}, selector: '{job="llama"}' }\n`);
    expect(phase?.status).toBe('incomplete');
    expect(phase?.cause).toEqual({
      kind: 'fleet',
      what: 'down',
      subject: 'fleet/gpu-a',
      since: `${DAY}T07:20:00.000Z`,
      until: `${DAY}T08:10:00.000Z`,
      detail: 'gpu-a (via fleet) was down for 50m (07:20–08:10 UTC) during the phase',
    });
  }, 60_000);

  it('from a polled proxy Loopdeck was not polling then: unknown, saying what it has no history of', async () => {
    const phase = await remediate('  crossbar: { host: runner, kind: crossbar, url: "http://127.0.0.1:9" }\n');
    expect(phase?.cause).toMatchObject({
      kind: 'unknown',
      what: 'unwatched',
      since: `${DAY}T07:11:00.000Z`,
      until: `${DAY}T08:15:00.000Z`,
      detail: expect.stringContaining('Loopdeck has no fleet history for 07:11–08:15 UTC, and it was not watching the runner (host runner) for 07:11–08:15 UTC') as unknown,
    });
  }, 60_000);
});
