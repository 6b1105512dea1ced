import { describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract';
import type { BacklogItem, Cycle, LoopState } from '../../../shared/domain';
import { item, outcome } from '../../../shared/waiting-fixtures';
import type { Config } from '../config/schema';
import { phase } from '../../../testing/notice-fixtures';
import { LoopStates } from './loop-states';
import { UnreadLoops } from './unread-loops';

// Where the loop state and the ledgers meet: a remediate stamped OK is marked hollow from the
// loop's backlog, and marked again (published as a loop.changed) when the backlog moves.
describe('LoopStates and the remediate contract', () => {
  it('marks an ok remediate hollow from the backlog, and clears the mark when a later DONE is logged', () => {
    let backlog: BacklogItem[] = [item('REL-052', [], { section: 'Delta audit 2026-11-29' })];
    const published: EventPayload<'loop.changed'>[] = [];
    const config = { loops: { reliability: { host: 'mac' } } } as unknown as Config;
    const states = new LoopStates({ config, unread: new UnreadLoops(['reliability']), onChanged: (p) => published.push(p), onCycles: () => undefined, backlogOf: () => backlog });
    const cycle: Cycle = { date: '2026-11-29', status: 'ok', phases: [phase('audit', 'ok'), phase('remediate', 'ok')] };
    const changed: LoopState[] = [];
    states.apply({ name: 'reliability', host: 'mac', cycles: [cycle], deadman: null, upserted: [cycle], removed: [] }, new Date('2026-11-30T07:00:00Z'), changed, true);
    const remediateOf = (l: LoopState | undefined) => l?.cycles[0]?.phases[1];
    expect(remediateOf([...states.all()][0])?.hollow).toEqual({ items: ['REL-052'] });
    expect(published.at(-1)?.upserted[0]?.phases[1]?.hollow).toEqual({ items: ['REL-052'] });

    states.refreshHollow('reliability', changed);
    expect(published).toHaveLength(1);
    backlog = [item('REL-052', [outcome('2026-11-29', 'DONE', 'gates 14/14')], { section: 'Delta audit 2026-11-29' })];
    states.refreshHollow('reliability', changed);
    expect(published).toHaveLength(2);
    expect(remediateOf([...states.all()][0])?.hollow).toBeUndefined();
    expect(changed.at(-1)?.cycles.map((c) => c.date)).toEqual(['2026-11-29']);
  });

  it('marks only the cycles a read moved: a year of nights is not checked against the backlog again for one that moved', () => {
    // The backlog, counting the times a mark looks through it.
    class Counted extends Array<BacklogItem> {
      looks = 0;
      override [Symbol.iterator](): ArrayIterator<BacklogItem> {
        this.looks += 1;
        return super[Symbol.iterator]();
      }
    }
    const backlog = new Counted();
    backlog.push(item('REL-052', [], { section: 'Delta audit 2026-01-01' }));
    const config = { loops: { reliability: { host: 'mac' } } } as unknown as Config;
    const states = new LoopStates({ config, unread: new UnreadLoops(['reliability']), onChanged: () => undefined, onCycles: () => undefined, backlogOf: () => backlog });
    const night = (date: string, remediate: 'ok' | 'running'): Cycle => ({ date, status: remediate, phases: [phase('audit', 'ok'), phase('remediate', remediate)] });
    const dates = Array.from({ length: 365 }, (_, i) => new Date(Date.UTC(2026, 0, 2 + i)).toISOString().slice(0, 10)).reverse();
    const year = dates.map((d, i) => night(d, i === 0 ? 'running' : 'ok'));
    const now = new Date('2027-01-02T07:00:00Z');
    states.apply({ name: 'reliability', host: 'mac', cycles: year, deadman: null, upserted: year, removed: [] }, now, [], true);
    expect(backlog.looks).toBe(364); // each ok remediate, once
    const hollowDates = (): string[] => ([...states.all()][0]?.cycles ?? []).filter((c) => c.phases[1]?.hollow).map((c) => c.date);
    expect(hollowDates()).toHaveLength(364);

    // Tonight's remediate ends ok: that night alone is marked, the others keep their marks.
    backlog.looks = 0;
    const ended = night(dates[0] ?? '', 'ok');
    const changed: LoopState[] = [];
    states.apply({ name: 'reliability', host: 'mac', cycles: [ended, ...year.slice(1)], deadman: null, upserted: [ended], removed: [] }, now, changed, true);
    expect(backlog.looks).toBe(1);
    expect(hollowDates()).toEqual(dates);
    expect(changed.at(-1)?.cycles.map((c) => c.date)).toEqual([dates[0]]);
  });

  it('a read that moved only a running phase\'s runner load is published as no news: no notice, contract or PR reads it', () => {
    const published: [EventPayload<'loop.changed'>, boolean][] = [];
    const noted: string[] = [];
    const config = { loops: { reliability: { host: 'mac' } } } as unknown as Config;
    const states = new LoopStates({ config, unread: new UnreadLoops(['reliability']), onChanged: (p, news) => published.push([p, news]), onCycles: (_l, up) => noted.push(...up.map((c) => c.date)) });
    const load = (samples: number) => ({ samples, peakLoadPerCore: 0.4 * samples, cores: 2, minFreeBytes: null, contendedMs: 0, watchedMs: samples * 30_000, contended: false });
    const night = (remediate: 'running' | 'ok', samples: number | null): Cycle => ({
      date: '2026-11-30',
      status: remediate,
      phases: [phase('audit', 'ok'), { ...phase('remediate', remediate), ...(samples === null ? {} : { contention: load(samples) }) }],
    });
    const now = new Date('2026-11-30T07:00:00Z');
    const apply = (cycle: Cycle): LoopState[] => {
      const changed: LoopState[] = [];
      states.apply({ name: 'reliability', host: 'mac', cycles: [cycle], deadman: null, upserted: [cycle], removed: [] }, now, changed, true);
      return changed;
    };
    expect(apply(night('running', null))).toHaveLength(1);
    expect(published.at(-1)?.[1]).toBe(true);

    // The first sample, then another: shown (published, with the load), no news, nothing else told.
    for (const samples of [1, 2]) {
      noted.length = 0;
      expect(apply(night('running', samples))).toEqual([]);
      expect(published.at(-1)?.[1]).toBe(false);
      expect(published.at(-1)?.[0].upserted[0]?.phases[1]?.contention?.samples).toBe(samples);
      expect(noted).toEqual([]);
      expect([...states.all()][0]?.cycles[0]?.phases[1]?.contention?.samples).toBe(samples);
    }

    // The phase ends with a last sample: news.
    expect(apply(night('ok', 3))).toHaveLength(1);
    expect(published.at(-1)?.[1]).toBe(true);
    expect(noted).toEqual(['2026-11-30']);
  });
});
