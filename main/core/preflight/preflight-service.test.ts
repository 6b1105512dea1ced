import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Preflight } from '../../../shared/preflight';
import { parseConfig } from '../config/load-config';
import { HostTable } from '../hosts/host-table';
import { Store } from '../store/store';
import { PreflightService, UNKNOWN_AGAIN_MS } from './preflight-service';

// When the pre-flight runs: inside the lead before the fire, again every `preflight.every`, an
// unknown one sooner, never for a loop with `preflight: off`, never before the first read.

const MIN = 60_000;

function service(loops: string, extra = '') {
  const runs = mkdtempSync(join(tmpdir(), 'ld-pf-runs-'));
  const config = parseConfig('/c.yaml', `hosts: { r: { local: true } }\n${extra}loops:\n${loops.replaceAll('RUNS', JSON.stringify(runs))}`);
  const clock = { t: Date.parse('2026-11-30T22:30:00Z') };
  const published: (readonly Preflight[])[] = [];
  const state = { caughtUp: true, capacity: [] as never[] };
  const svc = new PreflightService({
    config,
    hosts: new HostTable(config.hosts, Store.open(':memory:')),
    now: () => new Date(clock.t),
    state: { caughtUp: () => state.caughtUp, cycles: () => [], deliverRecord: () => null, capacity: () => state.capacity, drills: () => [], drillRuns: () => [] },
    onChange: (list) => published.push(list),
  });
  return { svc, clock, published, state };
}

describe('when the pre-flight runs', () => {
  it('from the lead before the fire, again every preflight.every, not for a loop that turned it off or declared no schedule, and leaves the list when the fire passes', async () => {
    const { svc, clock, published } = service(
      '  a: { host: r, runs: RUNS, schedule: "0 0 * * *", preflightDisk: 1MB }\n  b: { host: r, runs: RUNS, schedule: "0 0 * * *", preflight: "off" }\n  c: { host: r, runs: RUNS, preflight: 30m, preflightDisk: 1MB }\n  d: { host: r, runs: RUNS }\n',
    );
    expect(svc.due()).toEqual([]); // 22:30, fire at 00:00: outside the 1 h lead
    clock.t = Date.parse('2026-11-30T23:00:00Z');
    expect(svc.due()).toEqual(['a']);
    const [a] = await svc.runDue();
    expect([a?.loop, a?.state, a?.fireAt]).toEqual(['a', 'ready', '2026-12-01T00:00:00.000Z']);
    expect(published.at(-1)?.map((p) => p.loop)).toEqual(['a']);
    clock.t += 9 * MIN;
    expect(svc.due()).toEqual([]);
    clock.t += MIN;
    expect(svc.due()).toEqual(['a']);
    clock.t = Date.parse('2026-11-30T23:30:00Z');
    expect(svc.due()).toEqual(['a', 'c']);
    await svc.runDue();
    expect(svc.list().map((p) => p.loop)).toEqual(['a', 'c']);
    clock.t = Date.parse('2026-12-01T00:00:01Z');
    expect(svc.list()).toEqual([]);
    // `run` is the CLI's: every loop now, whatever its lead, for its next fire.
    expect((await svc.run()).map((p) => [p.loop, p.fireAt])).toEqual([
      ['a', '2026-12-02T00:00:00.000Z'],
      ['b', '2026-12-02T00:00:00.000Z'],
      ['c', '2026-12-02T00:00:00.000Z'],
      ['d', '2026-12-02T00:00:00.000Z'],
    ]);
  });

  it('not before the first read has caught up, and an unknown one again after UNKNOWN_AGAIN_MS rather than preflight.every', async () => {
    const { svc, clock, state } = service('  a: { host: r, runs: RUNS, schedule: "0 0 * * *", preflightDisk: 1MB }\n', 'proxies: { xb: { host: r, kind: crossbar, url: "http://127.0.0.1:9" } }\n');
    clock.t = Date.parse('2026-11-30T23:00:00Z');
    state.caughtUp = false;
    expect(await svc.runDue()).toEqual([]);
    state.caughtUp = true;
    const [a] = await svc.runDue();
    expect(a?.state).toBe('unknown'); // the proxy has not been polled
    clock.t += UNKNOWN_AGAIN_MS - 1;
    expect(svc.due()).toEqual([]);
    clock.t += 1;
    expect(svc.due()).toEqual(['a']);
  });
});
