import type { BacklogItem, Finding } from '../../../shared/domain';
import { findingFacets, searchKeys } from '../features/findings/findings';
import type { DeckData } from './reducers';

// Derived data, memoised on the identity of the array it derives from: the arrays are replaced
// whole by their events, so an unchanged array is never derived twice.

function memoOne<A extends object, R>(fn: (a: A) => R): (a: A) => R {
  let last: A | undefined;
  let result: R | undefined;
  return (a) => {
    if (a !== last) {
      result = fn(a);
      last = a;
    }
    return result as R;
  };
}

const backlogIndex = memoOne((backlog: readonly BacklogItem[]) => new Map(backlog.map((b) => [b.id, b])));
const findingIndex = memoOne((findings: readonly Finding[]) => new Map(findings.map((f) => [f.id, f])));
const keysOf = memoOne(searchKeys);
const facetsOf = memoOne(findingFacets);

/** Backlog items by REL id. */
export const selectBacklogById = (s: DeckData): ReadonlyMap<string, BacklogItem> => backlogIndex(s.backlog);

/** Findings by id. */
export const selectFindingById = (s: DeckData): ReadonlyMap<string, Finding> => findingIndex(s.findings);

/** The lower-cased haystacks of the free-text filter, index for index with `findings`. */
export const selectSearchKeys = (s: DeckData): readonly string[] => keysOf(s.findings);

/** The same haystacks for a findings array, built when a text filter first needs them. */
export const searchKeysOf = (findings: readonly Finding[]): readonly string[] => keysOf(findings);

/** Distinct loops, sections and categories of the findings. */
export const selectFindingFacets = (s: DeckData): { loops: string[]; sections: string[]; categories: string[] } => facetsOf(s.findings);

/** When the operator last reviewed the findings (null: never, so nothing is marked new). */
export const selectLastReviewedAt = (s: DeckData): string | null => s.lastReviewedAt;

const openCount = memoOne((findings: readonly Finding[]) => findings.reduce((n, f) => (f.status === 'open' ? n + 1 : n), 0));

/** How many findings are open. */
export const selectOpenFindingCount = (s: DeckData): number => openCount(s.findings);
