import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotSchema, type HostState, type Phase } from '../../../shared/domain';
import { CapacityHistory, type StoredSample } from '../capacity/history/history-store';
import { HostOutages } from '../engine/host-outages';
import { WatchedTime } from '../state/watched-time';
import { databasePath } from '../config/paths';
import { Store } from '../store/store';
import { loopdeck } from '../../../testing/cli-run';
import { createRunnerFixture } from '../../../testing/runner-fixture';

// Failure attribution end to end: a runner folder whose bad phases each had a known cause, the
// fleet's history and the runner's outages as Loopdeck recorded them, in a real database, read by
// `loopdeck snapshot` (the real engine and store).

const MIN = 60_000;
const NOW = '2026-08-24T09:00:00Z';
const at = (day: string, hhmm: string): number => Date.parse(`${day}T${hhmm}:00Z`);

/** A minute sample of one fleet host: up and idle, or as given. */
function sample(host: string, t: number, over: Partial<StoredSample> = {}): StoredSample {
  return { proxy: 'crossbar', host, t, up: true, slotsTotal: 4, slotsBusy: 1, inflight: 1, queued: 0, spanMs: MIN, requests: 10, errors: {}, ...over };
}

/** Minute samples of `host` from `from` to `to` (ms), up unless `down` covers them. */
function stretch(host: string, from: number, to: number, down: readonly [number, number][] = []): StoredSample[] {
  const out: StoredSample[] = [];
  for (let t = from; t < to; t += MIN) out.push(sample(host, t, down.some(([a, b]) => t >= a && t < b) ? { up: false, slotsBusy: null, inflight: null, queued: null, requests: 0 } : {}));
  return out;
}

const hostState = (state: HostState['state'], since: string): HostState => ({ name: 'runner', kind: 'ssh', state, error: null, since, attempt: 0, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false });

