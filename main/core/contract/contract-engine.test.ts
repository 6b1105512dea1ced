import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGithubServer, type GithubServer } from '../../../testing/github-server';
import { until } from '../../../testing/until';
import type { ContractBreach } from '../../../shared/contract-breach';
import { reviewMarkdown } from '../../../shared/review-summary';
import { createRunnerFixture, type RunnerFixture } from '../../../testing/runner-fixture';
import { parseConfig } from '../config/load-config';
import { composeEngine } from '../session/core';
import { Store } from '../store/store';
import type { Engine } from '../engine';

// Issue 43: each kind of the Broken contract list from a runner tree that breaks exactly that rule
// (real files, a real git clone with its reflog), through the engine; and one tree that keeps
// every rule and shows no item. `two-prs` and `no-dead-man-comment` need GitHub: a stand-in
// speaking its REST API answers them.

const DAY = '2026-11-29';
const NOW = new Date(`${DAY}T12:00:00Z`);
const PR = 'https://github.com/acme/radon/pull/88';
const TOKEN = 'ghp_contract_test_token';

const audit = (rows: readonly string[], n = rows.length, sha = 'HEAD'): string => `# Reliability audit

## Audit ledger
Audited through: ${sha} on ${DAY} — ${n} new findings

## Delta audit ${DAY}

### Findings
| ID | Sev | Category | Where | Finding |
|----|-----|----------|-------|---------|
${rows.join('\n')}

### Backlog
| ID | Findings | Sev | Acceptance criteria |
|----|----------|-----|---------------------|
| REL-001 | R-001 | P1 | the pool shrinks under load |
`;

const LOG_HEAD = '# Reliability log\n\n| ID | Date | Outcome | Red/Green | Notes |\n|----|------|---------|-----------|-------|\n';
const DONE_ROW = `| REL-001 | ${DAY} | DONE | 1/1 | fixed |\n`;
const FINDING = '| R-001 | P1 | safety | pool.py:10 | the pool never shrinks |';

interface Tree {
  /** The cycle's files by name. */
  readonly cycle: Record<string, string>;
  readonly audit: string;
  readonly log: string;
  /** Commits on the nightly branch, at these times (ISO), with these messages. */
  readonly commits: readonly { readonly at: string; readonly message: string }[];
  /** The deliver record naming PR #88, or none. */
  readonly record: boolean;
  /** A GitHub stand-in's URL: the loop then has `deadman: { repo: acme/radon }` and the config a `github:` section. */
  readonly github?: string;
  /** Cycle files' times (ISO) by name: when an rc file's stage wrote its DONE. */
  readonly mtimes?: Readonly<Record<string, string>>;
}

/** A night that keeps every rule: stamped phases, a DONE stage, READY with its PR, a commit during remediate, its log row DONE. */
const CLEAN: Tree = {
  cycle: {
    'audit.status': `audit ${DAY}T00:00:00Z STARTED\naudit ${DAY}T00:40:00Z OK\n`,
    'remediate.status': `remediate ${DAY}T01:00:00Z STARTED\nremediate ${DAY}T03:00:00Z OK\n`,
    'remediate.gates.rc': 'gates_rc=\nsuite_rc=\ngates_rc=0\nsuite_rc=0\nDONE\n',
    'deliver.status': `deliver ${DAY}T04:00:00Z STARTED\ndeliver ${DAY}T04:30:00Z 1 PR(s) green, ready to merge: ${PR}\n`,
    'deliver.log': `pushed\nNIGHTLY DELIVER READY: loop=reliability prs=1 ${PR}\n`,
  },
  audit: audit([FINDING]),
  log: LOG_HEAD + DONE_ROW,
  commits: [{ at: `${DAY}T02:00:00Z`, message: 'REL-001: shrink the pool' }],
  record: true,
};

interface Rig {
  readonly fx: RunnerFixture;
  readonly clone: string;
  readonly engine: Engine;
  contract(): readonly ContractBreach[];
  close(): Promise<void>;
}

const git = (cwd: string, args: readonly string[], at?: string): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'loop', GIT_AUTHOR_EMAIL: 'loop@runner', GIT_COMMITTER_NAME: 'loop', GIT_COMMITTER_EMAIL: 'loop@runner', ...(at ? { GIT_AUTHOR_DATE: at, GIT_COMMITTER_DATE: at } : {}) },
  }).trim();

