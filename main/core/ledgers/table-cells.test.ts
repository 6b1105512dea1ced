import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { splitCells } from './table-cells';

/** A full collection, on demand (the flag takes effect for a new context's `gc`). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('splitCells', () => {
  it('splits on unescaped pipes, trims, and unescapes', () => {
    expect(splitCells('| R-1 | P1 | a \\| b |')).toEqual(['R-1', 'P1', 'a | b']);
    expect(splitCells('x | y')).toEqual(['x', 'y']);
  });

  // A follower keeps a year's records (60,000 rows) for as long as it runs. A cell that is a slice
  // of its row keeps the whole line alive: here, a 20 kB column nobody keeps.
  it('gives cells of their own: a kept cell does not keep its row', () => {
    const gc = collector();
    const rows = 1000;
    const wide = 'n'.repeat(20_000);
    const line = (i: number): string => `| R-${i} | web/lib/file-${i}.ts:${i} | the writer stamps it before the write lands (${i}) | ${wide}${i} |`;
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    for (let i = 0; i < rows; i++) {
      const cells = splitCells(line(i));
      kept.push(cells[1] ?? '', cells[2] ?? '');
    }
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    expect(kept[1]).toBe('the writer stamps it before the write lands (0)');
    // The kept cells are ~70 bytes a row; their rows would be 20 MB.
    expect(retained).toBeLessThan(2_000_000);
  });
});
