import { describe, expect, it } from 'vitest';
import { combineChecks } from './github-checks';
import { prRef, webHost } from './github-target';

const status = (...s: [string, string][]) => ({ state: 'pending', total_count: s.length, statuses: s.map(([context, state]) => ({ context, state })) });
const runs = (...r: [string, string, string | null][]) => ({ total_count: r.length, check_runs: r.map(([name, st, conclusion]) => ({ name, status: st, conclusion })) });

describe('combineChecks', () => {
  it.each([
    ['no statuses and no runs (GitHub says "pending" for such a commit)', status(), runs(), 'none', []],
    ['a failing status beside a passing run', status(['ci/test', 'failure']), runs(['lint', 'completed', 'success']), 'failing', ['ci/test']],
    ['an error status', status(['ci/deploy', 'error']), runs(), 'failing', ['ci/deploy']],
    ['a run timed out', status(), runs(['suite', 'completed', 'timed_out']), 'failing', ['suite']],
    ['a run still in progress', status(['ci/test', 'success']), runs(['build', 'in_progress', null]), 'pending', ['build']],
    ['neutral and skipped runs pass', status(), runs(['a', 'completed', 'neutral'], ['b', 'completed', 'skipped'], ['c', 'completed', 'success']), 'passing', []],
  ] as const)('%s', (_what, s, r, checks, names) => {
    expect(combineChecks(s, r)).toEqual({ checks, names });
  });
});

describe('the configured GitHub', () => {
  it('finds the web host of an API URL', () => {
    expect(webHost('https://api.github.com')).toBe('github.com');
    expect(webHost('https://api.octo.ghe.com')).toBe('octo.ghe.com');
    expect(webHost('https://github.example.com/api/v3')).toBe('github.example.com');
    expect(webHost('http://127.0.0.1:8080')).toBe('127.0.0.1');
  });

  it('takes only PR URLs on that host', () => {
    expect(prRef('https://github.com/acme/radon/pull/88', 'github.com')).toEqual({ owner: 'acme', repo: 'radon', number: 88 });
    expect(prRef('https://GitHub.com/acme/radon.js/pull/7/files', 'github.com')).toEqual({ owner: 'acme', repo: 'radon.js', number: 7 });
    expect(prRef('https://gitlab.com/acme/radon/pull/88', 'github.com')).toBeNull();
    expect(prRef('https://github.com/acme/radon/issues/88', 'github.com')).toBeNull();
    expect(prRef('https://github.com/acme/radon/pull/0', 'github.com')).toBeNull();
    expect(prRef('not a url', 'github.com')).toBeNull();
  });
});
