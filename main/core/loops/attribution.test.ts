import { describe, expect, it } from 'vitest';
import type { FailureCause } from '../../../shared/domain';
import type { HistoryRow } from '../capacity/history/history-store';
import { attribute, type AttributionInput } from './attribution';
import { troubleEpisodes } from '../capacity/history/trouble-episodes';
import { AGENT_CAUSE } from './phase-status';

const MIN = 60_000;
const T0 = Date.parse('2026-08-23T02:00:00Z');
const LIMITS = { errorPct: 5, errorMinRequests: 20 };

/** A minute bucket of one host's history: up, slots, queue and counters as given. */
function row(minute: number, over: Partial<HistoryRow> = {}): HistoryRow {
  return {
    proxy: 'crossbar',
    host: 'gpu-a',
    resolution_ms: MIN,
    t: T0 + minute * MIN,
    n: 6,
    up_n: 6,
    slots_total: 4,
    slots_busy_sum: 12,
    slots_busy_n: 6,
    slots_busy_max: 3,
    inflight_sum: 12,
    inflight_n: 6,
    inflight_max: 3,
    queued_sum: 0,
    queued_n: 6,
    queued_max: 0,
    span_ms: MIN,
    requests: 10,
    errors: null,
    ...over,
  };
}

const minutes = (from: number, to: number, over: Partial<HistoryRow> = {}): HistoryRow[] => Array.from({ length: to - from }, (_, i) => row(from + i, over));

describe('troubleEpisodes', () => {
  it('joins the buckets of one kind of trouble into episodes that end a bucket after their last', () => {
    const rows = [...minutes(0, 30), ...minutes(30, 70, { up_n: 0 }), ...minutes(70, 90)];
    expect(troubleEpisodes(rows, MIN, LIMITS)).toEqual([{ proxy: 'crossbar', host: 'gpu-a', what: 'down', since: T0 + 30 * MIN, until: T0 + 70 * MIN }]);
  });

  it('counts a burst of server errors (not 4xx) only with enough requests in it, a shed count as shedding, a queue as saturation', () => {
    const burst = minutes(10, 15, { requests: 10, errors: JSON.stringify({ 502: 3, 400: 9 }) });
    const thin = minutes(40, 41, { requests: 4, errors: JSON.stringify({ 503: 2 }) });
    const clients = minutes(50, 60, { requests: 10, errors: JSON.stringify({ 429: 9, 400: 5 }) });
    const shed = minutes(60, 63, { errors: JSON.stringify({ shed: 4 }) });
    const queued = minutes(70, 85, { queued_max: 2, slots_busy_max: 4 });
    const busy = minutes(85, 99, { slots_busy_max: 4 });
    const got = troubleEpisodes([...minutes(0, 10), ...burst, ...minutes(15, 40), ...thin, ...minutes(41, 50), ...clients, ...shed, ...queued, ...busy], MIN, LIMITS);
    // A shed request is also a failed one: the shedding is a burst of its own as well.
    expect(got.map((e) => [e.what, (e.since - T0) / MIN, (e.until - T0) / MIN])).toEqual([
      ['error-burst', 10, 15],
      ['shedding', 60, 63],
      ['error-burst', 60, 63],
      ['saturated', 70, 85],
    ]);
  });

  it('splits an episode across a gap in the history wider than a bucket', () => {
    const rows = [...minutes(0, 5, { up_n: 0 }), ...minutes(20, 25, { up_n: 0 })];
    expect(troubleEpisodes(rows, MIN, LIMITS).map((e) => [(e.since - T0) / MIN, (e.until - T0) / MIN])).toEqual([
      [0, 5],
      [20, 25],
    ]);
  });
});

