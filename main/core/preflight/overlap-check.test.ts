import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Cycle } from '../../../shared/domain';
import type { Preflight } from '../../../shared/preflight';
import { parseConfig } from '../config/load-config';
import { HostTable } from '../hosts/host-table';
import { Store } from '../store/store';
import { judgePreflight, type PreflightInput } from './checks';
import { loopDuration, overlapCheck, type Neighbour } from './overlap-check';
import { PreflightService } from './preflight-service';

// Another loop on the same runner scheduled over tonight's fire (issue "Night against night",
// item 3): its window is its fire plus its usual length (the median of its last cycles, else the
// last one, else its cap); the pre-flight warns, naming it, when it overlaps this loop's window.

const HOUR = 3_600_000;
const NOW = new Date('2026-11-29T23:00:00Z');
const FIRE = Date.parse('2026-11-30T00:00:00Z');

/** A finished cycle of `date` that ran from `start` (hour of that day, UTC) for `hours`. */
function cycle(date: string, start: number, hours: number, status: Cycle['status'] = 'ok'): Cycle {
  const from = Date.parse(`${date}T00:00:00Z`) + start * HOUR;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    date,
    status,
    phases: [
      { name: 'audit', status: 'ok', startedAt: iso(from), endedAt: iso(from + HOUR), timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason: '' },
      { name: 'remediate', status, startedAt: iso(from + HOUR), endedAt: status === 'running' ? null : iso(from + hours * HOUR), timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason: '' },
    ],
  };
}

const nights = (hours: readonly number[], start = 0): Cycle[] => hours.map((h, i) => cycle(`2026-11-${String(28 - i).padStart(2, '0')}`, start, h));

const testing = (over: Partial<Neighbour> = {}): Neighbour => ({
  loop: 'testing', schedule: '0 2 * * *', timezone: 'UTC', capMs: 20 * HOUR, duration: loopDuration(nights([3, 3.5, 2.5, 3]), 20 * HOUR), runningSince: null, ...over,
});
const check = (neighbours: readonly Neighbour[], ours = loopDuration(nights([4, 4, 5]), 20 * HOUR)) =>
  overlapCheck({ loop: 'reliability', hostName: 'runner', fireAt: FIRE, now: NOW, overlap: { duration: ours, neighbours } });

describe('how long a loop takes', () => {
  it('is the median of its last finished cycles, else its last one, else its cap', () => {
    expect(loopDuration(nights([3, 3.5, 2.5, 3]), 20 * HOUR)).toEqual({ ms: 3 * HOUR, from: 'typical', cycles: 4 });
    expect(loopDuration(nights([4, 4, 5]), 20 * HOUR)).toEqual({ ms: 4 * HOUR, from: 'typical', cycles: 3 });
    expect(loopDuration(nights([2, 9]), 20 * HOUR)).toEqual({ ms: 2 * HOUR, from: 'last', cycles: 2 });
    // A running cycle has no length yet; without a finished one, the cap.
    expect(loopDuration([cycle('2026-11-29', 0, 1, 'running')], 20 * HOUR)).toEqual({ ms: 20 * HOUR, from: 'cap', cycles: 0 });
    expect(loopDuration(nights([1, 1, 1, 1, 1, 1, 1, 9, 9, 9]), 20 * HOUR)).toMatchObject({ ms: HOUR, cycles: 7 });
  });
});