async function rig(tree: Tree): Promise<Rig> {
  const fx0 = createRunnerFixture();
  const clone = join(fx0.dir, 'clone');
  mkdirSync(clone);
  git(clone, ['init', '-q', '-b', 'main']);
  git(clone, ['commit', '-q', '--allow-empty', '-m', 'start'], `${DAY}T00:00:00Z`);
  const head = git(clone, ['rev-parse', 'HEAD']);
  git(clone, ['checkout', '-q', '-b', `reliability/${DAY}`], `${DAY}T00:50:00Z`);
  for (const c of tree.commits) git(clone, ['commit', '-q', '--allow-empty', '-m', c.message], c.at);
  writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), tree.audit.replace('HEAD', head.slice(0, 10)));
  writeFileSync(join(clone, 'RELIABILITY_LOG.md'), tree.log);
  const record = join(fx0.dir, 'deliver.json');
  if (tree.record) writeFileSync(record, JSON.stringify({ loop: 'reliability', branch: `reliability/${DAY}`, pr: 88, url: PR, status: 'green', updated_at: `${DAY}T04:30:00Z` }));
  // The loop's clone, ledgers and deliver record, added to the fixture's config.
  const github = tree.github ? `    deadman: { repo: acme/radon }\ngithub:\n  token: "env:LOOPDECK_TEST_GITHUB_TOKEN"\n  apiUrl: ${JSON.stringify(tree.github)}\n` : '';
  writeFileSync(fx0.configPath, `${readFileSync(fx0.configPath, 'utf8')}    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }\n    deliverRecord: ${JSON.stringify(record)}\n${github}`);
  for (const [name, text] of Object.entries(tree.cycle)) fx0.write(DAY, name, text);
  for (const [name, at] of Object.entries(tree.mtimes ?? {})) utimesSync(join(fx0.runs, DAY, name), new Date(at), new Date(at));
  const config = parseConfig(fx0.configPath, readFileSync(fx0.configPath, 'utf8'));
  const engine = composeEngine(config, { store: Store.open(':memory:'), now: () => NOW, githubEnv: { LOOPDECK_TEST_GITHUB_TOKEN: TOKEN } });
  await engine.poll();
  return { fx: fx0, clone, engine, contract: () => engine.snapshot().contract ?? [], close: () => engine.close() };
}

/** The kinds of the list, and the one item of the kind asked for. */
async function only(tree: Tree): Promise<{ kinds: string[]; items: readonly ContractBreach[]; rig: Rig }> {
  const r = await rig(tree);
  const items = r.contract();
  return { kinds: items.map((b) => b.kind), items, rig: r };
}

