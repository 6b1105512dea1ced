import { describe, expect, it } from 'vitest';
import type { LoopState, PullRequest } from '../../../shared/domain';
import { parseReflogLine, type ReflogEntry } from '../loops/branch-reflog';
import { BranchBreaches, branchBreaches, type BranchEvidence } from './branch-breaches';

const DAY = '2026-11-29';
const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const at = (iso: string): number => Date.parse(iso) / 1000;
const line = (n: number, old: string, next: string, iso: string, message: string): ReflogEntry =>
  parseReflogLine(`${old} ${next} loop <loop@runner> ${at(iso)} +0000\t${message}`, n) as ReflogEntry;

const phase = (name: string, status: 'ok' | 'no-op' | 'ready' | 'running', startedAt: string, endedAt: string | null) => ({
  name, status, startedAt, endedAt, timesFrom: 'stamps' as const, detail: [], stages: [], verdict: null, reason: '',
});
const loop = (phases: ReturnType<typeof phase>[]): LoopState => ({ name: 'reliability', host: 'runner', deadman: null, cycles: [{ date: DAY, status: 'ok', phases }] });
const ev = (entries: readonly ReflogEntry[]): BranchEvidence => ({ branch: (d) => `reliability/${d}`, path: (d) => `/clone/.git/logs/refs/heads/reliability/${d}`, entries: () => entries });
const pr = (number: number, branch: string | null): PullRequest => ({ loop: 'reliability', url: `https://github.com/acme/radon/pull/${number}`, number, branch, status: 'ready', check: null, since: `${DAY}T05:0${number % 10}:00Z`, cycle: DAY });

const ENTRIES = [line(1, Z, A, `${DAY}T00:50:00Z`, 'branch: Created from HEAD'), line(2, A, B, `${DAY}T02:00:00Z`, 'commit: REL-001: shrink the pool')];
const NIGHT = [phase('audit', 'ok', `${DAY}T00:00:00Z`, `${DAY}T00:40:00Z`), phase('remediate', 'ok', `${DAY}T01:00:00Z`, `${DAY}T03:00:00Z`), phase('deliver', 'ready', `${DAY}T04:00:00Z`, `${DAY}T04:30:00Z`)];

describe('branch breaches', () => {
  it('two-prs: two PRs whose head is the night\'s branch; two PRs of one night with other heads, or heads unknown, are allowed', () => {
    const two = branchBreaches(loop(NIGHT), ev(ENTRIES), [pr(88, `reliability/${DAY}`), pr(89, `reliability/${DAY}`)]);
    expect(two.map((b) => [b.kind, b.id, b.evidence.url])).toEqual([['two-prs', `reliability/${DAY}`, 'https://github.com/acme/radon/pull/89']]);
    expect(two[0]?.detail).toContain('#88, #89');
    expect(branchBreaches(loop(NIGHT), ev(ENTRIES), [pr(88, `reliability/${DAY}`), pr(89, 'reliability/other')])).toEqual([]);
    expect(branchBreaches(loop(NIGHT), ev(ENTRIES), [pr(88, null), pr(89, null)])).toEqual([]);
  });

  it('no-pr waits for the night to finish (a deliver still to run opens the PR); a night with no commit needs none', () => {
    const running = [...NIGHT.slice(0, 2), phase('deliver', 'running', `${DAY}T04:00:00Z`, null)];
    expect(branchBreaches(loop(running), ev(ENTRIES), [])).toEqual([]);
    expect(branchBreaches(loop(NIGHT), ev(ENTRIES), []).map((b) => b.kind)).toEqual(['no-pr']);
    expect(branchBreaches(loop(NIGHT), ev(ENTRIES.slice(0, 1)), [])).toEqual([]);
  });

  it('no-op-after-commit only for a commit inside the NO-OP phase\'s window', () => {
    const noop = [NIGHT[0]!, phase('remediate', 'no-op', `${DAY}T01:00:00Z`, `${DAY}T03:00:00Z`), NIGHT[2]!];
    expect(branchBreaches(loop(noop), ev(ENTRIES), [pr(88, null)]).map((b) => b.kind)).toEqual(['no-op-after-commit']);
    const before = [phase('audit', 'no-op', `${DAY}T00:00:00Z`, `${DAY}T00:40:00Z`), ...NIGHT.slice(1)];
    expect(branchBreaches(loop(before), ev(ENTRIES), [pr(88, null)])).toEqual([]);
  });

  it('kept by cycle: a moved night is one look at its branch; new PRs or a new read of the reflogs look at every night again', () => {
    const days = Array.from({ length: 30 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`);
    const night = (d: string) => ({ date: d, status: 'ok' as const, phases: NIGHT.map((p) => ({ ...p, startedAt: p.startedAt.replace(DAY, d), endedAt: p.endedAt?.replace(DAY, d) ?? null })) });
    const entriesOf = (d: string) => ENTRIES.map((e) => ({ ...e, at: e.at.replace(DAY, d) }));
    const looked: string[] = [];
    const counting: BranchEvidence = { ...ev([]), entries: (d) => (looked.push(d), entriesOf(d)) };
    const state = (cycles: LoopState['cycles']): LoopState => ({ name: 'reliability', host: 'runner', deadman: null, cycles });
    const prs = days.slice(1).map((d, i) => ({ ...pr(100 + i, `reliability/${d}`), cycle: d }));
    const kept = new BranchBreaches();

    const first = state(days.map(night));
    const all = kept.of(first, counting, prs, 1);
    expect(all.map((b) => `${b.kind} ${b.date}`)).toEqual([`no-pr ${days[0]}`]);
    expect(new Set(looked)).toEqual(new Set(days));

    // Tonight moved (a new object), the other nights are the same objects: one look, the same answer.
    looked.length = 0;
    const moved = state([...first.cycles.slice(0, -1), night(days.at(-1) ?? '')]);
    expect(kept.of(moved, counting, prs, 1)).toEqual(all);
    expect(new Set(looked)).toEqual(new Set([days.at(-1)]));

    // Nothing moved: no look at all.
    looked.length = 0;
    kept.of(moved, counting, prs, 1);
    expect(looked).toEqual([]);

    // A PR list that changed (its first night's PR came), or a read that moved the reflogs: every night again.
    const withFirst = [...prs, { ...pr(99, `reliability/${days[0]}`), cycle: days[0] ?? null }];
    expect(kept.of(moved, counting, withFirst, 1)).toEqual([]);
    expect(new Set(looked)).toEqual(new Set(days));
    looked.length = 0;
    kept.of(moved, counting, withFirst, 2);
    expect(new Set(looked)).toEqual(new Set(days));
    // And what it keeps is what a derive from nothing gives.
    expect(kept.of(moved, counting, prs, 3)).toEqual(branchBreaches(moved, counting, prs));
  });
});
