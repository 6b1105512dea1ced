import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Capacity, LoopState } from '../../../shared/domain';
import { fleetIncidents } from '../../../shared/fleet-incidents';
import { parseConfig } from '../config/load-config';
import type { Config } from '../config/schema';
import { deadmanAt } from '../loops/deadman';
import { deriveNotices } from '../notices/rules/rules';
import { HostTable } from '../hosts/host-table';
import { PreflightService } from '../preflight/preflight-service';
import { Store } from '../store/store';
import { MaintenanceSchedule, targetOfSource } from './maintenance-schedule';

// When a window is in force, and for what: a recurring window's occurrences on the wall clock of its
// time zone across both DST changes, the scope's reach, and what the dead-man, the pre-flight and
// the fleet's incidents say inside one.

const HOUR = 3_600_000;

function configOf(maintenance: string, extra = ''): Config {
  return parseConfig(
    '/c.yaml',
    `hosts:
  runner: { local: true }
  gpu: { local: true }
loops:
  reliability: { host: runner, runs: /tmp/runs, schedule: "0 2 * * *", timezone: Europe/Berlin, grace: 1h }
  testing: { host: gpu, runs: /tmp/runs2, schedule: "0 2 * * *", timezone: Europe/Berlin, grace: 1h }
proxies:
  crossbar: { host: gpu, kind: crossbar, url: "http://127.0.0.1:8080" }
  gateway: { host: runner, kind: gateway, url: "http://127.0.0.1:8081" }
drills:
  restart: { host: gpu, command: "true" }
${extra}maintenance:
${maintenance}`,
  );
}

function scheduleOf(maintenance: string): MaintenanceSchedule {
  const cfg = configOf(maintenance);
  return new MaintenanceSchedule(cfg.maintenance, cfg);
}

/** The occurrences of the schedule's windows that begin in [from, to), stepping every 5 minutes: start and end, ISO. */
function occurrences(s: MaintenanceSchedule, from: string, to: string): string[] {
  const seen = new Map<string, string>();
  for (let t = Date.parse(from); t < Date.parse(to); t += 5 * 60_000) {
    for (const o of s.active(t)) if (o.startMs >= Date.parse(from)) seen.set(o.id, `${new Date(o.startMs).toISOString()} → ${new Date(o.endMs).toISOString()}`);
  }
  return [...seen.values()];
}

const BERLIN = '  - { every: "0 2 * * *", for: 2h, timezone: Europe/Berlin, reason: nightly backup }\n';

describe('a recurring window across DST (0 2 * * *, 2h, Europe/Berlin)', () => {
  it('begins at 03:00 CEST on the spring-forward night, when 02:00 does not exist (last Sunday of March 2027)', () => {
    expect(occurrences(scheduleOf(BERLIN), '2027-03-26T12:00:00Z', '2027-03-29T12:00:00Z')).toEqual([
      '2027-03-27T01:00:00.000Z → 2027-03-27T03:00:00.000Z', // 02:00 CET
      '2027-03-28T01:00:00.000Z → 2027-03-28T03:00:00.000Z', // 02:00 skipped: 03:00 CEST, for 2 h of elapsed time
      '2027-03-29T00:00:00.000Z → 2027-03-29T02:00:00.000Z', // 02:00 CEST
    ]);
  });

  it('begins once, at the first 02:00, on the fall-back night when 02:00 happens twice (last Sunday of October 2026)', () => {
    const s = scheduleOf(BERLIN);
    expect(occurrences(s, '2026-10-23T12:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
      '2026-10-24T00:00:00.000Z → 2026-10-24T02:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:00:00.000Z → 2026-10-25T02:00:00.000Z', // the first 02:00 (CEST); 02:00 CET begins none
      '2026-10-26T01:00:00.000Z → 2026-10-26T03:00:00.000Z', // 02:00 CET
    ]);
    // 02:30 the second time (CET, 01:30Z) is inside the one begun at the first 02:00; 03:30 CET is not.
    expect(s.active(Date.parse('2026-10-25T01:30:00Z')).map((o) => o.startMs)).toEqual([Date.parse('2026-10-25T00:00:00Z')]);
    expect(s.active(Date.parse('2026-10-25T02:30:00Z'))).toEqual([]);
  });

  it('has the start inside and the end outside, and keeps an occurrence\'s id across schedules built from the same config', () => {
    const a = scheduleOf(BERLIN);
    const b = scheduleOf(BERLIN);
    const start = Date.parse('2026-11-30T01:00:00Z');
    expect(a.active(start - 1)).toEqual([]);
    expect(a.active(start)[0]?.id).toBe(b.active(start + HOUR)[0]?.id);
    expect(a.active(start + 2 * HOUR)).toEqual([]);
    expect(a.markAt({ kind: 'loop', name: 'reliability' }, start)).toEqual({ reason: 'nightly backup', until: '2026-11-30T03:00:00.000Z' });
  });
});

