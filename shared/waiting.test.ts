import { describe, expect, it } from 'vitest';
import { auditFinding, item, outcome, readyPr, task, waitingInput } from './waiting-fixtures';
import { waitingKey, waitingOnYou } from './waiting';

const NOW = Date.parse('2026-08-24T13:00:00Z');
const ids = (input: Parameters<typeof waitingOnYou>[0]) => waitingOnYou(input, NOW).map((w) => [w.kind, w.loop, w.id]);

describe('waitingOnYou', () => {
  it('lists a BLOCKED item with the log root-cause note, waiting since the row was first read', () => {
    const blocked = item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: the broker mock cannot drop mid-frame', 12, '2026-08-23T14:00:00.000Z')]);
    const [w] = waitingOnYou(waitingInput({ backlog: [blocked], findings: [auditFinding('R-104', ['REL-051'])] }), NOW);
    expect(w).toMatchObject({ kind: 'blocked', loop: 'reliability', id: 'REL-051', detail: 'root cause: the broker mock cannot drop mid-frame', since: '2026-08-23T14:00:00.000Z' });
    expect(w?.action).toContain('root cause: the broker mock cannot drop mid-frame');
  });

  it('lists an operator-only item with its exact action, since the first of a run of the same outcome (the row date without a first-seen time)', () => {
    const op = item('REL-052', [outcome('2026-08-22', 'operator-only', 'rotate the broker credential'), outcome('2026-08-23', '**operator-only**', 'rotate the broker credential')]);
    const [w] = waitingOnYou(waitingInput({ backlog: [op] }), NOW);
    expect(w).toMatchObject({ kind: 'operator-only', id: 'REL-052', action: 'Do by hand: rotate the broker credential', since: '2026-08-22' });
  });

  it('says a row read at a first start has waited since its own earlier date, not since Loopdeck first read it', () => {
    const old = item('REL-040', [outcome('2026-08-20', 'BLOCKED', 'root cause: z', 9, '2026-08-24T13:00:00.000Z')]);
    expect(waitingOnYou(waitingInput({ backlog: [old] }), NOW)[0]?.since).toBe('2026-08-20');
    const stopped = task('v1/01-store', 'stopped', { date: '2026-09-25', firstSeenAt: '2026-09-25T18:00:00.000Z' });
    expect(waitingOnYou(waitingInput({ tasks: [stopped] }), NOW)[0]?.since).toBe('2026-09-25T18:00:00.000Z');
  });

  it('drops an item once a later DONE is logged, and a DEFERRED after BLOCKED is the loop’s to finish, not yours', () => {
    const done = item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: x'), outcome('2026-08-24', 'DONE', 'gates 14/14')]);
    const deferred = item('REL-053', [outcome('2026-08-23', 'BLOCKED', 'root cause: y'), outcome('2026-08-24', 'DEFERRED', 'out of time')]);
    expect(ids(waitingInput({ backlog: [done, deferred] }))).toEqual([]);
  });

  it('lists a task whose latest row is stopped with its notes; a done row of the same date wins (the log is newest first)', () => {
    const notes = 'make gate fails on two GIVEN v1 proxy tests; the owner must hand over a scaffold that registers /props';
    const tasks = [task('v2/01-props', 'done', { line: 22 }), task('v2/01-props', 'stopped', { line: 23, notes }), task('v2.4/01-wake', 'stopped', { notes, date: '2026-09-26' })];
    const out = waitingOnYou(waitingInput({ tasks }), NOW);
    expect(out.map((w) => [w.kind, w.loop, w.id, w.detail])).toEqual([['stopped', 'proxy', 'v2.4/01-wake', notes]]);
  });

  it('lists an R-### no backlog item covers; review findings, covered ones and a section whose backlog table is not written yet are not', () => {
    const findings = [
      auditFinding('R-104', ['REL-052']),
      auditFinding('R-105', []),
      auditFinding('v0 review#3', []),
      auditFinding('R-110', [], { section: 'Delta audit 2026-08-24' }),
    ];
    const backlog = [item('REL-052', [])];
    expect(ids(waitingInput({ findings, backlog }))).toEqual([['uncovered', 'reliability', 'R-105']]);
    expect(ids(waitingInput({ findings }))).toEqual([]);
  });

  it('lists ready PRs with the operator-only actions logged in their cycle as pre-merge steps', () => {
    const op = item('REL-052', [outcome('2026-08-23', 'operator-only', 'rotate the broker credential')]);
    const old = item('REL-040', [outcome('2026-08-20', 'operator-only', 'renew the cert')]);
    const out = waitingOnYou(waitingInput({ backlog: [op, old], prs: [readyPr(), readyPr({ status: 'pending', url: 'u2', number: 89 })] }), NOW);
    const pr = out.find((w) => w.kind === 'pr');
    expect(pr).toMatchObject({ loop: 'reliability', id: '88', before: ['REL-052: rotate the broker credential'], since: '2026-08-23T14:02:11.000Z' });
    expect(out.filter((w) => w.kind === 'pr')).toHaveLength(1);
  });

  it('with GitHub\'s view: the body\'s Next section is the pre-merge steps, merged and closed PRs wait no more, failing checks are said', () => {
    const op = item('REL-052', [outcome('2026-08-23', 'operator-only', 'rotate the broker credential')]);
    const gh = { state: 'open', mergedBy: null, mergedAt: null, closedAt: null, checks: 'passing', checkNames: [], next: ['Control plane: run the install-copy.'], answeredAt: null, problem: null } as const;
    const prs = [
      readyPr({ github: gh }),
      readyPr({ url: 'u89', number: 89, github: { ...gh, next: null, checks: 'failing', checkNames: ['ci/test'] } }),
      readyPr({ url: 'u90', number: 90, github: { ...gh, next: [] } }),
      readyPr({ url: 'u91', number: 91, status: 'merged', github: { ...gh, state: 'merged', mergedBy: 'hubot' } }),
      readyPr({ url: 'u92', number: 92, status: 'closed', github: { ...gh, state: 'closed' } }),
    ];
    const out = waitingOnYou(waitingInput({ backlog: [op], prs }), NOW).filter((w) => w.kind === 'pr');
    expect(out.map((w) => [w.id, w.before])).toEqual([
      ['88', ['Control plane: run the install-copy.']],
      // No Next section on GitHub: the loop's operator-only actions, as without GitHub.
      ['89', ['REL-052: rotate the broker credential']],
      // A Next section saying nothing is left: nothing before the merge.
      ['90', []],
    ]);
    expect(out[0]?.action).toBe('Merge #88: CI is green on reliability/2026-08-23; first do what the loop asked for below');
    expect(out[1]?.action).toMatch(/^Merge #89: the loop reported CI green, but GitHub now shows checks failing \(ci\/test\)/);
  });

  it('keeps two loops sharing an id apart, with distinct keys', () => {
    const a = item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: a')]);
    const b = item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: b')], { loop: 'testing' });
    const out = waitingOnYou(waitingInput({ backlog: [b, a] }), NOW);
    expect(out.map((w) => [w.loop, w.detail])).toEqual([
      ['reliability', 'root cause: a'],
      ['testing', 'root cause: b'],
    ]);
    expect(out.map(waitingKey)).toEqual(['waiting:blocked:reliability:REL-051', 'waiting:blocked:testing:REL-051']);
    // Each links to its own loop's finding, not the first R-104 of any loop.
    expect(out.map((w) => w.href)).toEqual(['#/findings/reliability/R-104', '#/findings/testing/R-104']);
    const findings = [auditFinding('R-9', []), auditFinding('R-9', [], { loop: 'testing' })];
    const uncovered = waitingOnYou(waitingInput({ findings, backlog: [item('REL-1', []), item('REL-1', [], { loop: 'testing' })] }), NOW);
    expect(uncovered.map((w) => w.href)).toEqual(['#/findings/reliability/R-9', '#/findings/testing/R-9']);
  });

  it('says an uncovered finding read at a first start has waited since its section’s date', () => {
    const backlog = [item('REL-1', [])];
    const first = auditFinding('R-9', [], { firstSeenAt: '2026-08-24T12:00:00.000Z' });
    expect(waitingOnYou(waitingInput({ findings: [first], backlog }), NOW)[0]?.since).toBe('2026-08-23');
    const later = auditFinding('R-9', [], { firstSeenAt: '2026-08-23T05:00:00.000Z' });
    expect(waitingOnYou(waitingInput({ findings: [later], backlog }), NOW)[0]?.since).toBe('2026-08-23T05:00:00.000Z');
  });

  it('links a stopped task to the implementer tasks table (the Ledgers view)', () => {
    const [w] = waitingOnYou(waitingInput({ tasks: [task('v2.4/01-wake', 'stopped', { notes: 'x' })] }), NOW);
    expect(w?.href).toBe('#/ledgers');
  });
});
