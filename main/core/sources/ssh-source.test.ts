import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../testing/until';
import type { WatchHint } from './file-source';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { followOnce } from '../follow/line-follower';
import { statusFileParser } from '../loops/status-file';
import type { SshHost } from '../ssh/ssh-host';
import { Store } from '../store/store';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { parseFileType, parseStatLine } from './remote-shell';
import { SshSource } from './ssh-source';
import { LocalSource } from './local-source';
import { hostileNames, writeNamed } from '../../../testing/hostile-names';

describe('parseFileType', () => {
  it.each([
    ['regular file', 'file'],
    ['regular empty file', 'file'],
    ['Regular File', 'file'],
    ['directory', 'directory'],
    ['Directory', 'directory'],
    ['fifo', 'fifo'],
    ['FIFO File', 'fifo'],
    ['socket', 'socket'],
    ['Socket', 'socket'],
    ['character special file', 'device'],
    ['Character Device', 'device'],
    ['block special file', 'device'],
    ['Block Device', 'device'],
    ['symbolic link', 'broken-link'],
    ['weird new thing', 'other'],
  ] as const)('reads %j as %s (GNU %%F and BSD %%HT)', (type, kind) => {
    expect(parseFileType(type)).toBe(kind);
    expect(parseStatLine(`12|0|1700000000|0|${type}|x`)?.stat.kind).toBe(kind);
  });
});

