import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../ssh/line-splitter';
import type { FileStat } from './file-source';
import { MAX_STREAMED_BYTES, MAX_STREAMED_FILE_BYTES, StreamedBytes } from './streamed-bytes';
import { parseWatchLine } from './watch-frames';

const stat = (ino: string, size: number): FileStat => ({ ino, size, mtimeMs: 1000, birthtimeMs: null, kind: 'file', isDirectory: false });
const b = (s: string): Buffer => Buffer.from(s);

describe('StreamedBytes', () => {
  it('answers a stat once and a read only for a range it holds whole', () => {
    const s = new StreamedBytes();
    s.add('/r/d/a.log', stat('7', 10), 4, b('efghij'));
    expect(s.takeStat('/r/d/a.log')?.size).toBe(10);
    expect(s.takeStat('/r/d/a.log')).toBeNull(); // the next stat asks the host
    expect(s.read('/r/d/a.log', 2, 4)).toBeNull(); // starts before what was streamed
    expect(s.read('/r/d/a.log', 6, 5)).toBeNull(); // runs past it
    expect(s.read('/r/d/a.log', 6, 4)?.toString()).toBe('ghij');
  });

  it('joins frames that continue each other and keeps the new one alone when their bytes disagree', () => {
    const s = new StreamedBytes();
    s.add('/a', stat('7', 6), 0, b('abcdef'));
    s.add('/a', stat('7', 9), 4, b('efghi')); // repeats "ef" before the previous end
    expect(s.read('/a', 0, 9)?.toString()).toBe('abcdefghi');
    const t = new StreamedBytes();
    t.add('/a', stat('7', 6), 0, b('abcdef'));
    t.add('/a', stat('7', 9), 4, b('XYghi')); // rewritten in place
    expect(t.read('/a', 0, 9)).toBeNull();
    expect(t.read('/a', 4, 5)?.toString()).toBe('XYghi');
  });

  it('stops answering once a request saw the file replaced, truncated or further on', () => {
    const s = new StreamedBytes();
    s.add('/a', stat('7', 10), 0, b('0123456789'));
    s.saw('/a', stat('7', 12)); // a listing that saw more: its stat is newer than the frame's
    expect(s.takeStat('/a')).toBeNull();
    expect(s.read('/a', 5, 5)?.toString()).toBe('56789'); // the bytes are still those of inode 7
    s.saw('/a', stat('8', 3)); // replaced
    expect(s.read('/a', 9, 1)).toBeNull();
    s.add('/b', stat('1', 4), 0, b('abcd'));
    s.saw('/b', stat('1', 2)); // truncated
    expect(s.read('/b', 0, 2)).toBeNull();
    s.add('/c', stat('1', 4), 0, b('abcd'));
    s.saw('/c', null); // gone
    expect(s.size).toBe(0);
  });

  it('holds at most its bounds, letting go of what a read took', () => {
    const s = new StreamedBytes();
    const big = Buffer.alloc(MAX_STREAMED_FILE_BYTES + 100, 0x61);
    s.add('/a', stat('1', big.length), 0, big);
    expect(s.size).toBe(MAX_STREAMED_FILE_BYTES);
    expect(s.read('/a', 0, 10)).toBeNull(); // the oldest bytes went
    for (let i = 0; i < 12; i++) s.add(`/f${i}`, stat('1', MAX_STREAMED_FILE_BYTES), 0, Buffer.alloc(MAX_STREAMED_FILE_BYTES));
    expect(s.size).toBeLessThanOrEqual(MAX_STREAMED_BYTES);
    expect(s.read('/f11', 0, 1)).not.toBeNull(); // the newest stay
    expect(s.read('/f0', 0, 1)).toBeNull();
    const t = new StreamedBytes();
    t.add('/a', stat('1', 1000), 0, Buffer.alloc(1000));
    t.read('/a', 0, 1000);
    expect(t.size).toBe(64); // kept for the next read's check of the bytes before its offset
  });
});

describe('parseWatchLine', () => {
  it('reads frames, changes, heartbeats, and takes anything malformed as `changed`', () => {
    const grew = parseWatchLine(`+3 ${b('defg').toString('base64')} 12|7|1700000000|0|regular file|/r/d/x y|z.log`);
    expect(grew).toMatchObject({ kind: 'grew', path: '/r/d/x y|z.log', from: 3, stat: { ino: '12', size: 7 } });
    expect(grew.kind === 'grew' && grew.bytes.toString()).toBe('defg');
    expect(parseWatchLine('~12|7|1700000000|0|regular file|/r/a.log')).toMatchObject({ kind: 'touched', path: '/r/a.log' });
    expect(parseWatchLine('.')).toEqual({ kind: 'beat' });
    expect(parseWatchLine('changed')).toEqual({ kind: 'changed' });
    expect(parseWatchLine('+3 ZGVmZw')).toEqual({ kind: 'changed' }); // cut short
    expect(parseWatchLine('+3 !!! 12|7|1700000000|0|regular file|/r/a')).toEqual({ kind: 'changed' });
    // Fewer bytes than the sizes say (truncated between listing and read): not trusted as bytes.
    expect(parseWatchLine(`+3 ${b('de').toString('base64')} 12|7|1700000000|0|regular file|/r/a`)).toMatchObject({ kind: 'touched' });
  });
});

describe('LineSplitter', () => {
  it('splits lines across chunks, keeps characters split between chunks whole, and cuts a runaway line', () => {
    const lines: string[] = [];
    const s = new LineSplitter(8, (l) => lines.push(l));
    const euro = b('€'); // three bytes
    s.push(Buffer.concat([b('ab'), euro.subarray(0, 1)]));
    s.push(Buffer.concat([euro.subarray(1), b('\nxy')]));
    s.push(b('z\n0123456789abcdef'));
    s.push(b('ghij\nok\n'));
    expect(lines).toEqual(['ab€', 'xyz', '01234567', 'ok']);
  });
});