describe('a window\'s scope', () => {
  const s = scheduleOf(`  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T03:00:00Z", reason: runner upgrade, hosts: [runner] }
  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T05:00:00Z", reason: fleet swap, proxies: [crossbar], loops: [testing] }
`);
  const at = Date.parse('2026-11-29T02:00:00Z');
  const reasonOf = (source: string, t = at): string | null => s.markAt(targetOfSource(source), t)?.reason ?? null;

  it('takes in what it names, what runs on a host it names, and nothing else', () => {
    expect(reasonOf('loop:reliability')).toBe('runner upgrade'); // on runner
    expect(reasonOf('proxy:gateway')).toBe('runner upgrade'); // reached through runner
    expect(reasonOf('host:runner')).toBe('runner upgrade');
    expect(reasonOf('loop:testing')).toBe('fleet swap');
    expect(reasonOf('proxy:crossbar')).toBe('fleet swap');
    expect(reasonOf('host:gpu')).toBeNull();
    expect(reasonOf('drill:restart')).toBeNull(); // on gpu, which no window names
    expect(reasonOf('costs')).toBeNull();
    expect(reasonOf('loop:reliability', Date.parse('2026-11-29T04:00:00Z'))).toBeNull();
  });

  it('takes in everything when it names nothing', () => {
    const all = scheduleOf('  - { every: "0 1 * * *", for: 3h, reason: all hands }\n');
    for (const source of ['loop:reliability', 'host:gpu', 'proxy:crossbar', 'drill:restart', 'costs']) expect(all.markAt(targetOfSource(source), at)?.reason).toBe('all hands');
  });
});

