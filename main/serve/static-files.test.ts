import { mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATIC_CACHE_MAX_BYTES, STATIC_FILE_MAX_BYTES, StaticFiles } from './static-files';

const dir = (): string => mkdtempSync(join(tmpdir(), 'ld-static-'));

describe("serve's renderer files kept in memory", () => {
  it('answers from memory while the file is unchanged, and reads it again once a rebuild changed it', () => {
    const d = dir();
    const file = join(d, 'index.html');
    writeFileSync(file, '<p>one</p>');
    const files = new StaticFiles();
    const first = files.body(file, statSync(file));
    expect(first?.toString()).toBe('<p>one</p>');
    // Unchanged: the same buffer, not a second read.
    expect(files.body(file, statSync(file))).toBe(first);
    // Same size, newer time (a rebuild writing the same length): read again.
    writeFileSync(file, '<p>two</p>');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(files.body(file, statSync(file))?.toString()).toBe('<p>two</p>');
    // Another size: read again, and the bytes held are the new file's only.
    writeFileSync(file, '<p>three</p>');
    expect(files.body(file, statSync(file))?.toString()).toBe('<p>three</p>');
    expect(files.keptBytes).toBe('<p>three</p>'.length);
  });

  it('streams a file too large to keep, and holds no more than its bound in all', () => {
    const d = dir();
    const big = join(d, 'big.js');
    writeFileSync(big, Buffer.alloc(STATIC_FILE_MAX_BYTES + 1));
    const files = new StaticFiles();
    expect(files.body(big, statSync(big))).toBeNull();
    expect(files.keptBytes).toBe(0);
    // Five files of 7 MB: past 32 MB the oldest are dropped.
    const each = 7 * 1024 * 1024;
    for (let i = 0; i < 5; i++) {
      const f = join(d, `chunk-${i}.js`);
      writeFileSync(f, Buffer.alloc(each, i));
      expect(files.body(f, statSync(f))?.[0]).toBe(i);
      expect(files.keptBytes).toBeLessThanOrEqual(STATIC_CACHE_MAX_BYTES);
    }
    expect(files.keptBytes).toBe(4 * each);
  });
});
