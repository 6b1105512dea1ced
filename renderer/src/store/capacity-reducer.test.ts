import { describe, expect, it } from 'vitest';
import type { Capacity } from '../../../shared/domain';
import { snapshot } from '../ui/test-fixtures';
import { emptyDeckData, reduceEvent, withSnapshot } from './reducers';

const NOW = '2026-08-24T07:05:00.000Z';

function cap(host: string, over: Partial<Capacity> = {}): Capacity {
  return {
    proxy: 'crossbar', kind: 'crossbar', host, up: true, since: '2026-08-24T06:00:00.000Z',
    slotsTotal: 4, slotsBusy: 1, inflight: 1, queued: 0, nCtx: 32768, models: [],
    shedThreshold: null, highWater: null, totalShed: null, missing: [], error: null, polledAt: NOW, ...over,
  };
}

describe('capacity in the store', () => {
  it('takes capacity from the snapshot as the same array', () => {
    const capacity = [cap('gpu1'), cap('gpu2')];
    const d = withSnapshot(emptyDeckData, snapshot({ capacity }));
    expect(d.capacity).toBe(capacity);
  });

  it('capacity.changed replaces the hosts whole and stamps updatedAt, leaving the rest alone', () => {
    const base = withSnapshot(emptyDeckData, snapshot({ capacity: [cap('gpu1')] }));
    const next = [cap('gpu1', { up: false, error: 'crossbar: GET http://127.0.0.1:8080/health refused' }), cap('gpu2')];
    const { data, refetch } = reduceEvent(base, 'capacity.changed', { capacity: next }, NOW);
    expect(refetch).toBe(false);
    expect(data.capacity).toBe(next);
    expect(data.updatedAt).toBe(NOW);
    expect(data.loops).toBe(base.loops);
    expect(data.findings).toBe(base.findings);
  });

  it('starts empty', () => {
    expect(emptyDeckData.capacity).toEqual([]);
  });
});