describe('the Broken contract list, from runner trees', () => {
  it('a night that keeps every rule shows no item, in the snapshot and the Markdown', async () => {
    const { kinds, rig: r } = await only(CLEAN);
    try {
      expect(kinds).toEqual([]);
      const snapshot = r.engine.snapshot();
      expect(snapshot.loops[0]?.cycles[0]?.phases.map((p) => p.status)).toEqual(['ok', 'ok', 'ready']);
      expect(reviewMarkdown(snapshot, { now: NOW.getTime() })).toContain('## Broken contract\n\nNone.\n');
      // Each phase shows the commits it made, from the reflog, with the REL ids they name.
      const phases = snapshot.loops[0]?.cycles[0]?.phases ?? [];
      const sha = git(r.clone, ['rev-parse', `reliability/${DAY}`]);
      expect(phases.map((p) => p.commits?.map((c) => [c.sha, c.ids]) ?? [])).toEqual([[], [[sha, ['REL-001']]], []]);
      expect(phases[1]?.commits?.[0]).toMatchObject({ at: `${DAY}T02:00:00.000Z`, message: 'commit: REL-001: shrink the pool' });
    } finally {
      await r.close();
    }
  });

  it('a commit that lands after a poll is the phase\'s on the next, published as that cycle\'s change', async () => {
    const cycle = { ...CLEAN.cycle, 'remediate.status': `remediate ${DAY}T01:00:00Z STARTED\n` };
    const r = await rig({ ...CLEAN, cycle, commits: [] });
    try {
      const seen: string[] = [];
      r.engine.subscribe((...[event, payload]) => {
        if (event === 'loop.changed') seen.push(...payload.upserted.map((c) => c.date));
      });
      git(r.clone, ['commit', '-q', '--allow-empty', '-m', 'REL-001: shrink the pool'], `${DAY}T02:00:00Z`);
      await r.engine.poll();
      const remediate = r.engine.snapshot().loops[0]?.cycles[0]?.phases.find((p) => p.name === 'remediate');
      expect(remediate?.commits?.map((c) => c.ids)).toEqual([['REL-001']]);
      expect(seen).toEqual([DAY]);
    } finally {
      await r.close();
    }
  });

  it('stale certification: commits after the last full suite ended are named on the phase and on the PR it delivered', async () => {
    // The suite stage wrote its DONE at 01:30; the branch then moved at 02:00 and 02:30.
    const commits = [
      { at: `${DAY}T01:10:00Z`, message: 'REL-001: shrink the pool' },
      { at: `${DAY}T02:00:00Z`, message: 'REL-001: tidy the pool' },
      { at: `${DAY}T02:30:00Z`, message: 'docs: the pool' },
    ];
    const r = await rig({ ...CLEAN, commits, mtimes: { 'remediate.gates.rc': `${DAY}T01:30:00Z` } });
    try {
      const snapshot = r.engine.snapshot();
      const remediate = snapshot.loops[0]?.cycles[0]?.phases.find((p) => p.name === 'remediate');
      expect(remediate?.stages[0]?.endedAt).toBe(`${DAY}T01:30:00.000Z`);
      expect(remediate?.uncertified).toMatchObject({ suiteEndedAt: `${DAY}T01:30:00.000Z`, suite: 'gates › suite', more: 0 });
      expect(remediate?.uncertified?.commits.map((c) => c.message)).toEqual(['commit: REL-001: tidy the pool', 'commit: docs: the pool']);
      const pr = snapshot.prs.find((p) => p.url === PR);
      expect(pr?.uncertified?.commits.map((c) => c.sha)).toEqual(remediate?.uncertified?.commits.map((c) => c.sha));
    } finally {
      await r.close();
    }
    // The same night whose suite ended after its last commit certifies them all: nothing is named.
    const fine = await rig({ ...CLEAN, commits, mtimes: { 'remediate.gates.rc': `${DAY}T02:45:00Z` } });
    try {
      const snapshot = fine.engine.snapshot();
      expect(snapshot.loops[0]?.cycles[0]?.phases.some((p) => p.uncertified)).toBe(false);
      expect(snapshot.prs.find((p) => p.url === PR)?.uncertified).toBeUndefined();
    } finally {
      await fine.close();
    }
  });

  it('hollow: remediate stamped OK while its audit\'s REL-001 has no final outcome', async () => {
    const { kinds, items, rig: r } = await only({ ...CLEAN, log: `${LOG_HEAD}| REL-001 | ${DAY} | PARTIAL | 1/0 | half done |\n` });
    await r.close();
    expect(kinds).toEqual(['hollow']);
    expect(items[0]).toMatchObject({ loop: 'reliability', date: DAY, phase: 'remediate' });
    expect(items[0]?.detail).toContain('REL-001');
  });

  it('unfinished-stage: remediate stamped OK while its gates stage has no DONE, naming the rc file', async () => {
    const { kinds, items, rig: r } = await only({ ...CLEAN, cycle: { ...CLEAN.cycle, 'remediate.gates.rc': 'gates_rc=\nsuite_rc=\ngates_rc=0\n' } });
    await r.close();
    expect(kinds).toEqual(['unfinished-stage']);
    expect(items[0]).toMatchObject({ phase: 'remediate', id: 'gates', since: `${DAY}T03:00:00.000Z` });
    expect(items[0]?.detail).toContain('stopped at suite');
    expect(items[0]?.evidence.file).toBe(join(r.fx.runs, DAY, 'remediate.gates.rc'));
  });

  it('no-verdict: deliver stamped OK (exit 0) without a READY or INCOMPLETE last line is incomplete', async () => {
    const cycle = { ...CLEAN.cycle, 'deliver.status': `deliver ${DAY}T04:00:00Z STARTED\ndeliver ${DAY}T04:30:00Z OK\n`, 'deliver.log': 'pushed the branch\nall done\n' };
    const { kinds, items, rig: r } = await only({ ...CLEAN, cycle });
    const deliver = r.engine.snapshot().loops[0]?.cycles[0]?.phases.find((p) => p.name === 'deliver');
    await r.close();
    expect(kinds).toEqual(['no-verdict']);
    expect(deliver).toMatchObject({ status: 'incomplete', noVerdict: true });
    expect(items[0]?.evidence.file).toBe(join(r.fx.runs, DAY, 'deliver.log'));
  });

  it('no-op-after-commit: remediate declared NO-OP while the nightly branch moved by a commit during it, naming the commit and its REL id', async () => {
    const cycle = { ...CLEAN.cycle, 'remediate.status': `remediate ${DAY}T01:00:00Z STARTED\nremediate ${DAY}T03:00:00Z NO-OP\n` };
    const { kinds, items, rig: r } = await only({ ...CLEAN, cycle });
    const sha = git(r.clone, ['rev-parse', `reliability/${DAY}`]);
    await r.close();
    expect(kinds).toEqual(['no-op-after-commit']);
    expect(items[0]).toMatchObject({ phase: 'remediate', id: sha.slice(0, 10) });
    expect(items[0]?.detail).toContain('REL-001');
    expect(items[0]?.evidence).toEqual({ file: join(r.clone, '.git/logs/refs/heads/reliability', DAY), line: 2, url: null });
  });

  it('no-pr: a finished night whose branch has commits, with no PR in the verdicts, the deliver record or GitHub', async () => {
    const cycle = { ...CLEAN.cycle, 'deliver.status': `deliver ${DAY}T04:00:00Z STARTED\ndeliver ${DAY}T04:30:00Z 0 PR(s), nothing to merge\n`, 'deliver.log': 'nothing to deliver\n' };
    const { kinds, items, rig: r } = await only({ ...CLEAN, cycle, record: false });
    await r.close();
    expect(kinds).toEqual(['no-pr']);
    expect(items[0]).toMatchObject({ id: `reliability/${DAY}`, phase: null });
  });

  it('deferred: a log row whose outcome is DEFERRED, though a later row closed the item', async () => {
    const { kinds, items, rig: r } = await only({ ...CLEAN, log: `${LOG_HEAD}| REL-001 | 2026-11-28 | DEFERRED | 0/0 | next week |\n${DONE_ROW}` });
    await r.close();
    expect(kinds).toEqual(['deferred']);
    // Since the day the row carries (before Loopdeck first read it), as "Waiting on you" dates a row.
    expect(items[0]).toMatchObject({ id: 'REL-001', date: '2026-11-28', since: '2026-11-28', evidence: { line: 5 } });
  });

  it('ledger-rewritten: a row of the append-only log changed in place after it was read, named by file and line; what was read is kept', async () => {
    const { kinds, rig: r } = await only(CLEAN);
    try {
      expect(kinds).toEqual([]);
      writeFileSync(join(r.clone, 'RELIABILITY_LOG.md'), LOG_HEAD + DONE_ROW.replace('fixed', 'fixed it properly'));
      await r.engine.poll();
      const items = r.contract();
      expect(items.map((b) => b.kind)).toEqual(['ledger-rewritten']);
      expect(items[0]?.evidence).toMatchObject({ file: join(r.clone, 'RELIABILITY_LOG.md'), line: 5 });
      expect(r.engine.snapshot().backlog.map((b) => b.status)).toEqual(['done']);
    } finally {
      await r.close();
    }
  });

  it('duplicate-id: R-001 on two rows of the audit', async () => {
    const { kinds, rig: r } = await only({ ...CLEAN, audit: audit([FINDING, FINDING.replace('never shrinks', 'leaks')]) });
    await r.close();
    expect(kinds).toEqual(['duplicate-id']);
  });

  it('id-order: R-002 before R-001 in one section', async () => {
    const { kinds, rig: r } = await only({ ...CLEAN, audit: audit([FINDING.replace('R-001', 'R-002'), FINDING]) });
    await r.close();
    expect(kinds).toEqual(['id-order']);
  });

  it('anchor: the audit ledger\'s count differs from its section\'s rows', async () => {
    const { kinds, rig: r } = await only({ ...CLEAN, audit: audit([FINDING], 3) });
    await r.close();
    expect(kinds).toEqual(['anchor']);
  });

  it('anchor: the latest anchor names a SHA the clone cannot resolve (asked of the clone on its host)', async () => {
    const { kinds, items, rig: r } = await only({ ...CLEAN, audit: audit([FINDING], 1, 'deadbeef12') });
    await r.close();
    expect(kinds).toEqual(['anchor']);
    expect(items[0]).toMatchObject({ id: 'deadbeef12', date: DAY, evidence: { file: join(r.clone, 'RELIABILITY_AUDIT.md'), line: 4 } });
  });
});

