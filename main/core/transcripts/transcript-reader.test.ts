import { existsSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { followOnce, MAX_LINE_BYTES } from '../follow/line-follower';
import { transcriptParser } from './transcript-parser';
import type { FileSource } from '../sources/file-source';
import { SshSource } from '../sources/ssh-source';
import type { SshHost } from '../ssh/ssh-host';
import { INDEX_EVERY } from '../store/line-index';
import { Store } from '../store/store';
import { transcriptMark } from './transcript-marks';
import { TranscriptReader } from './transcript-reader';
import { searchOnHost, TranscriptSearchError } from './transcript-search';

/** Counts the bytes `read` brings, apart from the reader's own count. */
function counting(inner: FileSource): FileSource & { bytes: number } {
  const c = {
    bytes: 0,
    host: inner.host,
    stat: (p: string) => inner.stat(p),
    list: (p: string) => inner.list(p),
    read: async (p: string, o: number, l: number) => {
      const got = await inner.read(p, o, l);
      c.bytes += got.length;
      return got;
    },
  };
  return c;
}

const LINES = 40_000;
const LONG_AT = 15_000;
const NEEDLES = [5_000, 22_222, 39_000];

/** Line n of the generated transcript, as bytes (without its newline). */
function lineBytes(n: number): Buffer {
  if (n === LONG_AT) return Buffer.alloc(2 * 1024 * 1024, 'L');
  if (n % 1000 === 7) return Buffer.concat([Buffer.from(`line ${n} bad `), Buffer.from([0xff, 0xfe, 0x00, 0x41])]);
  const needle = NEEDLES.includes(n) ? ' Needle-' + n : '';
  return Buffer.from(`line ${n} \x1b[32mok\x1b[0m step ${n % 97}\tpadding padding${needle}`);
}

function transcript(lines: number): Buffer {
  const parts: Buffer[] = [];
  for (let n = 1; n <= lines; n++) parts.push(lineBytes(n), Buffer.from('\n'));
  return Buffer.concat(parts);
}

describe('reading and searching a transcript over a real OpenSSH sshd', () => {
  let sshd: TestSshd;
  let dir: string;
  let store: Store;
  let host: SshHost;
  let source: SshSource;
  let path: string;

  const follow = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) {
      const out = await followOnce(source, store, path, transcriptParser, { indexEvery: INDEX_EVERY, marker: transcriptMark });
      if (!out.more) break;
    }
  };

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'loopdeck-transcript-'));
    store = Store.open(join(dir, 'loopdeck.db'));
    host = await connectTestHost(sshd, store);
    source = new SshSource('runner', host.connection);
    path = join(dir, 'remediate.log');
    writeFileSync(path, transcript(LINES));
    await follow();
  }, 60_000);

  afterAll(async () => {
    host?.connection.close();
    store?.close();
    await sshd?.stop();
  });

  const file = (src: FileSource = source) => ({ host: 'runner', path, source: src });
  const shownBytes = (rows: readonly { text: string }[]): number => rows.reduce((s, r) => s + Buffer.byteLength(r.text) + 1, 0);

  it('jumps to a line in the middle with one seek and a bounded read', async () => {
    const src = counting(source);
    const out = await new TranscriptReader(store).lines(file(src), { line: 30_123 }, 200);
    expect(out?.lines).toBe(LINES);
    expect(out?.rows.map((r) => r.n)).toEqual(Array.from({ length: 200 }, (_, i) => 30_123 + i));
    expect(out?.rows[0]?.text).toBe(lineBytes(30_123).toString('utf8'));
    expect(out?.size).toBe(statSync(path).size);
    expect(src.bytes).toBe(out?.bytesRead);
    expect(src.bytes).toBeLessThanOrEqual(4 * shownBytes(out?.rows ?? []));
  });

  it('opens on the last lines, and at 50 %', async () => {
    const reader = new TranscriptReader(store);
    const end = await reader.lines(file(), 'end', 200);
    expect(end?.rows.at(-1)).toEqual({ n: LINES, text: lineBytes(LINES).toString('utf8'), cut: false });
    expect(end?.rows[0]?.n).toBe(LINES - 199);
    expect(end?.bytesRead).toBeLessThanOrEqual(4 * shownBytes(end?.rows ?? []));
    const half = await reader.lines(file(), { fraction: 0.5 }, 100);
    expect(half?.rows[0]?.n).toBe(1 + Math.round(0.5 * (LINES - 100)));
    expect(half?.rows[0]?.text).toBe(lineBytes(half?.rows[0]?.n ?? 0).toString('utf8'));
  });

  it('keeps invalid UTF-8 as U+FFFD and NUL bytes as U+0000', async () => {
    const out = await new TranscriptReader(store).lines(file(), { line: 2_007 }, 1);
    expect(out?.rows[0]?.text).toBe('line 2007 bad \ufffd\ufffd\u0000A');
  });

  it('shows a 2 MiB line cut at 1 MiB, and the line after it, without reading the rest', async () => {
    const src = counting(source);
    const out = await new TranscriptReader(store).lines(file(src), { line: LONG_AT - 1 }, 3);
    expect(out?.rows.map((r) => [r.n, r.cut, r.text.length])).toEqual([
      [LONG_AT - 1, false, lineBytes(LONG_AT - 1).length],
      [LONG_AT, true, MAX_LINE_BYTES],
      [LONG_AT + 1, false, lineBytes(LONG_AT + 1).length],
    ]);
    expect(src.bytes).toBeLessThanOrEqual(4 * shownBytes(out?.rows ?? []));
  });

  it('searches on the host: three hits, a regex, the case toggle', async () => {
    const plain = await searchOnHost(host.connection, 'runner', path, { query: 'Needle-', regex: false, ignoreCase: false, maxHits: 1000 });
    expect(plain).toMatchObject({ total: 3, truncated: false, timedOut: false });
    expect(plain.hits.map((h) => h.n)).toEqual(NEEDLES);
    expect(plain.hits[0]?.text).toBe(lineBytes(NEEDLES[0] ?? 0).toString('utf8'));
    const regex = await searchOnHost(host.connection, 'runner', path, { query: 'Needle-2+$', regex: true, ignoreCase: false, maxHits: 1000 });
    expect(regex.hits.map((h) => h.n)).toEqual([22_222]);
    expect((await searchOnHost(host.connection, 'runner', path, { query: 'needle-', regex: false, ignoreCase: false, maxHits: 1000 })).total).toBe(0);
    expect((await searchOnHost(host.connection, 'runner', path, { query: 'needle-', regex: false, ignoreCase: true, maxHits: 1000 })).total).toBe(3);
    const capped = await searchOnHost(host.connection, 'runner', path, { query: 'padding', regex: false, ignoreCase: false, maxHits: 10 });
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.hits).toHaveLength(10);
  });

  it('takes a hostile query as data, never as shell code', async () => {
    const marker = join(dir, 'pwned');
    for (const query of [`'; touch ${marker}; '`, `$(touch ${marker})`, `\`touch ${marker}\``, '-e', '--version', '\\', '"', `' -f /etc/passwd '`, '*', '-', '--']) {
      const out = await searchOnHost(host.connection, 'runner', path, { query, regex: false, ignoreCase: false, maxHits: 5 });
      expect(out.hits.every((h) => h.text.includes(query))).toBe(true);
    }
    expect(existsSync(marker)).toBe(false);
    await expect(searchOnHost(host.connection, 'runner', path, { query: 'a(', regex: true, ignoreCase: false, maxHits: 5 })).rejects.toThrow(TranscriptSearchError);
    // Twelve searches one after another, each a session through the account's login shell (1.5 s
    // each here with pyenv in root's .bashrc): more than the default minute on a loaded machine.
  }, 120_000);

  it('sees truncation and replacement while open, and a deleted file', async () => {
    const reader = new TranscriptReader(store);
    const before = await reader.lines(file(), 'end', 5);
    writeFileSync(path, 'after truncation 1\nafter truncation 2\n');
    const truncated = await reader.lines(file(), 'end', 5);
    expect(truncated?.ino).toBe(before?.ino);
    expect(truncated?.size).toBeLessThan(before?.size ?? 0);
    expect(truncated?.rows).toEqual([
      { n: 1, text: 'after truncation 1', cut: false },
      { n: 2, text: 'after truncation 2', cut: false },
    ]);
    const other = join(dir, 'replacement.log');
    writeFileSync(other, 'replaced 1\r\nreplaced 2\n');
    renameSync(other, path);
    const replaced = await reader.lines(file(), { line: 1 }, 10);
    expect(replaced?.ino).not.toBe(before?.ino);
    expect(replaced?.rows.map((r) => r.text)).toEqual(['replaced 1', 'replaced 2']);
    // The follower catches up; the index is of the new file.
    await follow();
    expect((await reader.lines(file(), 'end', 1))?.rows).toEqual([{ n: 2, text: 'replaced 2', cut: false }]);
    rmSync(path);
    expect(await reader.lines(file(), 'end', 1)).toBeNull();
    await expect(searchOnHost(host.connection, 'runner', path, { query: 'x', regex: false, ignoreCase: false, maxHits: 5 })).rejects.toThrow(/does not exist/);
  });
});