describe('inside a window', () => {
  const cfg = configOf('  - { start: "2026-11-30T00:30:00Z", end: "2026-11-30T02:30:00Z", reason: runner upgrade, hosts: [runner] }\n');
  const schedule = new MaintenanceSchedule(cfg.maintenance, cfg);
  const deadmanOf = (loop: string, now: string) =>
    deadmanAt({ schedule: '0 2 * * *', timezone: 'Europe/Berlin', graceMs: HOUR, capMs: 20 * HOUR, cycles: [], now: new Date(now), maintenance: (fire) => schedule.markAt({ kind: 'loop', name: loop }, fire) }).deadman;

  it('the dead-man says "in maintenance" for a fire inside a window in the loop\'s scope, not late nor missed, and raises no notice', () => {
    // 02:00 Berlin on 2026-11-30 is 01:00Z, inside the window on runner: reliability is covered, testing (on gpu) is not.
    const late = deadmanOf('reliability', '2026-11-30T01:30:00Z');
    expect(late).toMatchObject({ state: 'ok', maintenance: { reason: 'runner upgrade', until: '2026-11-30T02:30:00.000Z' } });
    expect(late.reason).toMatch(/^in maintenance \(runner upgrade\): no cycle for 2026-11-30 \(fired 02:00 Europe\/Berlin/);
    // Past the grace and past the window: the fire it was about stays in maintenance until the next.
    expect(deadmanOf('reliability', '2026-11-30T09:00:00Z')).toMatchObject({ state: 'ok', maintenance: { reason: 'runner upgrade' } });
    expect(deadmanOf('testing', '2026-11-30T01:30:00Z').state).toBe('late');
    const missed = deadmanOf('testing', '2026-11-30T09:00:00Z');
    expect(missed.state).toBe('missed');
    expect(missed.maintenance).toBeUndefined();
    // The next night's fire is outside the window: missed again as usual.
    expect(deadmanOf('reliability', '2026-12-01T09:00:00Z').state).toBe('missed');

    const loops: LoopState[] = [
      { name: 'reliability', host: 'runner', cycles: [], deadman: deadmanOf('reliability', '2026-11-30T09:00:00Z') },
      { name: 'testing', host: 'gpu', cycles: [], deadman: missed },
    ];
    const drafts = deriveNotices({ loops, findings: [], prs: [], hosts: [], hostDownSince: {}, capacity: [], drillRuns: [], rules: {}, now: new Date('2026-11-30T09:00:00Z') });
    expect(drafts.map((d) => d.key)).toEqual(['deadman:testing:2026-11-30T01:00:00.000Z:missed']);
  });

  it('the pre-flight of a fire inside a window says "in maintenance" instead of at risk, and raises no notice', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'ld-maint-pf-'));
    const pfCfg = parseConfig(
      '/c.yaml',
      `hosts: { runner: { local: true }, gpu: { local: true } }
loops:
  reliability: { host: runner, runs: ${JSON.stringify(runs)}, schedule: "0 2 * * *", timezone: Europe/Berlin, preflightDisk: 99999TB }
  testing: { host: gpu, runs: ${JSON.stringify(runs)}, schedule: "0 2 * * *", timezone: Europe/Berlin, preflightDisk: 99999TB }
maintenance:
  - { start: "2026-11-30T00:30:00Z", end: "2026-11-30T02:30:00Z", reason: runner upgrade, hosts: [runner] }
`,
    );
    const store = Store.open(':memory:');
    const maintenance = new MaintenanceSchedule(pfCfg.maintenance, pfCfg);
    const svc = new PreflightService({
      config: pfCfg,
      hosts: new HostTable(pfCfg.hosts, store),
      now: () => new Date('2026-11-30T00:15:00Z'),
      state: { caughtUp: () => true, cycles: () => [], deliverRecord: () => null, capacity: () => [], drills: () => [], drillRuns: () => [] },
      onChange: () => undefined,
      maintenance,
    });
    const [reliability, testing] = await svc.run();
    store.close();
    // A window planned in the console afterwards for the testing loop marks its listed pre-flight
    // at once (the list is marked when read), and ending it takes the mark off: no new run needed.
    maintenance.setConsoleWindows([{ kind: 'once', id: 'c1', startMs: Date.parse('2026-11-30T00:45:00Z'), endMs: Date.parse('2026-11-30T01:30:00Z'), reason: 'gpu swap', loops: ['testing'] }]);
    expect(svc.list().map((p) => [p.loop, p.state, p.maintenance?.reason ?? null])).toEqual([
      ['reliability', 'maintenance', 'runner upgrade'],
      ['testing', 'maintenance', 'gpu swap'],
    ]);
    maintenance.setConsoleWindows([]);
    expect(svc.list().map((p) => p.state)).toEqual(['maintenance', 'at-risk']);
    // Both ask for all of their disk free: at risk, unless the fire is inside a window.
    expect(testing).toMatchObject({ loop: 'testing', state: 'at-risk', fireAt: '2026-11-30T01:00:00.000Z' });
    expect(reliability).toMatchObject({ loop: 'reliability', state: 'maintenance', maintenance: { reason: 'runner upgrade', until: '2026-11-30T02:30:00.000Z' } });
    expect(reliability?.checks.find((c) => c.name === 'disk')?.status).toBe('fail'); // the checks still say what they found
    const drafts = deriveNotices({ loops: [], findings: [], prs: [], hosts: [], hostDownSince: {}, capacity: [], drillRuns: [], preflight: [reliability!, testing!], rules: {}, now: new Date('2026-11-30T00:15:00Z') });
    expect(drafts.map((d) => d.key)).toEqual(['preflight:testing:2026-11-30T01:00:00.000Z']);
  });

  it('a fleet incident of a proxy in a window is planned (the capacity row carries the window)', () => {
    const row = (proxy: string, over: Partial<Capacity> = {}): Capacity => ({
      proxy, kind: 'crossbar', host: 'gpu-1', up: false, since: '2026-11-30T01:00:00.000Z', slotsTotal: 4, slotsBusy: null, inflight: null, queued: null, nCtx: null, models: [],
      shedThreshold: null, highWater: null, totalShed: null, missing: [], error: 'connection refused', polledAt: '2026-11-30T01:00:00.000Z', ...over,
    });
    const mark = schedule.markAt({ kind: 'proxy', name: 'gateway' }, Date.parse('2026-11-30T01:00:00Z'));
    expect(mark).toEqual({ reason: 'runner upgrade', until: '2026-11-30T02:30:00.000Z' });
    expect(schedule.markAt({ kind: 'proxy', name: 'crossbar' }, Date.parse('2026-11-30T01:00:00Z'))).toBeNull();
    const incidents = fleetIncidents([row('gateway', { maintenance: mark ?? undefined }), row('crossbar')]);
    expect(incidents.map((i) => [i.proxy, i.kind, i.planned ?? null])).toEqual([
      ['gateway', 'down', { reason: 'runner upgrade', until: '2026-11-30T02:30:00.000Z' }],
      ['crossbar', 'down', null],
    ]);
  });
});