describe('attribute', () => {
  const base: AttributionInput = { start: T0, end: T0 + 120 * MIN, local: AGENT_CAUSE, runner: 'runner', outages: [], fleet: [], runnerUnwatched: [], fleetUnwatched: [] };
  const down = (from: number, to: number, what: 'down' | 'saturated' | 'error-burst' | 'shedding' = 'down') => ({ proxy: 'crossbar', host: 'gpu-a', what, since: T0 + from * MIN, until: T0 + to * MIN });
  const cause = (over: Partial<AttributionInput>): FailureCause => attribute({ ...base, ...over });

  it('puts a phase down to the fleet when a host it uses was down inside its window, naming which, when and for how long', () => {
    expect(cause({ fleet: [down(30, 70)] })).toEqual({
      kind: 'fleet',
      what: 'down',
      subject: 'crossbar/gpu-a',
      since: '2026-08-23T02:30:00.000Z',
      until: '2026-08-23T03:10:00.000Z',
      detail: 'gpu-a (via crossbar) was down for 40m (02:30–03:10 UTC) during the phase',
    });
  });

  it('to the agent when the trouble was outside the window, too short, or only a short saturation', () => {
    expect(cause({ fleet: [down(130, 170)] })).toEqual(AGENT_CAUSE);
    expect(cause({ fleet: [down(-60, -1)] })).toEqual(AGENT_CAUSE);
    expect(cause({ fleet: [down(30, 31)] })).toEqual(AGENT_CAUSE);
    // Under 5 % of the phase (6 of 120 minutes) is a blip, not the cause.
    expect(cause({ fleet: [down(30, 35)] })).toEqual(AGENT_CAUSE);
    expect(cause({ fleet: [down(30, 36)] }).what).toBe('down');
    expect(cause({ fleet: [down(30, 35, 'saturated')] })).toEqual(AGENT_CAUSE);
    // Saturation must also cover a quarter of the phase (here 30 of 120 minutes).
    expect(cause({ fleet: [down(30, 45, 'saturated')] })).toEqual(AGENT_CAUSE);
    expect(cause({ fleet: [down(30, 60, 'saturated')] }).what).toBe('saturated');
  });

  it('counts only the part of an episode inside the window, and names the longest', () => {
    const got = cause({ fleet: [down(110, 200), { ...down(10, 25, 'error-burst'), host: 'gpu-b' }] });
    expect([got.what, got.subject, got.since, got.until]).toEqual(['error-burst', 'crossbar/gpu-b', '2026-08-23T02:10:00.000Z', '2026-08-23T02:25:00.000Z']);
  });

  it('puts the runner first: unreachable beats the fleet, a full disk beats the fleet, the fleet beats the cap', () => {
    const cap: FailureCause = { kind: 'runner', what: 'cap', subject: null, since: null, until: null, detail: 'cap' };
    const disk: FailureCause = { kind: 'runner', what: 'disk-full', subject: null, since: null, until: null, detail: 'disk' };
    const outage = { since: T0 + 60 * MIN, until: T0 + 75 * MIN };
    expect(cause({ outages: [outage], fleet: [down(30, 70)], local: disk })).toMatchObject({ kind: 'runner', what: 'unreachable', subject: 'runner', detail: 'the runner runner could not be reached for 15m (03:00–03:15 UTC) during the phase' });
    expect(cause({ fleet: [down(30, 70)], local: disk })).toBe(disk);
    expect(cause({ fleet: [down(30, 70)], local: cap }).kind).toBe('fleet');
    expect(cause({ local: cap })).toBe(cap);
    // An outage still open runs to the phase's end; one outside the window does not count.
    expect(cause({ outages: [{ since: T0 + 100 * MIN, until: null }] }).what).toBe('unreachable');
    expect(cause({ outages: [{ since: T0 - 100 * MIN, until: T0 - 50 * MIN }] })).toEqual(AGENT_CAUSE);
  });

  describe('what Loopdeck did not watch', () => {
    const span = (from: number, to: number) => ({ since: T0 + from * MIN, until: T0 + to * MIN });

    it('is unknown, not the agent, when the fleet has no history for part of the window, naming when', () => {
      expect(cause({ fleetUnwatched: [span(0, 120)] })).toEqual({
        kind: 'unknown',
        what: 'fleet-unwatched',
        subject: null,
        since: '2026-08-23T02:00:00.000Z',
        until: '2026-08-23T04:00:00.000Z',
        detail: 'Loopdeck has no fleet history for 02:00–04:00 UTC: what it saw shows no fault, so whether the fleet or the agent stopped the phase is not known',
      });
    });

    it('is unknown when Loopdeck was not watching the runner (a laptop closed overnight), and says both when neither was watched', () => {
      expect(cause({ runnerUnwatched: [span(11, 75)] })).toMatchObject({
        kind: 'unknown',
        what: 'runner-unwatched',
        detail: 'Loopdeck was not watching the runner (host runner) for 02:11–03:15 UTC: what it saw shows no fault, so whether the runner or the agent stopped the phase is not known',
      });
      expect(cause({ runnerUnwatched: [span(0, 120)], fleetUnwatched: [span(0, 30), span(60, 90)] })).toMatchObject({
        what: 'unwatched',
        detail: expect.stringContaining('Loopdeck has no fleet history for 02:00–02:30 and 03:00–03:30 UTC, and it was not watching the runner (host runner) for 02:00–04:00 UTC') as unknown,
      });
    });

    it('still claims what it did observe: an outage, a full disk, the fleet in trouble, the cap', () => {
      const all = { runnerUnwatched: [span(0, 60)], fleetUnwatched: [span(0, 60)] };
      const cap: FailureCause = { kind: 'runner', what: 'cap', subject: null, since: null, until: null, detail: 'cap' };
      expect(cause({ ...all, fleet: [down(70, 110)] }).kind).toBe('fleet');
      expect(cause({ ...all, outages: [{ since: T0 + 70 * MIN, until: T0 + 80 * MIN }] }).what).toBe('unreachable');
      expect(cause({ ...all, local: cap })).toBe(cap);
    });

    it('a gap shorter than the shortest outage that counts hides nothing: the agent', () => {
      expect(cause({ runnerUnwatched: [span(30, 30.5)], fleetUnwatched: [span(60, 60.9)] })).toEqual(AGENT_CAUSE);
    });
  });
});
