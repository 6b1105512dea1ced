import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotSchema, type Snapshot } from '../../../shared/domain';
import { createSession } from '../session/session';

const AUDIT = `# Reliability audit

## Audit ledger
Audited through: 3f2a9c1 on 2026-08-22 — 2 new findings
Audited through: 9be41d07 on 2026-08-23 — 1 new findings

## Delta audit 2026-08-22

### Findings
| ID | Sev | Category | Where | Finding |
|----|-----|----------|-------|---------|
| R-101 | P0 | safety | scripts/exit_orders.py:88 | exit order placed without halt check |
| R-102 | P1 | error handling | web/lib/quote.ts:12 | \`a \\| b\` fallback swallows 502\\|503 |
| R-103 | P2 | observability | cloud/x.timer:1 | timer has no health row | extra |

### Backlog
| ID | Findings | Sev | Acceptance criteria |
|----|----------|-----|---------------------|
| REL-050 | R-101 | P0 | kill the halt service mid-order: no order leaves |
| REL-051 | R-102 | P1 | inject a 503: the fallback reports it |
`;

const SECOND_PASS = `
## Delta audit 2026-08-23 (second pass)

| ID | Sev | Category | Where | Finding |
|----|-----|----------|-------|---------|
| R-104 | P0 | state | daemon/state.py:40 | torn JSON from concurrent writers |
`;

const LOG = `# Reliability log

| ID | Date | Outcome | Red/Green | Notes |
|----|------|---------|-----------|-------|
| REL-050 | 2026-08-22 | BLOCKED | 1/0 | halt service mock missing |
| REL-051 | 2026-08-22 | DONE | 2/2 | |
| REL-050 | 2026-08-23 | DONE | 1/1 | mock added |

## Lessons
- 2026-08-23 (remediate): run the full gate BEFORE the drills, not after.
  Roughly one existing test per finding pinned the buggy behaviour.
`;

