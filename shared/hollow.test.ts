import { describe, expect, it } from 'vitest';
import type { Cycle, Phase } from './domain';
import { hollowOf, markHollow, unresolvedItems } from './hollow';
import { item, outcome } from './waiting-fixtures';

// Backlog items as RELIABILITY_AUDIT.md's delta audits file them, outcomes as RELIABILITY_LOG.md logs them.
const remediate = (status: Phase['status'], endedAt = '2026-08-23T13:12:40.000Z'): Phase => ({
  name: 'remediate',
  status,
  startedAt: '2026-08-23T05:00:00.000Z',
  endedAt,
  timesFrom: 'stamps',
  detail: [],
  stages: [],
  verdict: null,
  reason: `the wrapper stamped ${status.toUpperCase()}`,
});

const backlog = [
  item('REL-050', [outcome('2026-08-22', 'DONE', 'gates 14/14')], { section: 'Delta audit 2026-08-22' }),
  item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: the broker mock cannot drop mid-frame')], { section: 'Delta audit 2026-08-22' }),
  item('REL-052', [], { section: 'Delta audit 2026-08-23 (second pass)' }),
  item('REL-053', [outcome('2026-08-23', 'DEFERRED', 'out of time')], { section: 'Delta audit 2026-08-23' }),
  item('REL-054', [outcome('2026-08-23', 'operator-only', 'rotate the broker credential')], { section: 'Delta audit 2026-08-23' }),
  item('REL-060', [], { section: 'Delta audit 2026-08-24' }),
];

describe('the remediate contract', () => {
  it('flags an ok remediate hollow with the items of its audit or earlier left without an outcome or DEFERRED', () => {
    expect(hollowOf('2026-08-23', remediate('ok'), backlog)).toEqual({ items: ['REL-052', 'REL-053'] });
    expect(hollowOf('2026-08-23', remediate('no-op'), backlog)).toEqual({ items: ['REL-052', 'REL-053'] });
  });

  it('is not hollow when every item has a final outcome (DONE, BLOCKED, operator-only), nor when the phase failed or is not a remediate', () => {
    const done = backlog.map((b) => (b.outcomes.length === 0 || b.id === 'REL-053' ? { ...b, outcomes: [...b.outcomes, outcome('2026-08-23', 'DONE', 'gates ok')] } : b));
    expect(hollowOf('2026-08-23', remediate('ok'), done)).toBeNull();
    expect(hollowOf('2026-08-23', remediate('incomplete'), backlog)).toBeNull();
    expect(hollowOf('2026-08-23', { ...remediate('ok'), name: 'audit' }, backlog)).toBeNull();
  });

  it('judges a past remediate by the log rows up to its end: a DONE logged days later does not clear it', () => {
    const later = backlog.map((b) => (b.id === 'REL-052' ? { ...b, outcomes: [outcome('2026-08-25', 'DONE', 'next cycle')] } : b));
    expect(unresolvedItems('2026-08-23', '2026-08-23T13:12:40.000Z', later)).toEqual(['REL-052', 'REL-053']);
    expect(unresolvedItems('2026-08-25', '2026-08-25T13:00:00.000Z', later)).toEqual(['REL-053', 'REL-060']);
  });

  it('marks cycles, keeping the same objects where nothing changed, and clears the mark', () => {
    const cycle: Cycle = { date: '2026-08-23', status: 'ok', phases: [remediate('ok')] };
    const [marked] = markHollow([cycle], backlog);
    expect(marked?.phases[0]?.hollow).toEqual({ items: ['REL-052', 'REL-053'] });
    expect(markHollow([marked as Cycle], backlog)[0]).toBe(marked);
    const cleared = markHollow([marked as Cycle], [])[0];
    expect(cleared?.phases[0]).toEqual(remediate('ok'));
    expect('hollow' in (cleared?.phases[0] ?? {})).toBe(false);
  });
});