describe('failure attribution', () => {
  it('puts each bad phase down to the fleet, the runner or the agent, naming which, when and for how long; only the proxies a loop uses count', async () => {
    const fx = createRunnerFixture();
    // A second loop that uses only the gateway: the crossbar's trouble is not its.
    const testingRuns = join(fx.dir, 'testing-runs');
    mkdirSync(join(testingRuns, '2026-08-20'), { recursive: true });
    const q = JSON.stringify;
    writeFileSync(
      fx.configPath,
      [
        'hosts:',
        '  runner: { local: true }',
        'loops:',
        `  reliability: { host: runner, runs: ${q(fx.runs)}, phases: [audit, remediate, deliver], cap: 20h }`,
        `  testing: { host: runner, runs: ${q(testingRuns)}, phases: [remediate], uses: [gw] }`,
        'proxies:',
        '  crossbar: { host: runner, kind: crossbar, url: "http://127.0.0.1:9" }',
        '  gw: { host: runner, kind: gateway, url: "http://127.0.0.1:9" }',
        '',
      ].join('\n'),
    );
    const stamps = (day: string, end: string, status: string): string => `remediate ${day}T02:00:00+00:00 STARTED\nremediate ${day}T${end}:00+00:00 ${status}\n`;
    // Fleet: gpu-a down 02:30–03:10 inside the phase.
    fx.write('2026-08-20', 'remediate.status', stamps('2026-08-20', '04:00', 'FAILED 1'));
    writeFileSync(join(testingRuns, '2026-08-20', 'remediate.status'), stamps('2026-08-20', '04:00', 'FAILED 1'));
    // Agent: gpu-a down 05:00–05:40, after the phase ended.
    fx.write('2026-08-21', 'remediate.status', stamps('2026-08-21', '04:00', 'INCOMPLETE'));
    // Runner: the transcript says the disk was full (the fleet was fine).
    fx.write('2026-08-22', 'remediate.status', stamps('2026-08-22', '03:00', 'FAILED 1'));
    fx.write('2026-08-22', 'remediate.log', 'running the gate\nOSError: [Errno 28] No space left on device: \'/srv/runs/tmp\'\nOSError: [Errno 28] No space left on device\n');
    // Runner: its host unreachable 02:40–03:00 (and gpu-a down too, for less time).
    fx.write('2026-08-23', 'remediate.status', stamps('2026-08-23', '04:00', 'FAILED 2'));
    // Unknown: a night Loopdeck did not run (a laptop closed), with no fleet history of it.
    fx.write('2026-08-19', 'remediate.status', 'remediate 2026-08-19T07:11:00+00:00 STARTED\nremediate 2026-08-19T08:15:00+00:00 INCOMPLETE\n');

    const store = Store.open(databasePath(fx.dataDir));
    try {
      const history = new CapacityHistory(store.sql);
      history.record([
        ...stretch('gpu-a', at('2026-08-20', '01:00'), at('2026-08-20', '06:00'), [[at('2026-08-20', '02:30'), at('2026-08-20', '03:10')]]),
        ...stretch('gpu-a', at('2026-08-21', '01:00'), at('2026-08-21', '06:00'), [[at('2026-08-21', '05:00'), at('2026-08-21', '05:40')]]),
        ...stretch('gpu-a', at('2026-08-22', '01:00'), at('2026-08-22', '06:00')),
        ...stretch('gpu-a', at('2026-08-23', '01:00'), at('2026-08-23', '06:00'), [[at('2026-08-23', '03:30'), at('2026-08-23', '03:40')]]),
        // The gateway (the testing loop's only proxy), up every night Loopdeck watched.
        ...['2026-08-20', '2026-08-21', '2026-08-22', '2026-08-23'].flatMap((d) => stretch('gw', at(d, '01:00'), at(d, '06:00')).map((s) => ({ ...s, proxy: 'gw' }))),
      ]);
      // Loopdeck ran from the 20th to the 24th, not the night of the 19th.
      new WatchedTime(store).add({ since: at('2026-08-20', '00:00'), until: at('2026-08-24', '08:00') });
      const outages = new HostOutages(store);
      outages.note([hostState('reconnecting', '2026-08-23T02:40:00Z')], at('2026-08-23', '02:40'));
      outages.note([hostState('connected', '2026-08-23T03:00:00Z')], at('2026-08-23', '03:00'));
    } finally {
      store.close();
    }

    const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
    const snap = SnapshotSchema.parse(JSON.parse(r.stdout));
    const remediate = (loop: string, day: string): Phase | undefined => snap.loops.find((l) => l.name === loop)?.cycles.find((c) => c.date === day)?.phases.find((p) => p.name === 'remediate');

    expect(remediate('reliability', '2026-08-20')?.cause).toEqual({
      kind: 'fleet',
      what: 'down',
      subject: 'crossbar/gpu-a',
      since: '2026-08-20T02:30:00.000Z',
      until: '2026-08-20T03:10:00.000Z',
      detail: 'gpu-a (via crossbar) was down for 40m (02:30–03:10 UTC) during the phase',
    });
    expect(remediate('testing', '2026-08-20')?.cause?.kind).toBe('agent');
    expect(remediate('reliability', '2026-08-21')?.cause?.kind).toBe('agent');
    expect(remediate('reliability', '2026-08-22')?.cause).toMatchObject({ kind: 'runner', what: 'disk-full', detail: expect.stringContaining('line 2 of remediate.log says "OSError: [Errno 28] No space left on device') as unknown });
    expect(remediate('reliability', '2026-08-23')?.cause).toMatchObject({ kind: 'runner', what: 'unreachable', subject: 'runner', detail: 'the runner runner could not be reached for 20m (02:40–03:00 UTC) during the phase' });
    // The night Loopdeck slept through: nothing observed, nothing claimed.
    expect(remediate('reliability', '2026-08-19')?.cause).toEqual({
      kind: 'unknown',
      what: 'unwatched',
      subject: null,
      since: '2026-08-19T07:11:00.000Z',
      until: '2026-08-19T08:15:00.000Z',
      detail:
        'Loopdeck has no fleet history for 07:11–08:15 UTC, and it was not watching the runner (host runner) for 07:11–08:15 UTC: what it saw shows no fault, so whether the runner, the fleet or the agent stopped the phase is not known',
    });
    // A phase that ended well carries no cause.
    expect(snap.loops.flatMap((l) => l.cycles.flatMap((c) => c.phases)).filter((p) => p.cause && p.status !== 'failed' && p.status !== 'incomplete')).toEqual([]);
  }, 60_000);
});
