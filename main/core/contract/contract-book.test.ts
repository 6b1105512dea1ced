import { describe, expect, it } from 'vitest';
import type { Cycle, LoopState } from '../../../shared/domain';
import { phase } from '../../../testing/notice-fixtures';
import type { ContractBreach } from '../../../shared/contract-breach';
import { ContractBook, MAX_CONTRACT_BREACHES } from './contract-book';
import type { LoopContractInput } from './loop-breaches';

const paths = { runs: '/runs', layout: { status: '{phase}.status', log: '{phase}.log', rc: '{phase}.{stage}.rc' }, log: '/clone/RELIABILITY_LOG.md' };
const state = (name: string): LoopState => ({ name, host: 'runner', deadman: null, cycles: [] });
const breach = (loop: string, i: number): ContractBreach => ({ kind: 'duplicate-id', loop, date: null, phase: null, id: `R-${String(i).padStart(4, '0')}`, detail: 'twice', since: null, evidence: { file: null, line: i + 1, url: null } });

describe('ContractBook', () => {
  it('derives a loop again only when one of its inputs is a new object, and says when the list moved', () => {
    const book = new ContractBook();
    const more = [breach('a', 1)];
    const input: LoopContractInput = { loop: state('a'), paths, backlog: [], more };
    const first = book.update([input], new Date('2026-11-29T12:00:00Z'));
    expect(first?.map((b) => b.id)).toEqual(['R-0001']);
    // The same objects: nothing derived, nothing published.
    expect(book.update([input], new Date('2026-11-29T12:01:00Z'))).toBeNull();
    // A new but equal list: derived, not published.
    expect(book.update([{ ...input, more: [breach('a', 1)] }], new Date('2026-11-29T12:02:00Z'))).toBeNull();
    // A loop gone from the config leaves the list.
    expect(book.update([], new Date('2026-11-29T12:03:00Z'))).toEqual([]);
  });

  it('gives an item without a `since` the time it was first seen, kept across derivations', () => {
    const book = new ContractBook();
    book.update([{ loop: state('a'), paths, backlog: [], more: [breach('a', 1)] }], new Date('2026-11-29T12:00:00Z'));
    const later = book.update([{ loop: state('a'), paths, backlog: [], more: [breach('a', 1), breach('a', 2)] }], new Date('2026-11-29T13:00:00Z'));
    expect(later?.map((b) => [b.id, b.since])).toEqual([
      ['R-0001', '2026-11-29T12:00:00.000Z'],
      ['R-0002', '2026-11-29T13:00:00.000Z'],
    ]);
  });

  it('is bounded: at most MAX_CONTRACT_BREACHES items, in the list\'s order', () => {
    const book = new ContractBook();
    const more = Array.from({ length: MAX_CONTRACT_BREACHES + 20 }, (_, i) => breach('a', i));
    const list = book.update([{ loop: state('a'), paths, backlog: [], more }], new Date());
    expect(list).toHaveLength(MAX_CONTRACT_BREACHES);
    expect(list?.[0]?.id).toBe('R-0000');
  });

  it('looks again only at the cycles that are new objects: a loop whose tonight moved is not looked through for its year', () => {
    const book = new ContractBook();
    let looks = 0;
    // A night whose remediate is hollow (one breach each), counting the looks at its phases.
    const night = (date: string, items: string[]): Cycle => {
      const phases = [phase('remediate', 'ok', { hollow: { items }, endedAt: null })]; // no end stamp: each item is dated when first seen
      return Object.defineProperty({ date, status: 'ok' }, 'phases', { enumerable: true, get: () => ((looks += 1), phases) }) as Cycle;
    };
    const year = Array.from({ length: 365 }, (_, i) => night(new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10), ['REL-1'])).reverse();
    const input = (cycles: Cycle[]): LoopContractInput => ({ loop: { ...state('a'), cycles }, paths, backlog: [], more: [] });
    const before = book.update([input(year)], new Date('2027-01-01T07:00:00Z'));
    expect(before).toHaveLength(365);
    expect(looks).toBe(365);
    looks = 0;
    const tonight = night(year[0]?.date ?? '', ['REL-1', 'REL-2']);
    const list = book.update([input([tonight, ...year.slice(1)])], new Date('2027-01-01T07:01:00Z'));
    expect(looks).toBe(1);
    expect(list).toHaveLength(365);
    expect(list?.find((b) => b.date === tonight.date)?.detail).toContain('REL-1, REL-2');
    // The other nights' items are the objects they were: nothing made again, compared by identity.
    const kept = (l: typeof list) => (l ?? []).filter((b) => b.date !== tonight.date);
    expect(kept(list).every((b, i) => b === kept(before)[i])).toBe(true);
  });
});

