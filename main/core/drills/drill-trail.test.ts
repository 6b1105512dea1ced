import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../engine/migrations';
import { Store } from '../store/store';
import { DrillRuns } from './drill-runs';
import { DrillService } from './drill-service';

const dirs: string[] = [];
const stores: Store[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(file: string): Store {
  const s = Store.open(file);
  stores.push(s);
  return s;
}

/** A run as another process (`loopdeck drill run`) records it, through its own connection. */
function recordElsewhere(store: Store, id: string, startedAt: string): void {
  new DrillRuns(store).insert({ id, drill: 'echo', host: 'runner', args: '{}', user: 'ops', startedAt, override: false, dir: `/tmp/${id}` });
}

describe('the drills audit trail', () => {
  it('is read from SQLite once while nothing changed, and again when another process records a run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-drill-trail-'));
    dirs.push(dir);
    const file = join(dir, 'loopdeck.db');
    const mine = open(file);
    const other = open(file);
    const service = new DrillService({ store: mine, drills: {}, hostFor: () => null, runningPhaseOn: () => null, onRunsChanged: () => {}, onOutput: () => {} });
    const reads = vi.spyOn(DrillRuns.prototype, 'newest');

    expect(service.runs()).toEqual([]);
    for (let i = 0; i < 20; i += 1) service.runs();
    // The notices ask on every poll: one read, not twenty-one.
    expect(reads).toHaveBeenCalledTimes(1);

    recordElsewhere(other, 'r1', '2026-12-08T01:00:00.000Z');
    // A commit by another connection is seen within the store's look-again interval (2 ms).
    await vi.waitFor(() => expect(service.runs().map((r) => r.id)).toEqual(['r1']), { timeout: 5000, interval: 5 });
    const after = reads.mock.calls.length;
    for (let i = 0; i < 20; i += 1) service.runs();
    expect(reads).toHaveBeenCalledTimes(after);

    recordElsewhere(other, 'r2', '2026-12-08T02:00:00.000Z');
    await vi.waitFor(() => expect(service.runs().map((r) => r.id)).toEqual(['r2', 'r1']), { timeout: 5000, interval: 5 });
    // Another limit is another question.
    expect(service.runs(1).map((r) => r.id)).toEqual(['r2']);
  });
});