describe('pre-flight: another loop on the same host', () => {
  it('warns when the other loop is scheduled inside tonight’s window, naming it, when and for how long', () => {
    const got = check([testing()]);
    expect(got).toMatchObject({ name: 'overlap', status: 'warn', ok: true });
    expect(got?.detail).toBe(
      "loop testing (also on host runner) fires at 2026-11-30 02:00 UTC and, typically 3h (median of its last 4 cycles), runs until about 2026-11-30 05:00 UTC, inside tonight's window of reliability (2026-11-30 00:00 UTC to about 2026-11-30 04:00 UTC, typically 4h (median of its last 3 cycles)): they share runner's cores and memory, so move one schedule apart",
    );
    // Yesterday's 22:00 fire of a loop that takes 3 h runs into tonight's 00:00 fire as well.
    expect(check([testing({ schedule: '0 22 * * *' })])?.detail).toMatch(/^loop testing \(also on host runner\) fires at 2026-11-29 22:00 UTC and, typically 3h .* runs until about 2026-11-30 01:00 UTC, inside tonight's window/);
  });

  it('is ok when the other loop’s window falls outside tonight’s, and says so', () => {
    const got = check([testing({ schedule: '0 12 * * *' })]);
    expect(got).toMatchObject({ name: 'overlap', status: 'ok' });
    expect(got?.detail).toBe("no other loop on host runner (testing) is scheduled inside tonight's window of reliability (2026-11-30 00:00 UTC to about 2026-11-30 04:00 UTC, typically 4h (median of its last 3 cycles))");
    // Ends exactly at the fire: no overlap.
    expect(check([testing({ schedule: '0 21 * * *' })])?.status).toBe('ok');
  });

  it('warns when the other loop is running now and, by its usual length or past it its cap, will still be at the fire', () => {
    const since = Date.parse('2026-11-29T22:30:00Z');
    expect(check([testing({ schedule: '0 12 * * *', runningSince: since })])?.detail).toMatch(
      /^loop testing \(also on host runner\) is running now, since 2026-11-29 22:30 UTC, and, typically 3h \(median of its last 4 cycles\), may run until about 2026-11-30 01:30 UTC, into tonight's window of reliability/,
    );
    // Running for 12 h already, past its usual 3 h: its cap says how long it may go on.
    expect(check([testing({ schedule: '0 12 * * *', runningSince: since - 12 * HOUR })])?.detail).toMatch(/may run until about 2026-11-30 06:30 UTC/);
    // Running since 20:30 and usually done 3 h later, by 23:30: over before the fire.
    expect(check([testing({ schedule: '0 12 * * *', runningSince: since - 2 * HOUR })])?.status).toBe('ok');
  });

  it('takes a loop with no finished cycle to run until its cap', () => {
    const fresh = testing({ schedule: '0 12 * * *', duration: loopDuration([], 14 * HOUR) });
    expect(check([fresh])?.detail).toMatch(/^loop testing \(also on host runner\) fires at 2026-11-29 12:00 UTC and, up to its cap of 14h \(no finished cycle to go by\), runs until about 2026-11-30 02:00 UTC/);
  });

  it('shows no check when the loop has its host to itself', () => {
    expect(check([])).toBeNull();
    const base = {
      loop: 'reliability', hostName: 'runner', host: undefined, fireAt: FIRE, capMs: 20 * HOUR, now: NOW, disk: null, threshold: { kind: 'bytes', bytes: 1 } as const,
      cycles: [], deliverRecordPath: null, deliverRecord: null, proxies: [], capacity: [], models: [], drills: [], drillRuns: [],
    } satisfies PreflightInput;
    expect(judgePreflight(base).checks.map((c) => c.name)).not.toContain('overlap');
    expect(judgePreflight({ ...base, overlap: { duration: loopDuration([], 20 * HOUR), neighbours: [testing()] } }).checks.map((c) => c.name)).toEqual(['host', 'disk', 'previous-cycle', 'overlap', 'drills']);
  });

  it('in the service: two loops on one host, each warned of the other from its schedule and its cycles', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'ld-overlap-runs-'));
    const config = parseConfig(
      '/c.yaml',
      `hosts: { r: { local: true }, s: { local: true } }\nloops:\n  reliability: { host: r, runs: ${JSON.stringify(runs)}, schedule: "0 0 * * *", preflightDisk: 1MB }\n  testing: { host: r, runs: ${JSON.stringify(runs)}, schedule: "0 2 * * *", preflightDisk: 1MB }\n  elsewhere: { host: s, runs: ${JSON.stringify(runs)}, schedule: "0 0 * * *", preflightDisk: 1MB }\n`,
    );
    const cycles: Record<string, Cycle[]> = { reliability: nights([4, 4, 5]), testing: nights([3, 3.5, 2.5, 3], 2), elsewhere: nights([8, 8, 8]) };
    const published: (readonly Preflight[])[] = [];
    const svc = new PreflightService({
      config,
      hosts: new HostTable(config.hosts, Store.open(':memory:')),
      now: () => NOW,
      state: { caughtUp: () => true, cycles: (loop) => cycles[loop] ?? [], deliverRecord: () => null, capacity: () => [], drills: () => [], drillRuns: () => [] },
      onChange: (list) => published.push(list),
    });
    const [rel, test, other] = await svc.run();
    const overlap = (p: Preflight | undefined) => p?.checks.find((c) => c.name === 'overlap');
    expect(overlap(rel)).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^loop testing \(also on host r\) fires at 2026-11-30 02:00 UTC and, typically 3h/) as unknown });
    expect(overlap(test)).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^loop reliability \(also on host r\) fires at 2026-11-30 00:00 UTC and, typically 4h .* inside tonight's window of testing \(2026-11-30 02:00 UTC/) as unknown });
    // A warning is not a risk: the night is still ready on this account.
    expect(rel?.state).not.toBe('at-risk');
    // The loop alone on its host gets no such check.
    expect(overlap(other)).toBeUndefined();
  });
});
