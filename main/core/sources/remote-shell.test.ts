import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeNamed } from '../../../testing/hostile-names';
import { dirsScript, listScript, parseListingLine } from './remote-shell';

/** The programs a listing may run, each wrapped to log its name to `log` before it runs the real one. */
const PROGRAMS = ['stat', 'od', 'tr', 'awk', 'printf', 'cat', 'head', 'tail'];

function shims(): { bin: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-shims-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'calls');
  writeFileSync(log, '');
  for (const p of PROGRAMS) {
    const real = execFileSync('sh', ['-c', `command -v ${p}`], { encoding: 'utf8' }).trim();
    if (!real.startsWith('/')) continue; // a builtin of sh
    writeFileSync(join(bin, p), `#!/bin/sh\necho ${p} >> ${JSON.stringify(log)}\nexec ${real} "$@"\n`);
    chmodSync(join(bin, p), 0o755);
  }
  return { bin, log };
}

/** A folder of `odd` files and `odd` folders whose names are not plain, and a few plain ones. */
function folder(odd: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-odd-'));
  for (let i = 0; i < odd; i++) {
    writeNamed(dir, Buffer.from(`f\x01${i}\nx`), `${i}\n`);
    writeNamed(dir, Buffer.from(`d\t${i}é`), null);
  }
  for (const n of ['audit.status', 'remediate.log', 'a b']) writeFileSync(join(dir, n), 'x\n');
  mkdirSync(join(dir, '2026-11-29'));
  return dir;
}

/** Run a script in sh (as sshd runs it), with the shims first on PATH: its output, and the programs it ran. */
function run(script: string): { out: string; calls: string[] } {
  const { bin, log } = shims();
  const out = execFileSync('sh', ['-c', script], { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` }, encoding: 'latin1' });
  return { out, calls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('listing a folder over the shell', () => {
  it('runs as many programs for a hundred names that are not plain as for ten (not three each)', () => {
    const ten = run(listScript(folder(10)));
    const hundred = run(listScript(folder(100)));
    expect(hundred.calls.sort()).toEqual(ten.calls.sort());
    expect(hundred.calls.length).toBeLessThan(10);
    const dirsTen = run(dirsScript(folder(10)));
    const dirsHundred = run(dirsScript(folder(100)));
    expect(dirsHundred.calls.sort()).toEqual(dirsTen.calls.sort());
  });

  it('gives back every name, plain or not, with its stat, each as its bytes', () => {
    const dir = folder(20);
    const lines = run(listScript(dir)).out.split('\n').filter(Boolean);
    const parsed = lines.map(parseListingLine);
    expect(parsed.every((p) => p !== null)).toBe(true);
    const names = parsed.map((p) => (p && 'bytes' in p ? p.bytes.toString('utf8') : (p?.name ?? ''))).sort();
    const expected = [...Array.from({ length: 20 }, (_, i) => [`f\x01${i}\nx`, `d\t${i}é`]).flat(), 'audit.status', 'remediate.log', 'a b', '2026-11-29'].sort();
    expect(names).toEqual(expected);
    for (const p of parsed) {
      if (!p || !('bytes' in p)) continue;
      const name = p.bytes.toString('utf8');
      expect(p.stat?.kind).toBe(name.startsWith('d') ? 'directory' : 'file');
      if (name.startsWith('f')) expect(p.stat?.size).toBe(`${name.slice(2, -2)}\n`.length);
    }
    const dirs = run(dirsScript(dir)).out.split('\n').filter(Boolean);
    const dirNames = dirs.map((l) => (l.startsWith('x') ? Buffer.from(l.slice(1), 'hex').toString('utf8') : l.slice(1))).sort();
    expect(dirNames).toEqual([...Array.from({ length: 20 }, (_, i) => `d\t${i}é`), '2026-11-29'].sort());
  });

  it('still stats each name when one went between the folder read and the stat', () => {
    // The names' stat lines no longer line up with the names: each is asked alone, the gone one with no stat.
    const dir = folder(3);
    const script = listScript(dir).replace(/ ox "\$@";/, ` rm -f "$(printf 'f\\0011\\nx')"; ox "$@";`);
    expect(script).not.toBe(listScript(dir));
    const parsed = run(script).out.split('\n').filter(Boolean).map(parseListingLine);
    const gone = parsed.find((p) => p && 'bytes' in p && p.bytes.toString('utf8') === 'f\x011\nx');
    expect(gone).toEqual({ bytes: Buffer.from('f\x011\nx'), stat: null });
    const kept = parsed.find((p) => p && 'bytes' in p && p.bytes.toString('utf8') === 'f\x012\nx');
    expect(kept && 'bytes' in kept ? kept.stat?.size : null).toBe(2);
  });
});
