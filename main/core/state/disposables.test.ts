import { describe, expect, it } from 'vitest';
import { Disposables } from './disposables';

describe('Disposables', () => {
  it('undoes the newest first, one after another, and every step though one throws', async () => {
    const done: string[] = [];
    const d = new Disposables();
    d.add(() => void done.push('store'));
    d.add(async () => {
      await new Promise((r) => setImmediate(r));
      done.push('engine');
      throw new Error('engine would not close');
    });
    d.add(() => void done.push('exporter'));
    await expect(d.dispose()).rejects.toThrow('engine would not close');
    expect(done).toEqual(['exporter', 'engine', 'store']);
    // A second dispose runs nothing again.
    await d.dispose().catch(() => undefined);
    expect(done).toEqual(['exporter', 'engine', 'store']);
  });
});
