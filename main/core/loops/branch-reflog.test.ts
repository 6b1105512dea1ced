import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_REFLOG_LINE, MAX_REFLOG_MESSAGE, branchNameProblem, commitsIn, parseReflogLine, reflogKind, reflogParser, reflogPath, type ReflogEntry } from './branch-reflog';

const BRANCH = 'reliability/2026-12-01';

/** A real git repository on `main` with one commit, git's own configuration kept out. */
function gitRepo(): { dir: string; git: (args: string[], at?: string) => string; reflog: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'ld-reflog-'));
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Loop Agent',
    GIT_AUTHOR_EMAIL: 'agent@runner',
    GIT_COMMITTER_NAME: 'Loop Agent',
    GIT_COMMITTER_EMAIL: 'agent@runner',
  };
  // The reflog's time is the committer's: GIT_COMMITTER_DATE places a move in a phase's window.
  const git = (args: string[], at?: string): string =>
    execFileSync('git', ['-C', dir, ...args], { env: at ? { ...env, GIT_COMMITTER_DATE: at } : env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git(['init', '-q', '-b', 'main']);
  git(['commit', '-q', '--allow-empty', '-m', 'init'], '2026-11-30T12:00:00Z');
  const reflog = (): string[] => readFileSync(join(dir, '.git', 'logs', 'refs', 'heads', ...BRANCH.split('/')), 'utf8').split('\n').filter((l) => l !== '');
  return { dir, git, reflog };
}

const parseAll = (lines: readonly string[]): ReflogEntry[] => lines.map((l, i) => parseReflogLine(l, i + 1)).filter((e): e is ReflogEntry => e !== null);

describe('parseReflogLine on lines git wrote', () => {
  it('reads the branch creation and two commits with their shas, author, time and the REL / R ids they name', () => {
    const { git, reflog } = gitRepo();
    const base = git(['rev-parse', 'HEAD']);
    git(['checkout', '-q', '-b', BRANCH], '2026-12-01T00:30:00Z');
    git(['commit', '-q', '--allow-empty', '-m', 'REL-050: shrink the pool (R-626)'], '2026-12-01T01:00:00Z');
    const first = git(['rev-parse', 'HEAD']);
    git(['commit', '-q', '--allow-empty', '-m', 'REL-051: retry once, as REL-050 did'], '2026-12-01T02:00:00+01:00');
    const second = git(['rev-parse', 'HEAD']);

    const lines = reflog();
    expect(lines).toHaveLength(3);
    const entries = lines.map((l, i) => parseReflogLine(l, i + 1));
    expect(entries).toEqual([
      { line: 1, oldSha: '0'.repeat(40), newSha: base, who: 'Loop Agent <agent@runner>', at: '2026-12-01T00:30:00.000Z', message: 'branch: Created from HEAD', kind: 'created', ids: [] },
      { line: 2, oldSha: base, newSha: first, who: 'Loop Agent <agent@runner>', at: '2026-12-01T01:00:00.000Z', message: 'commit: REL-050: shrink the pool (R-626)', kind: 'commit', ids: ['REL-050', 'R-626'] },
      { line: 3, oldSha: first, newSha: second, who: 'Loop Agent <agent@runner>', at: '2026-12-01T01:00:00.000Z', message: 'commit: REL-051: retry once, as REL-050 did', kind: 'commit', ids: ['REL-051', 'REL-050'] },
    ]);
  });

  it('tells a reset, an amend, a fast-forward merge and a rebase apart', () => {
    const { git, reflog } = gitRepo();
    git(['checkout', '-q', '-b', BRANCH]);
    git(['commit', '-q', '--allow-empty', '-m', 'REL-060: one']);
    git(['commit', '-q', '--allow-empty', '--amend', '-m', 'REL-060: one, amended']);
    git(['reset', '-q', '--hard', 'main']);
    git(['branch', '-q', 'side', 'main']);
    git(['checkout', '-q', 'side']);
    git(['commit', '-q', '--allow-empty', '-m', 'side work']);
    git(['checkout', '-q', BRANCH]);
    git(['merge', '-q', '--ff-only', 'side']);
    git(['commit', '-q', '--allow-empty', '-m', 'REL-061: two']);
    git(['checkout', '-q', 'main']);
    git(['commit', '-q', '--allow-empty', '-m', 'main moved']);
    git(['checkout', '-q', BRANCH]);
    git(['rebase', '-q', 'main']);

    const entries = parseAll(reflog());
    expect(entries.map((e) => e.kind)).toEqual(['created', 'commit', 'commit', 'reset', 'merge', 'commit', 'rebase']);
    expect(entries.map((e) => e.message.split(':')[0])).toEqual(['branch', 'commit', 'commit (amend)', 'reset', 'merge side', 'commit', 'rebase (finish)']);
  });
});

describe('parseReflogLine on hostile lines', () => {
  const sha = 'a'.repeat(40);
  const good = `${'0'.repeat(40)} ${sha} Loop Agent <agent@runner> 1796086800 +0000\tcommit: REL-050: x`;

  it('refuses what is not a reflog line', () => {
    expect(parseReflogLine(good, 1)).not.toBeNull();
    for (const bad of [
      '',
      'garbage',
      good.replace('\t', ' '),
      good.replace(sha, 'a'.repeat(64)), // two lengths of SHA
      good.replace(sha, 'g'.repeat(40)),
      good.replace('+0000', '+0075'),
      good.replace('+0000', '0000'),
      good.replace('<agent@runner>', 'agent@runner'),
      good.replace('1796086800', '99999999999999'),
      `${'0'.repeat(40)} ${sha} ${'n'.repeat(5000)} <a@b> 1 +0000\tcommit: x`,
    ]) {
      expect(parseReflogLine(bad, 7), bad.slice(0, 80)).toBeNull();
    }
  });

  it('refuses a line longer than MAX_REFLOG_LINE and cuts a long message, keeping the ids of all of it', () => {
    expect(parseReflogLine(`${good}${'x'.repeat(MAX_REFLOG_LINE)}`, 1)).toBeNull();
    const long = parseReflogLine(`${good} ${'y'.repeat(5000)} R-9`, 1);
    expect(long?.message).toHaveLength(MAX_REFLOG_MESSAGE);
    expect(long?.ids).toEqual(['REL-050', 'R-9']);
  });

  it('reads a move without a message and an author without a name, and names only whole uppercase ids', () => {
    expect(parseReflogLine(`${sha} ${sha.replace('a', 'b')} <x@y> 0 -0130`, 2)).toMatchObject({ who: '<x@y>', at: '1970-01-01T00:00:00.000Z', message: '', kind: 'other', ids: [] });
    expect(parseReflogLine(good.replace('REL-050: x', 'PREL-1 R-2a rel-3 XR-4 R-5. (REL-6)'), 1)?.ids).toEqual(['R-5', 'REL-6']);
  });

  it('makes a problem naming file and line of a line it refuses, through the line parser', () => {
    const out = reflogParser.line(reflogParser.initial(), 'not a reflog line', 4, '/clone/.git/logs/refs/heads/b');
    expect(out.result.records).toEqual([]);
    expect(out.result.problems).toEqual([{ source: '/clone/.git/logs/refs/heads/b', line: 4, message: expect.stringContaining('not a reflog line') }]);
  });

  it('names the kinds of git messages not made above', () => {
    expect(reflogKind('commit (initial): init')).toBe('commit');
    expect(reflogKind('commit (merge): Merge branch x')).toBe('merge');
    expect(reflogKind('cherry-pick: REL-1')).toBe('commit');
    expect(reflogKind('pull: Fast-forward')).toBe('merge');
    expect(reflogKind('pull --rebase (finish): refs/heads/x onto abc')).toBe('rebase');
    expect(reflogKind('branch: Reset to HEAD~1')).toBe('reset');
    expect(reflogKind('Branch: renamed refs/heads/a to refs/heads/b')).toBe('other');
  });
});

describe('reflogPath', () => {
  it('joins the clone, git\'s reflog folder and the branch with its {date}, POSIX-style', () => {
    expect(reflogPath({ dir: '/srv/clone', branch: 'reliability/{date}' }, '2026-12-01')).toBe('/srv/clone/.git/logs/refs/heads/reliability/2026-12-01');
    expect(reflogPath({ dir: '/srv/clone/', branch: 'nightly-{date}-{date}' }, '2026-12-01')).toBe('/srv/clone/.git/logs/refs/heads/nightly-2026-12-01-2026-12-01');
  });

  it('is null without dir, for a date that is not one, and for a branch git would refuse (never a path out of the clone)', () => {
    expect(reflogPath({ branch: 'reliability/{date}' }, '2026-12-01')).toBeNull();
    expect(reflogPath({ dir: '/c', branch: 'reliability/{date}' }, '../../x')).toBeNull();
    for (const branch of ['../../../etc/{date}', '/abs/{date}', 'a//{date}', 'a/.hidden/{date}', 'x{date}.lock', 'a b{date}', 'x@{{date}', '-x{date}', 'x{date}.']) {
      expect(reflogPath({ dir: '/c', branch }, '2026-12-01'), branch).toBeNull();
      expect(branchNameProblem(branch.replace('{date}', '2026-12-01'))).not.toBeNull();
    }
  });
});

describe('commitsIn', () => {
  it('picks the moves that added commits inside a phase window, both ends inclusive, and none that reset or created', () => {
    const { git, reflog } = gitRepo();
    git(['checkout', '-q', '-b', BRANCH], '2026-12-01T00:00:00Z');
    git(['commit', '-q', '--allow-empty', '-m', 'REL-070: before the phase'], '2026-12-01T00:59:59Z');
    git(['commit', '-q', '--allow-empty', '-m', 'REL-071: at the start'], '2026-12-01T01:00:00Z');
    git(['commit', '-q', '--allow-empty', '-m', 'REL-072: inside'], '2026-12-01T01:30:00Z');
    git(['commit', '-q', '--allow-empty', '-m', 'REL-073: at the end'], '2026-12-01T02:00:00Z');
    git(['reset', '-q', '--hard', 'HEAD~1'], '2026-12-01T02:00:00Z');
    git(['commit', '-q', '--allow-empty', '-m', 'REL-074: next phase'], '2026-12-01T03:00:00Z');
    const entries = parseAll(reflog());
    expect(entries).toHaveLength(7);

    const ids = (from: string, to: string | null): string[] => commitsIn(entries, from, to).flatMap((e) => e.ids);
    expect(ids('2026-12-01T01:00:00Z', '2026-12-01T02:00:00Z')).toEqual(['REL-071', 'REL-072', 'REL-073']);
    // A phase still running: everything from its start; a stamp with an offset is the same instant.
    expect(ids('2026-12-01T03:00:00+01:00', null)).toEqual(['REL-073', 'REL-074']);
    expect(ids('2026-12-01T02:00:01Z', null)).toEqual(['REL-074']);
    // The branch's creation is no commit of the phase that made it.
    expect(commitsIn(entries, '2026-12-01T00:00:00Z', '2026-12-01T00:30:00Z')).toEqual([]);
    expect(() => commitsIn(entries, 'not a date', null)).toThrow(RangeError);
  });

  it('does not count a commit move whose tip did not change', () => {
    const sha = 'c'.repeat(40);
    const line = `${sha} ${sha} A <a@b> 1796086800 +0000\tcommit: REL-1`;
    expect(commitsIn(parseAll([line]), '2026-01-01T00:00:00Z', null)).toEqual([]);
  });
});