describe('SshSource over a real OpenSSH sshd', () => {
  let sshd: TestSshd;
  let store: Store;
  let host: SshHost;
  let source: SshSource;
  let dir: string;

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'loopdeck-remote-kinds-'));
    store = Store.open(join(dir, 'loopdeck.db'));
    host = await connectTestHost(sshd, store);
    source = new SshSource('runner', host.connection);
  }, 30_000);

  afterAll(async () => {
    host?.connection.close();
    store?.close();
    await sshd?.stop();
  });

  it('stats and lists file kinds, following symbolic links', async () => {
    const day = join(dir, 'day');
    mkdirSync(day);
    writeFileSync(join(day, 'audit.status'), 'x\n');
    execFileSync('mkfifo', [join(day, 'deliver.log')]);
    execFileSync('ln', ['-s', 'audit.status', join(day, 'audit.log')]);
    mkdirSync(join(day, 'sub'));
    expect((await source.stat(join(day, 'deliver.log')))?.kind).toBe('fifo');
    expect((await source.stat(join(day, 'audit.log')))?.kind).toBe('file');
    const kinds = Object.fromEntries(((await source.list(day))?.entries ?? []).map((e) => [e.name, e.stat.kind]));
    expect(kinds).toEqual({ 'audit.status': 'file', 'audit.log': 'file', 'deliver.log': 'fifo', sub: 'directory' });
  });

  it('lists names of every byte 1-255 as the local source does: the followed ones by name, the others refused by their bytes', async () => {
    const day = join(dir, 'names');
    mkdirSync(day);
    const names = hostileNames();
    for (const n of names) {
      writeNamed(day, n.bytes, 'x\n');
      writeNamed(day, Buffer.concat([n.bytes, Buffer.from('.d')]), null);
    }
    const local = new LocalSource('runner');
    const sorted = <T>(xs: readonly T[], key: (x: T) => string): T[] => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
    const listed = await source.list(day);
    const localListed = await local.list(day);
    const entry = (e: { name: string; stat: { kind: string; size: number } }): string => `${e.name}|${e.stat.kind}|${e.stat.size}`;
    expect(sorted(listed?.entries ?? [], entry).map(entry)).toEqual(sorted(localListed?.entries ?? [], entry).map(entry));
    const hex = (b: Buffer): string => b.toString('hex');
    expect(sorted(listed?.refused ?? [], hex).map(hex)).toEqual(sorted(localListed?.refused ?? [], hex).map(hex));
    // Every name is one or the other, and exactly the followable ones are followed.
    const followed = names.filter((n) => n.followed);
    expect(listed?.entries.filter((e) => !e.isDirectory).map((e) => e.name).sort()).toEqual(followed.map((n) => n.text).sort());
    expect(listed?.refused.length).toBe(2 * (names.length - followed.length));
    // Folders alike, through dirs().
    const dirs = await source.dirs(day);
    expect([...(dirs?.entries ?? [])].sort()).toEqual([...((await local.dirs(day))?.entries ?? [])].sort());
    expect(dirs?.entries.length).toBe(followed.length);
    expect(dirs?.refused.map(hex).sort()).toEqual(((await local.dirs(day))?.refused ?? []).map(hex).sort());
  }, 30_000);

  it("starts a watcher that asks only for what changed since the reads, not for the whole host (its first listing)", async () => {
    const runs = join(dir, 'watched-runs');
    const hot = join(runs, '2026-12-02');
    mkdirSync(join(runs, '2026-12-01'), { recursive: true });
    mkdirSync(hot);
    writeFileSync(join(hot, 'remediate.log'), 'one\n');
    const fence = join(hot, 'fence.log');
    writeFileSync(fence, '');
    // What a poll reads: the runs folder's cycle names, the hot cycle listed, a file stat-ed.
    const read = async (): Promise<void> => {
      await source.dirs(runs);
      await source.list(hot);
      await source.stat(join(hot, 'remediate.log'));
    };
    await read();
    // A watcher's hints up to a fence: a line appended to a file once it is up. Its stream is in
    // order, and a first listing's hints come at once: all of them are in when the fence's is.
    const hintsOfAStart = async (): Promise<(WatchHint | undefined)[]> => {
      const hints: (WatchHint | undefined)[] = [];
      source.watch([runs, hot], (hint) => hints.push(hint));
      // Starting counts as watching: its first report covers the time before it (no full read meanwhile).
      expect(source.watching([runs, hot])).toBe(true);
      await until(() => {
        appendFileSync(fence, 'fence\n');
        return hints.some((h) => h?.name === 'fence.log');
      }, 30_000, 'the fence', 500);
      source.unwatch();
      return hints.filter((h) => h?.name !== 'fence.log');
    };
    // Between the reads and the watcher: a line appended, a file and a cycle created.
    appendFileSync(join(hot, 'remediate.log'), 'two\n');
    writeFileSync(join(hot, 'deliver.log'), 'x\n');
    mkdirSync(join(runs, '2026-12-03'));
    const first = await hintsOfAStart();
    expect(first).not.toContain(undefined);
    const key = (h: WatchHint | undefined): string => `${h?.kind} ${h?.dir}/${h?.name}`;
    expect(new Set(first.map(key))).toEqual(new Set([`change ${hot}/remediate.log`, `rename ${hot}/deliver.log`, `rename ${runs}/2026-12-03`]));
    // Read again: a second start with nothing changed since asks for nothing.
    await read();
    await source.list(hot);
    expect(await hintsOfAStart()).toEqual([]);
    // A file gone while no watcher ran is a change of its folder.
    await source.list(hot);
    execFileSync('rm', [join(hot, 'deliver.log')]);
    expect((await hintsOfAStart()).map(key)).toEqual([`rename ${hot}/deliver.log`]);
  }, 120_000);

  it('refuses a named pipe as a problem naming it instead of blocking the poll', async () => {
    const path = join(dir, 'remediate.status');
    execFileSync('mkfifo', [path]);
    const out = await followOnce(source, store, path, statusFileParser);
    expect(out.presence).toBe('refused');
    expect(store.problems()).toContainEqual({ source: path, line: null, message: `${path} is a named pipe (FIFO), not a regular file; not read.` });
    // The read itself refuses too (a pipe put in place after the stat): it does not hang.
    await expect(source.read(path, 0, 10)).rejects.toThrow(/not a regular file/);
  }, 30_000);
});
