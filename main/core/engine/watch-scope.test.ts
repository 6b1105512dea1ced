import { describe, expect, it } from 'vitest';
import type { FileSource } from '../sources/file-source';
import { FULL_POLL_EVERY, FULL_POLL_GAP, WatchScope } from './watch-scope';

/** A source whose watcher is always alive and never reports: only the safety net reads it. */
const watchingSource = { watching: () => true, watch: () => undefined } as unknown as FileSource;

/** For `hosts` hosts, the hosts read whole on each of `polls` timer polls. */
function fullReads(hosts: number, polls: number): string[][] {
  const names = Array.from({ length: hosts }, (_, i) => `h${i}`);
  const scope = new WatchScope(() => names.map((n) => [n, watchingSource] as const), () => undefined);
  scope.update(new Map(names.map((n) => [n, new Set([`/runs/${n}`])])));
  const out: string[][] = [];
  for (let p = 0; p < polls; p++) {
    const scopeOf = scope.begin('timer');
    out.push(names.filter((n) => Object.keys(scopeOf(n)).length === 0));
  }
  return out;
}

describe('the safety net of the watchers (a whole read whatever they said)', () => {
  it('reads each host whole once every FULL_POLL_EVERY timer polls, their turns spread apart', () => {
    const reads = fullReads(3, 30);
    for (const h of ['h0', 'h1', 'h2']) expect(reads.filter((r) => r.includes(h))).toHaveLength(30 / FULL_POLL_EVERY);
    expect(Math.max(...reads.map((r) => r.length))).toBe(1);
  });

  it('past a few hosts, reads one host whole every FULL_POLL_GAP timer polls, each in its turn: the cost does not grow with the fleet', () => {
    const reads = fullReads(100, 200 * FULL_POLL_GAP);
    expect(reads.every((r) => r.length <= 1)).toBe(true);
    expect(reads.filter((r) => r.length === 1)).toHaveLength(200);
    // The turns are evenly spaced: a host every FULL_POLL_GAP polls, never two polls in a row.
    const first = reads.findIndex((x) => x.length === 1);
    expect(first).toBeLessThan(FULL_POLL_GAP);
    reads.forEach((r, i) => expect(r.length, `poll ${i}`).toBe(i >= first && (i - first) % FULL_POLL_GAP === 0 ? 1 : 0));
    const counts = new Map<string, number>();
    for (const r of reads) for (const h of r) counts.set(h, (counts.get(h) ?? 0) + 1);
    expect(counts.size).toBe(100);
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
  });

  it('reads everything on a poll with no reason (a person, a test), and only what a watcher named on a woken one', () => {
    const scope = new WatchScope(() => [['h0', watchingSource] as const], () => undefined);
    scope.update(new Map([['h0', new Set(['/runs/h0'])]]));
    expect(scope.begin(null)('h0')).toEqual({});
    expect(scope.begin('wake')('h0')).toEqual({ quiet: true });
  });
});

describe('WatchScope.update', () => {
  it('asks a source about the same list while its folders stay the same, and watches again only when they move', () => {
    const asked: (readonly string[])[] = [];
    const watched: (readonly string[])[] = [];
    const source = { watching: (dirs: readonly string[]) => (asked.push(dirs), true), watch: (dirs: readonly string[]) => void watched.push(dirs) } as unknown as FileSource;
    const scope = new WatchScope(() => [['h0', source] as const], () => undefined);
    scope.update(new Map([['h0', new Set(['/runs', '/runs/d1'])]]));
    expect(watched).toEqual([['/runs', '/runs/d1']]);
    // The same folders (in a new set each poll, in another order): the list asked about is the one watched.
    for (let i = 0; i < 3; i++) scope.update(new Map([['h0', new Set(['/runs/d1', '/runs'])]]));
    expect(watched).toHaveLength(1);
    expect(asked.slice(-3).every((l) => l === asked.at(-1))).toBe(true);
    scope.update(new Map([['h0', new Set(['/runs', '/runs/d2'])]]));
    expect(watched.at(-1)).toEqual(['/runs', '/runs/d2']);
  });
});
