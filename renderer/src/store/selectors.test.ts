import { describe, expect, it } from 'vitest';
import { backlogItem, finding, snapshot } from '../ui/test-fixtures';
import { emptyDeckData, withSnapshot } from './reducers';
import { selectBacklogItem, selectFinding, selectFindingFacets, selectLastReviewedAt, selectOpenFindingCount, selectSearchKeys } from './selectors';

describe('selectors', () => {
  const data = withSnapshot(
    emptyDeckData,
    snapshot({ findings: [finding('R-1'), finding('R-2', { status: 'done' })], backlog: [backlogItem('REL-1', ['R-1'])] }),
  );

  it('derive once per array, and again when the array is replaced', () => {
    const keys = selectSearchKeys(data);
    expect(selectSearchKeys({ ...data, updatedAt: 'later' })).toBe(keys);
    expect(selectSearchKeys({ ...data, findings: [finding('R-3')] })).not.toBe(keys);
    expect(selectFindingFacets(data)).toBe(selectFindingFacets({ ...data }));
  });

  it('index the backlog by loop and id and count open findings', () => {
    expect(selectBacklogItem(data, 'reliability', 'REL-1')?.findings).toEqual(['R-1']);
    expect(selectBacklogItem(data, 'testing', 'REL-1')).toBeUndefined();
    expect(selectOpenFindingCount(data)).toBe(1);
    expect(selectLastReviewedAt(data)).toBeNull();
  });

  it('tell apart two loops that use the same id, and open an old bare-id link on the first', () => {
    const two = withSnapshot(
      emptyDeckData,
      snapshot({
        findings: [finding('R-1', { text: 'reliability one' }), finding('R-1', { loop: 'testing', text: 'testing one' })],
        backlog: [backlogItem('REL-1', ['R-1']), { ...backlogItem('REL-1', ['R-1']), loop: 'testing', acceptance: 'testing acceptance' }],
      }),
    );
    expect(selectFinding(two, { loop: 'testing', id: 'R-1' })?.text).toBe('testing one');
    expect(selectFinding(two, { loop: 'reliability', id: 'R-1' })?.text).toBe('reliability one');
    expect(selectFinding(two, { loop: null, id: 'R-1' })?.text).toBe('reliability one');
    expect(selectFinding(two, { loop: 'ops', id: 'R-1' })).toBeUndefined();
    expect(selectBacklogItem(two, 'testing', 'REL-1')?.acceptance).toBe('testing acceptance');
  });
});
