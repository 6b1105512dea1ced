import { describe, expect, it } from 'vitest';
import type { FileStat } from './file-source';
import { MAX_SEEN_PATHS, SeenStats } from './seen-stats';

const file = (ino: number, size: number, mtime = 1_700_000_000): FileStat => ({ ino: String(ino), size, mtimeMs: mtime * 1000, birthtimeMs: null, kind: 'file', isDirectory: false });
const folder = (ino: number, mtime = 1_700_000_000): FileStat => ({ ino: String(ino), size: 4096, mtimeMs: mtime * 1000, birthtimeMs: null, kind: 'directory', isDirectory: true });
const key = (h: { kind: string; dir: string; name: string | null }): string => `${h.kind} ${h.dir}/${h.name ?? ''}`;

describe('SeenStats: a first listing against what the reads saw', () => {
  it('asks for nothing when nothing moved, and names each thing that did', () => {
    const seen = new SeenStats();
    seen.named('/runs', ['2026-12-01', '2026-12-02']);
    seen.listed('/runs/2026-12-02', [
      { name: 'remediate.log', stat: file(10, 100) },
      { name: 'audit.log', stat: file(11, 50) },
    ]);
    seen.stat('/runs/2026-12-02/deliver.log', null);
    const listing = new Map<string, FileStat>([
      ['/runs/2026-12-01', folder(1, 1_700_000_500)], // its time moved: a names-only listing does not care
      ['/runs/2026-12-02', folder(2)],
      ['/runs/NOTES.md', file(3, 9)], // a file where only folders are read
      ['/runs/2026-12-02/remediate.log', file(10, 100)],
      ['/runs/2026-12-02/audit.log', file(11, 50)],
    ]);
    expect(seen.differences(['/runs', '/runs/2026-12-02'], listing)).toEqual([]);

    listing.set('/runs/2026-12-02/remediate.log', file(10, 140));
    listing.set('/runs/2026-12-02/deliver.log', file(12, 1)); // asked before, and not there then
    listing.delete('/runs/2026-12-02/audit.log');
    listing.set('/runs/2026-12-03', folder(4));
    listing.delete('/runs/2026-12-01');
    expect(seen.differences(['/runs', '/runs/2026-12-02', '/never-read'], listing).map(key).sort()).toEqual(
      ['change /runs/2026-12-02/remediate.log', 'rename /runs/2026-12-02/deliver.log', 'rename /runs/2026-12-02/audit.log', 'rename /runs/2026-12-03', 'rename /runs/2026-12-01', 'rename /never-read/'].sort(),
    );
  });

  it('forgets a file whose read failed, and the oldest folders past its bound', () => {
    const seen = new SeenStats();
    seen.listed('/a', [{ name: 'x.log', stat: file(1, 10) }]);
    seen.unsure('/a/x.log');
    expect(seen.differences(['/a'], new Map([['/a/x.log', file(1, 10)]])).map(key)).toEqual(['rename /a/x.log']);

    seen.listed('/old', [{ name: 'y.log', stat: file(2, 1) }]);
    for (let i = 0; i <= MAX_SEEN_PATHS / 1000; i++) seen.listed(`/big${i}`, Array.from({ length: 1000 }, (_, j) => ({ name: `f${j}`, stat: file(j, 1) })));
    // Forgotten is never read: a change.
    expect(seen.differences(['/old'], new Map([['/old/y.log', file(2, 1)]])).map(key)).toEqual(['rename /old/']);
  });
});