const IMPLEMENTER = `# Implementer log

| Task | Date | Status | Gate runs | First gate | Deviations | Notes | Model |
|------|------|--------|-----------|------------|------------|-------|-------|
| T1 hosts view | 2026-09-20 | done | 3 | red | none | ok | opus |

## Reviews

### v0 review — 2026-09-25

| # | Finding | Severity | Fault |
|---|---------|----------|-------|
| 1 | usage answers null for an empty store | medium | code |
`;

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-ledgers-'));
  const runs = join(dir, 'runs');
  const clone = join(dir, 'clone');
  mkdirSync(join(runs, '2026-08-23'), { recursive: true });
  mkdirSync(join(clone, 'docs'), { recursive: true });
  writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), AUDIT);
  writeFileSync(join(clone, 'RELIABILITY_LOG.md'), LOG);
  writeFileSync(join(clone, 'docs', 'implementer-log.md'), IMPLEMENTER);
  const day = join(runs, '2026-08-23');
  writeFileSync(join(day, 'audit.status'), 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41:12-04:00 OK\n');
  writeFileSync(join(day, 'remediate.status'), 'remediate 2026-08-23T01:00:00-04:00 STARTED\nremediate 2026-08-23T09:12:40-04:00 OK\n');
  writeFileSync(
    join(day, 'deliver.status'),
    'deliver 2026-08-23T09:13:00-04:00 STARTED\ndeliver 2026-08-23T10:02:11-04:00 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89\n',
  );
  writeFileSync(join(day, 'deliver.log'), 'NIGHTLY DELIVER READY: loop=reliability prs=2 https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89\n');
  writeFileSync(
    join(dir, 'deliver.json'),
    JSON.stringify({ loop: 'reliability', branch: 'reliability/2026-08-24', pr: 90, url: 'https://github.com/acme/radon/pull/90', status: 'incomplete', check: 'ci/test', updated_at: '2026-08-24T10:00:00Z' }),
  );
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: runs\n    dir: clone\n    schedule: "0 0 * * *"\n    timezone: America/New_York\n    grace: 2h\n    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md, implementer: docs/implementer-log.md }\n    deliverRecord: deliver.json\n`,
  );
  return { dir, clone, config, data: join(dir, 'data') };
}

async function snapshotAt(fx: ReturnType<typeof fixture>, now: string): Promise<Snapshot> {
  const core = createSession({ configPath: fx.config, dataDir: fx.data, shell: 'serve', pollMs: 60_000, now: () => new Date(now) });
  await core.start();
  await core.pollOnce();
  const snap = SnapshotSchema.parse(core.snapshot());
  await core.close();
  return snap;
}

describe('a loop with ledgers and a deliver record', () => {
  it('reads findings with their status, backlog, PRs, tasks, lessons, audit marks and the dead-man', async () => {
    const fx = fixture();
    const snap = await snapshotAt(fx, '2026-08-24T12:00:00Z');

    const byId = new Map(snap.findings.map((f) => [f.id, f]));
    expect(byId.get('R-101')).toMatchObject({ loop: 'reliability', severity: 'P0', status: 'done', backlog: ['REL-050'], where: 'scripts/exit_orders.py:88' });
    expect(byId.get('R-102')).toMatchObject({ severity: 'P1', status: 'done', text: '`a | b` fallback swallows 502|503' });
    expect(byId.has('R-103')).toBe(false); // the malformed row is reported, not guessed
    expect(snap.problems.find((p) => p.line === 14)?.source).toMatch(/RELIABILITY_AUDIT\.md$/);
    expect(byId.get('v0 review — 2026-09-25#1')).toMatchObject({ text: 'usage answers null for an empty store', status: 'open' });

    expect(snap.backlog.find((b) => b.id === 'REL-050')).toMatchObject({ status: 'done', red: 1, green: 1, acceptance: 'kill the halt service mid-order: no order leaves' });
    expect(snap.backlog.find((b) => b.id === 'REL-050')?.outcomes.map((o) => o.outcome)).toEqual(['BLOCKED', 'DONE']);
    expect(snap.audits.map((a) => a.sha)).toEqual(['3f2a9c1', '9be41d07']);
    expect(snap.tasks[0]).toMatchObject({ task: 'T1 hosts view', status: 'done', model: 'opus' });
    expect(snap.lessons[0]).toMatchObject({ date: '2026-08-23', tag: 'remediate' });
    expect(snap.lessons[0]?.text).toMatch(/run the full gate BEFORE the drills.*pinned the buggy behaviour/);

    expect(snap.prs.map((p) => [p.number, p.status, p.check])).toEqual([
      [88, 'ready', null],
      [89, 'ready', null],
      [90, 'incomplete', 'ci/test'],
    ]);
    // 2026-08-24 00:00 New York fired; by 12:00 UTC (08:00 there) no cycle folder exists: missed.
    expect(snap.loops[0]?.deadman).toMatchObject({ state: 'missed', lastFireAt: '2026-08-24T04:00:00.000Z' });
  });

  it('reads an appended section incrementally, and a ledger rewritten in place whole', async () => {
    const fx = fixture();
    const first = await snapshotAt(fx, '2026-08-24T03:00:00Z');
    const firstSeen = first.findings.find((f) => f.id === 'R-101')?.firstSeenAt;
    appendFileSync(join(fx.clone, 'RELIABILITY_AUDIT.md'), SECOND_PASS);
    const second = await snapshotAt(fx, '2026-08-24T03:30:00Z');
    expect(second.findings.find((f) => f.id === 'R-104')).toMatchObject({ section: 'Delta audit 2026-08-23 (second pass)', status: 'open', firstSeenAt: '2026-08-24T03:30:00.000Z' });
    expect(second.findings.find((f) => f.id === 'R-101')?.firstSeenAt).toBe(firstSeen);

    // Rewritten in place: R-102's text corrected, same inode, longer file.
    writeFileSync(join(fx.clone, 'RELIABILITY_AUDIT.md'), (AUDIT + SECOND_PASS).replace('swallows', 'silently swallows'));
    const third = await snapshotAt(fx, '2026-08-24T05:00:00Z');
    expect(third.findings.find((f) => f.id === 'R-102')?.text).toBe('`a | b` fallback silently swallows 502|503');
    expect(third.findings.filter((f) => f.id.startsWith('R-'))).toHaveLength(3);
    expect(third.findings.find((f) => f.id === 'R-101')?.firstSeenAt).toBe(firstSeen); // first-seen survives the re-read
    // Within the grace period after the 00:00 fire the loop is only late.
    expect(third.loops[0]?.deadman?.state).toBe('late');
  });
});

describe('a loop with a ledger it cannot read', () => {
  it('still reads the cycles and the other ledgers, and names the ledger in a problem', async () => {
    const fx = fixture();
    const log = join(fx.clone, 'RELIABILITY_LOG.md');
    rmSync(log);
    execFileSync('ln', ['-s', 'RELIABILITY_LOG.md', log]); // a link to itself: ELOOP, for root too
    const snap = await snapshotAt(fx, '2026-08-24T12:00:00Z');
    expect(snap.loops[0]?.cycles[0]?.phases.map((p) => p.status)).toEqual(['ok', 'ok', 'ready']);
    expect(snap.findings.find((f) => f.id === 'R-101')).toMatchObject({ severity: 'P0', status: 'open' });
    expect(snap.problems.find((p) => p.source === log)?.message).toMatch(/RELIABILITY_LOG\.md is a symbolic link that cannot be followed/);
  });
});

describe('a first start on a large existing ledger', () => {
  it('lists what it finds without alerting, even when the ledger takes several polls to read', async () => {
    const fx = fixture();
    const rows = Array.from({ length: 90_000 }, (_, i) => `| R-${1000 + i} | ${i % 50 === 0 ? 'P0' : 'P2'} | resources | scripts/w_${i % 40}.py:${i % 400} | retry loop ${i} has no upper bound when the broker answers 503 |`);
    writeFileSync(join(fx.clone, 'RELIABILITY_AUDIT.md'), `## Delta audit 2026-08-20\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n${rows.join('\n')}\n`);
    const core = createSession({ configPath: fx.config, dataDir: fx.data, shell: 'serve', pollMs: 60_000, now: () => new Date('2026-08-24T12:00:00Z') });
    const raised: string[] = [];
    core.subscribe((...[event, payload]) => {
      if (event === 'notice.raised') raised.push(payload.notice.key);
    });
    await core.start();
    for (let i = 0; i < 4; i++) await core.pollOnce();
    const snap = core.snapshot();
    expect(snap.findings.length).toBe(90_001);
    const p0 = snap.findings.filter((f) => f.severity === "P0");
    const by: Record<string, number> = {};
    for (const f of p0) by[f.status] = (by[f.status] ?? 0) + 1;
    expect(by).toEqual({ open: 1800 });
    expect(snap.notices).toHaveLength(500); // listed (the list shows the newest 500), never alerted
    expect(raised).toEqual([]);
    // What happens afterwards is news.
    appendFileSync(join(fx.clone, 'RELIABILITY_AUDIT.md'), '| R-999999 | P0 | safety | a.py:1 | a new P0 after the first start |\n');
    await core.pollOnce();
    expect(raised).toEqual(['finding:reliability:R-999999']);
    await core.close();
  }, 60_000);
});
