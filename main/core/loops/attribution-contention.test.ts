import { describe, expect, it } from 'vitest';
import type { FailureCause, PhaseContention } from '../../../shared/domain';
import { Store } from '../store/store';
import { attribute, type AttributionInput } from './attribution';
import { ContentionBook } from './contention';
import { AGENT_CAUSE } from './phase-status';

// The runner contended (issue "Night against night", item 3): a failed or incomplete phase whose
// sampled window had the load above 2 per core for a quarter of it is put down to the runner,
// after the causes that already beat the agent, and before `unknown` (it is an observed fault).

const MIN = 60_000;
const T0 = Date.parse('2026-08-23T02:00:00Z');

/** A phase's aggregate as the book makes it: a sample every 30 s from `from` to `to` minutes, above the line in `hot` minutes. */
function sampled(from: number, to: number, hot: (minute: number) => boolean, cores = 6): PhaseContention {
  const book = new ContentionBook(Store.open(':memory:'));
  for (let m = from; m <= to; m += 0.5) {
    const load1 = hot(m) ? 2.6 * cores : 0.8 * cores;
    book.record('reliability', '2026-08-23', 'remediate', { load1, cores, freeBytes: 4 * 1024 ** 3 - m * 1024 ** 2 }, T0 + m * MIN);
  }
  const got = book.of('reliability', '2026-08-23', 'remediate');
  if (!got) throw new Error('sampled');
  return got;
}

describe('attribute: the runner contended', () => {
  const base: AttributionInput = { start: T0, end: T0 + 130 * MIN, local: AGENT_CAUSE, runner: 'runner', outages: [], fleet: [], runnerUnwatched: [], fleetUnwatched: [] };
  const cause = (over: Partial<AttributionInput>): FailureCause => attribute({ ...base, ...over });

  it('puts a phase down to the runner when the load was above 2 per core for a quarter of its sampled window, saying the peak, the cores and for how long', () => {
    // 41 of 130 minutes above the line.
    const contention = sampled(0, 130, (m) => m > 60 && m <= 101);
    expect(contention).toMatchObject({ samples: 261, peakLoadPerCore: 2.6, cores: 6, contendedMs: 41 * MIN, watchedMs: 130 * MIN, contended: true });
    expect(cause({ contention })).toEqual({
      kind: 'runner',
      what: 'contention',
      subject: 'runner',
      since: null,
      until: null,
      detail: 'the runner runner was contended: its load peaked at 2.6 per core on 6 cores and was above 2 per core for 41m of the 2h10m Loopdeck sampled it during the phase',
    });
  });

  it('to the agent when the window was not contended: a short spike, or none', () => {
    // 20 of 130 minutes is under a quarter: the spike is noted on the phase, not its cause.
    const spike = sampled(0, 130, (m) => m > 60 && m <= 80);
    expect(spike).toMatchObject({ peakLoadPerCore: 2.6, contendedMs: 20 * MIN, contended: false });
    expect(cause({ contention: spike })).toEqual(AGENT_CAUSE);
    expect(cause({ contention: sampled(0, 130, () => false) })).toEqual(AGENT_CAUSE);
    // One sample above the line in a minute's window is a blip, whatever its share.
    expect(sampled(0, 1, (m) => m === 1)).toMatchObject({ contendedMs: 0.5 * MIN, contended: false });
    expect(cause({ contention: null })).toEqual(AGENT_CAUSE);
  });

  it('says what it did not sample, and still claims what it did when part of the window was not watched', () => {
    // Sampled for the last 80 minutes only (Loopdeck started late), contended for 60 of them.
    const late = sampled(50, 130, (m) => m > 70);
    const got = cause({ contention: late, runnerUnwatched: [{ since: T0, until: T0 + 50 * MIN }] });
    expect(got).toMatchObject({ kind: 'runner', what: 'contention' });
    expect(got.detail).toBe('the runner runner was contended: its load peaked at 2.6 per core on 6 cores and was above 2 per core for 1h of the 1h20m Loopdeck sampled it during the phase; its load was not sampled for the other 50m of the phase\'s 2h10m');
  });

  it('keeps the precedence: unreachable, a full disk, the fleet and the cap come first; contention before the agent', () => {
    const contention = sampled(0, 130, () => true);
    const cap: FailureCause = { kind: 'runner', what: 'cap', subject: null, since: null, until: null, detail: 'cap' };
    const disk: FailureCause = { kind: 'runner', what: 'disk-full', subject: null, since: null, until: null, detail: 'disk' };
    expect(cause({ contention, outages: [{ since: T0 + 10 * MIN, until: T0 + 40 * MIN }] }).what).toBe('unreachable');
    expect(cause({ contention, local: disk })).toBe(disk);
    expect(cause({ contention, fleet: [{ proxy: 'crossbar', host: 'gpu-a', what: 'down', since: T0, until: T0 + 60 * MIN }] }).kind).toBe('fleet');
    expect(cause({ contention, local: cap })).toBe(cap);
    expect(cause({ contention }).what).toBe('contention');
  });
});
