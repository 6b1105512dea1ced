import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { MAX_LINE_BYTES, TAIL_BYTES } from '../follow/line-follower';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { BranchFollower } from './branch-follower';
import { parseReflogLine } from './branch-reflog';

const DATE = '2026-12-01';
const BRANCH = `reliability/${DATE}`;

/** A local source that counts the bytes it reads. */
class CountingSource extends LocalSource {
  bytes = 0;
  override async read(path: string, offset: number, length: number): Promise<Buffer> {
    const buf = await super.read(path, offset, length);
    this.bytes += buf.length;
    return buf;
  }
}

/** A real clone on `main`, and a loop following it (branch `reliability/{date}` unless told). */
function setup(branch?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ld-branch-'));
  const clone = join(dir, 'clone');
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Loop Agent',
    GIT_AUTHOR_EMAIL: 'agent@runner',
    GIT_COMMITTER_NAME: 'Loop Agent',
    GIT_COMMITTER_EMAIL: 'agent@runner',
  };
  const git = (...args: string[]): string => execFileSync('git', ['-C', clone, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  execFileSync('git', ['init', '-q', '-b', 'main', clone], { env });
  git('commit', '-q', '--allow-empty', '-m', 'init');
  const extra = branch === undefined ? '' : `, branch: ${JSON.stringify(branch)}`;
  const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(join(dir, 'runs'))}, dir: ${JSON.stringify(clone)}${extra} } }\n`);
  const loop = cfg.loops.l;
  if (!loop) throw new Error('the test config has no loop l');
  const reflog = join(clone, '.git', 'logs', 'refs', 'heads', ...BRANCH.split('/'));
  const source = new CountingSource('r');
  const store = Store.open(':memory:');
  return { clone, git, loop, reflog, source, store, follower: new BranchFollower('l', loop, source, store) };
}

const ids = (f: BranchFollower, date = DATE): string[] => f.entries(date).flatMap((e) => e.ids);

describe('BranchFollower', () => {
  it('reads only the nights it is asked to read now, keeping what it read of the others', async () => {
    const { git, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: shrink the pool');
    const OTHER = '2026-12-02';
    await follower.poll([OTHER, DATE]);
    expect(ids(follower)).toEqual(['REL-050']);
    git('commit', '-q', '--allow-empty', '-m', 'REL-051: cap the retries');
    // Only tonight's night is read: the older one keeps what was read, and nothing moved.
    expect(await follower.poll([OTHER, DATE], new Set([OTHER]))).toBe(false);
    expect(ids(follower)).toEqual(['REL-050']);
    expect(await follower.poll([OTHER, DATE])).toBe(true);
    expect(ids(follower)).toEqual(['REL-050', 'REL-051']);
  });

  it('reads a real branch reflog, then only the lines appended to it, and nothing when it did not move', async () => {
    const { git, reflog, source, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: shrink the pool');
    git('commit', '-q', '--allow-empty', '-m', 'REL-051: retry once (R-626)');

    expect(await follower.poll([DATE])).toBe(true);
    expect(follower.entries(DATE).map((e) => e.kind)).toEqual(['created', 'commit', 'commit']);
    expect(ids(follower)).toEqual(['REL-050', 'REL-051', 'R-626']);
    expect(follower.pathOf(DATE)).toBe(reflog);

    source.bytes = 0;
    expect(await follower.poll([DATE])).toBe(false);
    expect(source.bytes).toBe(0);

    const before = statSync(reflog).size;
    git('commit', '-q', '--allow-empty', '-m', 'REL-052: third');
    const appended = statSync(reflog).size - before;
    source.bytes = 0;
    expect(await follower.poll([DATE])).toBe(true);
    expect(ids(follower)).toEqual(['REL-050', 'REL-051', 'R-626', 'REL-052']);
    // The new line and the few bytes before it that prove the file is the one read: not the file again.
    expect(source.bytes).toBeLessThanOrEqual(appended + TAIL_BYTES);
    expect(follower.entries(DATE).map((e) => e.line)).toEqual([1, 2, 3, 4]);
    expect(follower.problems()).toEqual([]);
  });

  it('resumes from the store after a restart without reading the reflog again', async () => {
    const { git, loop, source, store, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: one');
    await follower.poll([DATE]);
    git('commit', '-q', '--allow-empty', '-m', 'REL-051: two');

    const again = new BranchFollower('l', loop, source, store);
    source.bytes = 0;
    expect(await again.poll([DATE])).toBe(true);
    expect(ids(again)).toEqual(['REL-050', 'REL-051']);
    expect(source.bytes).toBeLessThan(250);
  });

  it('restores what the store holds while the host cannot be reached, asking the host nothing', async () => {
    const { git, loop, store, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: one');
    await follower.poll([DATE]);

    const down = new (class extends LocalSource {
      override stat(): never {
        throw new Error('the host cannot be reached');
      }
      override read(): never {
        throw new Error('the host cannot be reached');
      }
    })('r');
    const restarted = new BranchFollower('l', loop, down, store);
    expect(restarted.restore([DATE, '2026-11-30'])).toBe(true);
    expect(ids(restarted)).toEqual(['REL-050']);
    expect(restarted.entries('2026-11-30')).toEqual([]);
    await expect(restarted.poll([DATE])).rejects.toThrow('cannot be reached');
    expect(ids(restarted)).toEqual(['REL-050']);
  });

  it('reads a branch deleted and made again from its start, forgetting the old one\'s moves', async () => {
    const { git, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: first life');
    await follower.poll([DATE]);
    expect(ids(follower)).toEqual(['REL-050']);

    git('checkout', '-q', 'main');
    git('branch', '-q', '-D', BRANCH);
    git('checkout', '-q', '-b', BRANCH);
    // Longer than the first life's file, so its size alone does not give it away.
    for (const id of ['REL-060', 'REL-061', 'REL-062']) git('commit', '-q', '--allow-empty', '-m', `${id}: second life`);
    expect(await follower.poll([DATE])).toBe(true);
    expect(follower.entries(DATE).map((e) => e.kind)).toEqual(['created', 'commit', 'commit', 'commit']);
    expect(ids(follower)).toEqual(['REL-060', 'REL-061', 'REL-062']);
  });

  it('reads a reflog rewritten in place (same inode, larger) from its start', async () => {
    const { git, reflog, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: one');
    await follower.poll([DATE]);
    const ino = statSync(reflog).ino;
    const lines = readFileSync(reflog, 'utf8');
    writeFileSync(reflog, lines.replace('REL-050: one', 'REL-070: rewritten and longer') + lines.replace('REL-050: one', 'REL-071: more'));
    expect(statSync(reflog).ino).toBe(ino);
    expect(await follower.poll([DATE])).toBe(true);
    expect(ids(follower)).toEqual(['REL-070', 'REL-071']);
  });

  it('bounds a giant line: a problem naming file and line, the lines around it read', async () => {
    const { git, reflog, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: before');
    await follower.poll([DATE]);
    const good = readFileSync(reflog, 'utf8').trimEnd().split('\n')[1] ?? '';
    appendFileSync(reflog, `${'x'.repeat(2 * MAX_LINE_BYTES)}\nnot a reflog line\n${good.replace('REL-050: before', 'REL-051: after')}\n`);
    expect(await follower.poll([DATE])).toBe(true);
    expect(ids(follower)).toEqual(['REL-050', 'REL-051']);
    expect(follower.entries(DATE).map((e) => e.line)).toEqual([1, 2, 5]);
    const problems = follower.problems();
    expect(problems.map((p) => [p.source, p.line])).toEqual([
      [reflog, 3],
      [reflog, 3],
      [reflog, 4],
    ]);
    expect(problems.some((p) => p.message.includes('1 MiB'))).toBe(true);
    expect(parseReflogLine(good, 1)).not.toBeNull();
  });

  it('takes a night without a branch for no entries and no problem, and forgets a night no longer followed', async () => {
    const { git, follower } = setup();
    git('checkout', '-q', '-b', BRANCH);
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: one');
    expect(await follower.poll(['2026-11-30', DATE])).toBe(true);
    expect(follower.entries('2026-11-30')).toEqual([]);
    expect(follower.problems()).toEqual([]);
    expect(await follower.poll(['2026-11-30'])).toBe(true);
    expect(follower.entries(DATE)).toEqual([]);
    expect(await follower.poll(['2026-11-30'])).toBe(false);
  });

  it('shares one reflog between nights when the branch has no {date}', async () => {
    const { git, follower } = setup('nightly');
    git('checkout', '-q', '-b', 'nightly');
    git('commit', '-q', '--allow-empty', '-m', 'REL-050: one');
    expect(await follower.poll(['2026-11-30', DATE])).toBe(true);
    expect(ids(follower, '2026-11-30')).toEqual(['REL-050']);
    expect(ids(follower, DATE)).toEqual(['REL-050']);
  });

  it('says a branch git would refuse is a problem of the config key, and reads no path out of the clone', async () => {
    expect(setup().follower.pathOf('../../x')).toBeNull();
    const { follower, source } = setup('../../../{date}');
    expect(await follower.poll([DATE, '2026-11-30', 'not-a-date'])).toBe(false);
    expect(source.bytes).toBe(0);
    expect(follower.problems()).toEqual([{ source: 'loops.l.branch', line: null, message: expect.stringContaining('"../../../{date}" names a branch git would refuse') }]);
  });

  it('says a reflog path that is not a file is a problem of that file, and reads nothing there', async () => {
    const { reflog, follower } = setup();
    mkdirSync(reflog, { recursive: true });
    expect(await follower.poll([DATE])).toBe(false);
    expect(follower.entries(DATE)).toEqual([]);
    expect(follower.problems()).toEqual([{ source: reflog, line: null, message: expect.stringContaining('a directory, not a regular file') }]);
  });
});