describe('no-dead-man-comment, against a GitHub stand-in', () => {
  let server: GithubServer;
  beforeAll(async () => {
    server = await startGithubServer(TOKEN);
  });
  afterAll(() => server.close());

  it('a phase that ended with no comment on the rolling issue within 30 minutes; the phases commented on are not', async () => {
    // Comments after audit and remediate; none after deliver (ended 04:30, judged from 05:00).
    server.issues.set('acme/radon', [
      { number: 7, title: 'reliability nightly', labels: ['reliability-nightly'], state: 'open', createdAt: '2026-11-01T00:00:00Z', updatedAt: `${DAY}T03:05:00Z`, comments: [
        { createdAt: `${DAY}T00:45:00Z`, body: 'audit OK' },
        { createdAt: `${DAY}T03:05:00Z`, body: 'remediate OK' },
      ] },
    ]);
    const r = await rig({ ...CLEAN, github: server.url });
    try {
      await until(async () => {
        await r.engine.poll();
        return r.contract().length > 0;
      }, 20_000, 'the rolling issue read');
      const items = r.contract();
      expect(items.map((b) => [b.kind, b.phase])).toEqual([['no-dead-man-comment', 'deliver']]);
      expect(items[0]?.evidence.url).toContain('/issues/7');
      expect(Date.parse(items[0]?.since ?? '')).toBe(Date.parse(`${DAY}T05:00:00Z`));
    } finally {
      await r.close();
    }
  }, 30_000);

  it('two-prs: two open PRs whose head GitHub names as the night\'s branch', async () => {
    const urls = ['https://127.0.0.1/acme/radon/pull/88', 'https://127.0.0.1/acme/radon/pull/89'];
    for (const n of [88, 89]) server.prs.set(`acme/radon#${n}`, { state: 'open', merged: false, body: null, checks: [], head: `reliability/${DAY}` });
    server.issues.set('acme/radon', []);
    const cycle = { ...CLEAN.cycle, 'deliver.status': `deliver ${DAY}T04:00:00Z STARTED\ndeliver ${DAY}T04:30:00Z 2 PR(s) green, ready to merge: ${urls.join(' ')}\n`, 'deliver.log': `NIGHTLY DELIVER READY: loop=reliability prs=2 ${urls.join(' ')}\n` };
    const r = await rig({ ...CLEAN, cycle, record: false, github: server.url });
    try {
      expect(r.contract()).toEqual([]);
      await r.engine.github?.pollOnce();
      await r.engine.poll();
      const items = r.contract().filter((b) => b.kind !== 'no-dead-man-comment');
      expect(items.map((b) => [b.kind, b.id])).toEqual([['two-prs', `reliability/${DAY}`]]);
      expect(items[0]?.detail).toContain('#88, #89');
      // Two PRs of one night with heads of their own are allowed.
      server.prs.set('acme/radon#89', { state: 'open', merged: false, body: null, checks: [], head: `reliability/${DAY}-pool` });
      await r.engine.github?.pollOnce();
      await r.engine.poll();
      expect(r.contract().filter((b) => b.kind !== 'no-dead-man-comment')).toEqual([]);
    } finally {
      await r.close();
    }
  }, 30_000);
});
