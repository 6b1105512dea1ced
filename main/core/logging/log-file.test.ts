import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs } from '../../../testing/tmpfs';
import { LOG_RETRY_MS, LogFile } from './log-file';

describe('LogFile on a data folder that cannot take it', () => {
  let full: Tmpfs;
  let readOnly: Tmpfs;
  beforeAll(() => {
    full = mountTmpfs(256 * 1024);
    readOnly = mountTmpfs(256 * 1024, { readOnly: true });
  });
  afterAll(() => {
    full?.unmount();
    readOnly?.unmount();
  });

  it('says once that a read-only folder cannot be written, not once a line, and never throws', () => {
    const reports: string[] = [];
    const file = new LogFile(join(readOnly.dir, 'logs', 'loopdeck.log'), { maxBytes: 1e6, files: 2, report: (l) => reports.push(l) });
    for (let i = 0; i < 10; i++) expect(file.append(`line ${i}\n`)).toBe(false);
    expect(reports).toEqual([
      `cannot write ${join(readOnly.dir, 'logs', 'loopdeck.log')}: EROFS: read-only file system, mkdir '${join(readOnly.dir, 'logs')}'; logging warnings and errors to stderr only, and trying the file again every 60 s.`,
    ]);
  });

  it('on a full folder: says so once, leaves the file alone, and writes again on its own once there is room, losing no later line', () => {
    let now = 0;
    const reports: string[] = [];
    const path = join(full.dir, 'logs', 'loopdeck.log');
    const file = new LogFile(path, { maxBytes: 1e6, files: 2, report: (l) => reports.push(l), now: () => now });
    expect(file.append('before\n')).toBe(true);
    const unfill = full.fill();
    const long = `${'x'.repeat(64 * 1024)}\n`;
    expect(file.append(long)).toBe(false);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^cannot write .*loopdeck\.log: ENOSPC: no space left on device/);
    unfill();
    // Not tried again before LOG_RETRY_MS, although there is room now.
    now += LOG_RETRY_MS - 1;
    expect(file.append('too soon\n')).toBe(false);
    now += 1;
    expect(file.append('after\n')).toBe(true);
    expect(reports).toEqual([reports[0], `writing ${path} again.`]);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[0]).toBe('before');
    // A line torn by the full disk is ended, so the next one starts a line of its own.
    expect(lines.at(-2)).toBe('after');
    expect(lines).not.toContain('too soon');
  });
});
