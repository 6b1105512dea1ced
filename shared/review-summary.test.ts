import type { ContractBreach } from './contract-breach';
import { describe, expect, it } from 'vitest';
import type { Capacity, Cycle, DrillRun, Finding, HostState, LoopState, Phase, PullRequest } from './domain';
import { emptySnapshot } from './domain';
import { codeSpan, escapeMarkdown, markdownUrl } from './markdown-text';
import { auditFinding, item, outcome, task } from './waiting-fixtures';
import { deskPr } from './desk-fixtures';
import { buildReviewSummary, REVIEW_FINDING_LIMIT, reviewMarkdown, reviewWindow, type ReviewInput } from './review-summary';

const NOW = Date.parse('2026-08-24T07:00:00Z');
const SINCE = '2026-08-23T00:00:00.000Z';

function phase(name: string, status: Phase['status'], over: Partial<Phase> = {}): Phase {
  return { name, status, startedAt: null, endedAt: null, timesFrom: null, detail: [], stages: [], verdict: null, reason: `${name} is ${status}.`, ...over };
}

function cycle(date: string, status: Cycle['status'], phases: Phase[]): Cycle {
  return { date, status, phases };
}

function finding(id: string, severity: Finding['severity'], firstSeenAt: string, over: Partial<Finding> = {}): Finding {
  return {
    id,
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    section: 'Delta audit 2026-08-23',
    severity,
    category: 'safety',
    where: `scripts/${id}.py:1`,
    text: `finding ${id}`,
    status: 'open',
    backlog: ['REL-001'],
    firstSeenAt,
    line: 1,
    ...over,
  };
}

function capacity(host: string, over: Partial<Capacity>): Capacity {
  return {
    proxy: 'crossbar',
    kind: 'crossbar',
    host,
    up: true,
    since: null,
    slotsTotal: 4,
    slotsBusy: 1,
    inflight: null,
    queued: 0,
    nCtx: null,
    models: [],
    shedThreshold: null,
    highWater: null,
    totalShed: null,
    missing: [],
    error: null,
    polledAt: '2026-08-24T06:59:00.000Z',
    ...over,
  };
}

const reliability: LoopState = {
  name: 'reliability',
  host: 'runner',
  deadman: { state: 'missed', expectedAt: null, lastFireAt: '2026-08-24T04:00:00.000Z', reason: 'No cycle for 2026-08-24 by 06:00.' },
  cycles: [
    cycle('2026-08-22', 'ok', [phase('audit', 'ok', { startedAt: '2026-08-22T04:00:00.000Z', endedAt: '2026-08-22T05:00:00.000Z' })]),
    cycle('2026-08-23', 'incomplete', [
      phase('audit', 'ok', { startedAt: '2026-08-23T04:00:04.000Z', endedAt: '2026-08-23T04:41:12.000Z' }),
      phase('remediate', 'incomplete', {
        startedAt: '2026-08-23T05:00:00.000Z',
        stages: [{ name: 'gates', done: false, stoppedAt: 'suite', steps: [{ name: 'gates', rc: 0 }, { name: 'suite', rc: null }] }],
        reason: 'The gates stage stopped at suite.',
      }),
      phase('deliver', 'pending'),
    ]),
  ],
};

const testing: LoopState = {
  name: 'testing',
  host: 'runner',
  deadman: { state: 'ok', expectedAt: null, lastFireAt: null, reason: 'On schedule.' },
  cycles: [
    cycle('2026-08-24', 'ready', [
      phase('audit', 'ok', { startedAt: '2026-08-24T04:00:00.000Z', endedAt: '2026-08-24T04:10:00.000Z' }),
      phase('deliver', 'ready', { startedAt: '2026-08-24T04:11:00.000Z', endedAt: '2026-08-24T05:00:00.000Z', reason: 'Stamp: 1 PR(s) green.' }),
    ]),
  ],
};

const pr = (n: number, status: PullRequest['status'], loop = 'testing'): PullRequest => ({
  loop,
  url: `https://github.com/acme/radon/pull/${n}`,
  number: n,
  branch: `${loop}/2026-08-24`,
  status,
  check: null,
  since: '2026-08-24T05:00:00.000Z',
  cycle: '2026-08-24',
});

const run = (id: string, startedAt: string, over: Partial<DrillRun> = {}): DrillRun => ({
  id,
  drill: 'sigterm-drain',
  host: 'runner',
  args: { mode: 'graceful' },
  user: 'ops',
  startedAt,
  endedAt: null,
  rc: 0,
  status: 'ok',
  override: false,
  logPath: '/tmp/x.log',
  durationMs: 1000,
  ...over,
});

const state: ReviewInput = {
  ...emptySnapshot('2026-08-24T07:00:00.000Z'),
  loops: [reliability, testing],
  findings: [
    finding('R-200', 'P0', '2026-08-22T09:00:00.000Z'), // before the window
    finding('R-201', 'P1', '2026-08-23T05:00:00.000Z'),
    finding('R-202', 'P0', '2026-08-23T04:50:00.000Z', { where: 'scripts/exit_orders.py:88', text: 'exit order placed without the halt check' }),
    finding('R-203', 'P2', '2026-08-23T04:50:00.000Z'),
  ],
  prs: [pr(89, 'ready'), pr(77, 'incomplete', 'reliability'), pr(88, 'ready')],
  drillRuns: [run('d1', '2026-08-22T12:00:00.000Z'), run('d2', '2026-08-23T12:00:00.000Z', { status: 'failed', rc: 3 })],
  capacity: [capacity('gpu-b', { slotsBusy: 4, queued: 2 }), capacity('gpu-a', { up: false, error: 'crossbar: GET /_crossbar/hosts: gpu-a unreachable' }), capacity('gpu-c', {})],
  lastReviewedAt: SINCE,
};

describe('the review summary', () => {
  it('renders a known state as exactly this Markdown', () => {
    expect(reviewMarkdown(state, { now: NOW })).toBe(
      [
        '# Loopdeck review since 2026-08-23T00:00:00.000Z',
        '',
        '1 of 2 loops need attention · 3 new findings (1 P0, 1 P1, 1 P2) · 2 PRs ready to merge · 1 drill run · 2 fleet incidents',
        '',
        '## Waiting on you',
        '',
        '- **ready to merge** testing `88` — Merge \\#88: CI is green on testing/2026-08-24 (waiting since 2026-08-24T05:00:00.000Z)',
        '  - https://github.com/acme/radon/pull/88',
        '- **ready to merge** testing `89` — Merge \\#89: CI is green on testing/2026-08-24 (waiting since 2026-08-24T05:00:00.000Z)',
        '  - https://github.com/acme/radon/pull/89',
        '',
        '## Broken contract',
        '',
        'None.',
        '',
        '## What ran',
        '',
        '- **reliability** on runner — dead-man **missed**: No cycle for 2026-08-24 by 06:00.',
        '  - 2026-08-23 · **incomplete** · stopped at remediate › gates › suite — The gates stage stopped at suite.',
        '- **testing** on runner',
        '  - 2026-08-24 · **ready** · finished at deliver — Stamp: 1 PR(s) green.',
        '',
        '## New P0/P1 findings',
        '',
        '- **P0** `R-202` `scripts/exit_orders.py:88` — exit order placed without the halt check (reliability)',
        '- **P1** `R-201` `scripts/R-201.py:1` — finding R-201 (reliability)',
        '',
        '## Ready to merge',
        '',
        '- testing #88 `testing/2026-08-24` — https://github.com/acme/radon/pull/88',
        '- testing #89 `testing/2026-08-24` — https://github.com/acme/radon/pull/89',
        '',
        '## Drills run',
        '',
        '- **sigterm-drain** on runner — failed (rc 3); mode=graceful, by ops, started 2026-08-23T12:00:00.000Z',
        '',
        '## Fleet incidents',
        '',
        '- **gpu-a** via crossbar — down: crossbar: GET /\\_crossbar/hosts: gpu-a unreachable',
        '- **gpu-b** via crossbar — saturated: 4/4 slots busy · 2 queued',
        '',
      ].join('\n'),
    );
  });

  it('heads the summary with what is waiting on you: BLOCKED with its root cause, operator-only with its action, stopped tasks, uncovered findings, a PR with its pre-merge action', () => {
    const backlog = [
      item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: the broker mock cannot drop mid-frame', 12, '2026-08-23T14:00:00.000Z')]),
      item('REL-052', [outcome('2026-08-24', 'operator-only', 'rotate the broker credential', 13, '2026-08-24T04:00:00.000Z')], { loop: 'testing' }),
      item('REL-050', [outcome('2026-08-22', 'BLOCKED', 'root cause: x'), outcome('2026-08-23', 'DONE', 'gates 14/14')]),
    ];
    const tasks = [task('v2/01-props', 'stopped', { notes: 'make gate fails on two GIVEN v1 proxy tests', firstSeenAt: '2026-08-23T20:00:00.000Z' })];
    const findings = [...state.findings, auditFinding('R-105', [], { text: 'a 502 is reported as success', firstSeenAt: '2026-08-23T05:00:00.000Z' })];
    const md = reviewMarkdown({ ...state, backlog, tasks, findings }, { now: NOW });
    const section = md.slice(md.indexOf('## Waiting on you'), md.indexOf('## Broken contract'));
    expect(section).toBe(
      [
        '## Waiting on you',
        '',
        '- **blocked** reliability `REL-051` — Unblock REL-051: the loop gave up after three attempts; root cause: the broker mock cannot drop mid-frame (waiting since 2026-08-23T14:00:00.000Z)',
        '- **operator-only** testing `REL-052` — Do by hand: rotate the broker credential (waiting since 2026-08-24T04:00:00.000Z)',
        '- **stopped task** proxy `v2/01-props` — Look at task v2/01-props: the implementer stopped (waiting since 2026-08-23T20:00:00.000Z)',
        '  - notes: make gate fails on two GIVEN v1 proxy tests',
        '- **uncovered finding** reliability `R-105` — Have reliability file a backlog item for R-105: no backlog item covers it, and the contract requires every finding to be covered (waiting since 2026-08-23T05:00:00.000Z)',
        '- **ready to merge** testing `88` — Merge \\#88: CI is green on testing/2026-08-24; first do what the loop asked for below (waiting since 2026-08-24T05:00:00.000Z)',
        '  - https://github.com/acme/radon/pull/88',
        '  - before the merge: REL-052: rotate the broker credential',
        '- **ready to merge** testing `89` — Merge \\#89: CI is green on testing/2026-08-24; first do what the loop asked for below (waiting since 2026-08-24T05:00:00.000Z)',
        '  - https://github.com/acme/radon/pull/89',
        '  - before the merge: REL-052: rotate the broker credential',
        '',
        '',
      ].join('\n'),
    );
  });

  it("names the transcript line a stop is about (its signal's, else its verdict's), in the summary and its Markdown", () => {
    const verdict = { kind: 'deliver-incomplete', loop: 'ops', phase: null, prs: null, urls: [], check: 'ci/test', reason: null, line: 'NIGHTLY DELIVER INCOMPLETE: loop=ops check=ci/test', lineNumber: 40 } as const;
    const signal = { kind: 'hung', line: 812, since: '2026-08-24T05:00:00.000Z', detail: 'No output for 20 min.' } as const;
    const at = { startedAt: '2026-08-24T04:00:00.000Z' };
    const cause = { kind: 'fleet', what: 'down', subject: 'crossbar/gpu-a', since: null, until: null, detail: 'gpu-a (via crossbar) was down for 40m (04:30–05:10 UTC) during the phase' } as const;
    const loops: LoopState[] = [
      { ...testing, name: 'hung', cycles: [cycle('2026-08-24', 'running', [phase('audit', 'running', { ...at, signal, verdict: { ...verdict, lineNumber: 7 } })])] },
      { ...testing, name: 'short', cycles: [cycle('2026-08-24', 'incomplete', [phase('deliver', 'incomplete', { ...at, verdict, cause })])] },
      { ...testing, name: 'plain', cycles: [cycle('2026-08-24', 'failed', [phase('audit', 'failed', at)])] },
    ];
    const s = buildReviewSummary({ ...state, loops, findings: [], prs: [], drillRuns: [], capacity: [] }, { now: NOW });
    expect(s.loops.map((l) => [l.loop, l.cycles[0]?.stop?.line])).toEqual([
      ['hung', 812],
      ['short', 40],
      ['plain', null],
    ]);
    const md = reviewMarkdown({ ...state, loops, findings: [], prs: [], drillRuns: [], capacity: [] }, { now: NOW }).split('\n');
    expect(md).toContain('  - 2026-08-24 · **running** · running audit — audit is running. (transcript line 812)');
    expect(md).toContain('  - 2026-08-24 · **incomplete** · stopped at deliver — deliver is incomplete. (transcript line 40) · cause fleet: gpu-a (via crossbar) was down for 40m (04:30–05:10 UTC) during the phase');
    expect(md).toContain('  - 2026-08-24 · **failed** · stopped at audit — audit is failed.');
  });

  it('bounds the waiting list and says how many more', () => {
    const backlog = Array.from({ length: REVIEW_FINDING_LIMIT + 3 }, (_, i) => item(`REL-${100 + i}`, [outcome('2026-08-23', 'operator-only', `action ${i}`)]));
    const md = reviewMarkdown({ ...state, prs: [], backlog }, { now: NOW });
    expect(md).toContain('- and 3 more waiting\n');
    expect(md.match(/^- \*\*operator-only\*\*/gm)).toHaveLength(REVIEW_FINDING_LIMIT);
  });

  it('says so when nothing happened, rather than leaving sections out', () => {
    const md = reviewMarkdown({ ...state, loops: [{ ...testing, cycles: [] }], findings: [], prs: [], drillRuns: [], capacity: [] }, { now: NOW });
    expect(md).toContain('- **testing** on runner\n  - no cycle ran since 2026-08-23T00:00:00.000Z');
    expect(md.match(/\nNone\.\n/g)).toHaveLength(5);
    expect(md).toContain('## Waiting on you\n\nNothing.\n');
    expect(md).toContain('0 of 1 loop need attention · 0 new findings · 0 PRs ready to merge · 0 drill runs · 0 fleet incidents');
  });

  it('lists the broken contract after what waits on you: the rule, where, what the evidence shows and where it is; outside text escaped', () => {
    const contract: ContractBreach[] = [
      { kind: 'no-verdict', loop: 'reliability', date: '2026-08-23', phase: 'deliver', id: null, detail: 'deliver exited 0 (stamped OK) but its transcript does not end with a READY or INCOMPLETE verdict line: incomplete', since: '2026-08-23T10:40:00.000Z', evidence: { file: '/srv/runs/2026-08-23/deliver.log', line: null, url: null } },
      { kind: 'deferred', loop: 'reliability', date: '2026-08-23', phase: null, id: 'REL-051', detail: 'REL-051 has a DEFERRED outcome in the log: *later*', since: null, evidence: { file: '/srv/clone/RELIABILITY_LOG.md', line: 7, url: null } },
    ];
    const md = reviewMarkdown({ ...state, contract }, { now: NOW });
    const section = md.slice(md.indexOf('## Broken contract'), md.indexOf('## What ran'));
    expect(section).toBe(
      [
        '## Broken contract',
        '',
        '- **no deliver verdict** reliability 2026-08-23 deliver: deliver exited 0 (stamped OK) but its transcript does not end with a READY or INCOMPLETE verdict line: incomplete (`/srv/runs/2026-08-23/deliver.log`)',
        '- **DEFERRED outcome** reliability 2026-08-23 `REL-051`: REL-051 has a DEFERRED outcome in the log: \\*later\\* (`/srv/clone/RELIABILITY_LOG.md:7`)',
        '',
        '',
      ].join('\n'),
    );
  });

  it('says what tonight looks like once a pre-flight has run: each loop\'s state, the failing checks and the warnings', () => {
    const risky = {
      loop: 'reliability',
      fireAt: '2026-08-25T04:00:00.000Z',
      state: 'at-risk' as const,
      checks: [
        { name: 'host' as const, ok: true, status: 'ok' as const, detail: 'host runner is connected' },
        { name: 'disk' as const, ok: false, status: 'fail' as const, detail: 'clone /srv/clone has 512 KB free on /srv (needs 2 GB, preflightDisk)' },
        { name: 'deliver-record' as const, ok: true, status: 'warn' as const, detail: "tonight's fire resumes PR #88" },
      ],
      checkedAt: '2026-08-25T03:00:00.000Z',
    };
    const ready = { ...risky, loop: 'testing', state: 'ready' as const, checks: [risky.checks[0]!] };
    const md = reviewMarkdown({ ...state, preflight: [ready, risky] }, { now: NOW });
    expect(md).toContain(
      '\n## Tonight\n\n- **reliability** (fire 2026-08-25T04:00:00.000Z) — **at risk**\n  - disk: clone /srv/clone has 512 KB free on /srv (needs 2 GB, preflightDisk)\n' +
        "  - deliver record (warning): tonight's fire resumes PR \\#88\n- **testing** (fire 2026-08-25T04:00:00.000Z) — **ready**\n\n## Waiting on you",
    );
    expect(buildReviewSummary({ ...state, preflight: [risky] }, { now: NOW }).preflight).toEqual([risky]);
    // Before any pre-flight ran (or from an older snapshot), there is no such section.
    expect(reviewMarkdown(state, { now: NOW })).not.toContain('## Tonight');
  });

  it("says when a loop's host cannot be read, and counts the loop as needing attention", () => {
    const host = (state: HostState['state']): HostState => ({
      name: 'runner', kind: 'ssh', state, error: 'connect ECONNREFUSED', since: '2026-08-24T06:58:12.000Z', attempt: 4, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false,
    });
    const input = { ...state, loops: [testing] };
    expect(reviewMarkdown({ ...input, hosts: [host('connected')] }, { now: NOW })).toContain('0 of 1 loop need attention');
    const md = reviewMarkdown({ ...input, hosts: [host('unreachable')] }, { now: NOW });
    expect(md).toContain('1 of 1 loop need attention');
    expect(md).toContain(
      '- **testing** on runner\n  - Host runner is unreachable since 2026-08-24 06:58 UTC: its loops cannot be read, so what is shown of them may be out of date, and a missed cycle cannot be seen.\n  - 2026-08-24 · **ready**',
    );
  });

  it('says which PRs were merged from the console: on a ready PR, and listed after the ready ones once GitHub says merged; not before the window', () => {
    const merge = (at: string) => ({ by: 'ana', at, sha: 'f'.repeat(40), method: 'squash' as const });
    const desk = [
      deskPr({ loop: 'testing', number: 88, url: 'https://github.com/acme/radon/pull/88', merged: merge('2026-08-24T06:00:00.000Z') }),
      deskPr({ loop: 'testing', number: 90, head: 'testing/2026-08-23', url: 'https://github.com/acme/radon/pull/90', state: 'merged', merged: merge('2026-08-24T06:30:00.000Z') }),
      deskPr({ loop: 'testing', number: 70, state: 'merged', merged: merge('2026-08-22T06:30:00.000Z') }),
      deskPr({ loop: 'testing', number: 91, state: 'open' }),
    ];
    const summary = buildReviewSummary({ ...state, desk }, { now: NOW });
    expect(summary.prs.map((p) => [p.number, p.merged?.by ?? null])).toEqual([[88, 'ana'], [89, null]]);
    expect(summary.merged.map((p) => p.number)).toEqual([90]);
    const md = reviewMarkdown({ ...state, desk }, { now: NOW });
    expect(md).toContain('2 PRs ready to merge · 1 merged from the console · 1 drill run');
    expect(md).toContain('- testing #88 `testing/2026-08-24` — https://github.com/acme/radon/pull/88 — merged from the console by ana at 2026-08-24T06:00:00.000Z (fffffff, squash)\n- testing #89');
    expect(md).toContain('- testing #90 `testing/2026-08-23` — https://github.com/acme/radon/pull/90 — merged from the console by ana at 2026-08-24T06:30:00.000Z (fffffff, squash)\n\n## Drills run');
    expect(reviewMarkdown(state, { now: NOW })).not.toContain('merged from the console');
  });

  it('filters by the window: an explicit since, else the last review, else the last 24 hours', () => {
    expect(reviewWindow(null, NOW)).toEqual({ since: '2026-08-23T07:00:00.000Z', sinceFrom: 'default-24h' });
    expect(reviewWindow(SINCE, NOW)).toEqual({ since: SINCE, sinceFrom: 'last-review' });
    expect(reviewWindow(SINCE, NOW, '2026-08-22T00:00:00+02:00')).toEqual({ since: '2026-08-21T22:00:00.000Z', sinceFrom: 'option' });
    expect(() => reviewWindow(null, NOW, 'yesterday')).toThrow(/since: expected an ISO time.*"yesterday"/);

    const wide = buildReviewSummary(state, { now: NOW, since: '2026-08-22T00:00:00Z' });
    expect(wide.loops[0]?.cycles.map((c) => c.date)).toEqual(['2026-08-23', '2026-08-22']);
    expect(wide.findings.items.map((f) => f.id)).toEqual(['R-202', 'R-200', 'R-201']);
    expect(wide.drills.map((d) => d.id)).toEqual(['d2', 'd1']);

    const narrow = buildReviewSummary({ ...state, lastReviewedAt: null }, { now: NOW });
    expect(narrow.since).toBe('2026-08-23T07:00:00.000Z');
    expect(narrow.loops.map((l) => l.cycles.map((c) => c.date))).toEqual([[], ['2026-08-24']]);
    expect(narrow.findings.items).toEqual([]);
    expect(narrow.drills.map((d) => d.id)).toEqual(['d2']);
    // Ready PRs wait for a person whenever they became ready; incidents are the fleet as last polled.
    expect(narrow.prs.map((p) => p.number)).toEqual([88, 89]);
    expect(narrow.incidents.map((i) => i.host)).toEqual(['gpu-a', 'gpu-b']);
  });

  it('keeps a running drill whenever it started', () => {
    const s = buildReviewSummary({ ...state, drillRuns: [run('old', '2026-08-01T00:00:00.000Z', { status: 'running', rc: null })] }, { now: NOW });
    expect(s.drills.map((d) => d.id)).toEqual(['old']);
    expect(reviewMarkdown({ ...state, drillRuns: [run('old', '2026-08-01T00:00:00.000Z', { status: 'running', rc: null })] }, { now: NOW })).toContain(
      '- **sigterm-drain** on runner — running; mode=graceful, by ops, started 2026-08-01T00:00:00.000Z',
    );
  });

  it('bounds the findings list and says how many more', () => {
    const many = Array.from({ length: 130 }, (_, i) => finding(`R-${1000 + i}`, i % 2 ? 'P1' : 'P0', new Date(Date.parse(SINCE) + (i + 1) * 60_000).toISOString()));
    const s = buildReviewSummary({ ...state, findings: many }, { now: NOW });
    expect(s.findings.items).toHaveLength(REVIEW_FINDING_LIMIT);
    expect(s.findings.more).toBe(130 - REVIEW_FINDING_LIMIT);
    expect(s.findings.items.every((f) => f.severity === 'P0')).toBe(true);
    expect(s.findings.items[0]?.id).toBe('R-1128'); // the newest P0 first
    const md = reviewMarkdown({ ...state, findings: many }, { now: NOW });
    expect(md.match(/^- \*\*P[01]\*\* /gm)).toHaveLength(REVIEW_FINDING_LIMIT);
    expect(md).toContain(`- and ${130 - REVIEW_FINDING_LIMIT} more P0/P1 findings\n`);
    expect(md).toContain('130 new findings (65 P0, 65 P1)');
  });

  it('gives the same Markdown whatever order the state arrives in (the renderer store and a snapshot differ)', () => {
    const shuffled: ReviewInput = { ...state, findings: [...state.findings].reverse(), prs: [...state.prs].reverse(), drillRuns: [...state.drillRuns].reverse(), capacity: [...state.capacity].reverse() };
    expect(reviewMarkdown(shuffled, { now: NOW })).toBe(reviewMarkdown(state, { now: NOW }));
  });

  it('escapes Markdown in text it did not write, so a ledger row cannot inject markup or break the list', () => {
    const evil = finding('R-300', 'P0', '2026-08-23T06:00:00.000Z', {
      text: '**bold** _it_ [link](http://x) <img src=x> `code` | pipe ~strike~ &amp; # not a heading\n- not an item\\',
      where: 'a`b.py:3',
      loop: 'rel*ability',
    });
    const md = reviewMarkdown({ ...state, findings: [evil] }, { now: NOW });
    const line = md.split('\n').find((l) => l.includes('R-300'));
    expect(line).toBe(
      '- **P0** `R-300` ``a`b.py:3`` — \\*\\*bold\\*\\* \\_it\\_ \\[link\\](http://x) \\<img src=x\\> \\`code\\` \\| pipe \\~strike\\~ \\&amp; \\# not a heading - not an item\\\\ (rel\\*ability)',
    );
    expect(md.split('\n').some((l) => l.startsWith('- not an item'))).toBe(false);
  });

  it('neutralises @-mentions and bidi controls in a ledger note and a PR Next section, and leaves its own words and e-mail addresses alone', () => {
    const backlog = [item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: ask @acme/oncall (\u202eevil\u202c), mail ops@acme.com', 12, '2026-08-23T14:00:00.000Z')])];
    const github = { state: 'open', mergedBy: null, mergedAt: null, closedAt: null, checks: 'passing', checkNames: [], next: ['@acme/oncall run the install-copy \u202ebefore\u202c merge'], answeredAt: null, problem: null } as const;
    const md = reviewMarkdown({ ...state, backlog, prs: [{ ...pr(89, 'ready'), github }] }, { now: NOW });
    const lines = md.split('\n');
    expect(lines).toContain(
      '- **blocked** reliability `REL-051` — Unblock REL-051: the loop gave up after three attempts; root cause: ask `@acme/oncall` (\\\\u202eevil\\\\u202c), mail ops@acme.com (waiting since 2026-08-23T14:00:00.000Z)',
    );
    expect(lines).toContain('  - before the merge: `@acme/oncall` run the install-copy \\\\u202ebefore\\\\u202c merge');
    expect(md).not.toMatch(/(^|[^`])@acme\/oncall/m);
    expect(md).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    // Loopdeck's own words around them are as they were.
    expect(lines).toContain('- **ready to merge** testing `89` — Merge \\#89: CI is green on testing/2026-08-24; first do what the loop asked for below (waiting since 2026-08-24T05:00:00.000Z)');
    expect(md).toContain('## Waiting on you\n');
  });

  it('puts a mention in a code span only at a word start, and shows unsafe characters in code spans and URLs', () => {
    expect(escapeMarkdown('@acme/oncall, (@bob) a@b.com x_@c \\@d')).toBe('`@acme/oncall`, (`@bob`) a@b.com x\\_@c \\\\`@d`');
    expect(escapeMarkdown('tab\there \x1b[31m')).toBe('tab here \\\\x1b\\[31m');
    expect(codeSpan('R-1\u202e')).toBe('`R-1\\u202e`');
    expect(markdownUrl('https://x/a\u202eb')).toBe('https://x/a%E2%80%AEb');
  });

  it('escapes helpers: text, code spans and URLs', () => {
    expect(escapeMarkdown('a\r\n  b')).toBe('a b');
    expect(codeSpan('plain')).toBe('`plain`');
    expect(codeSpan('``x')).toBe('``` ``x ```');
    expect(markdownUrl('https://x/a b<c>')).toBe('https://x/a%20b%3Cc%3E');
  });
});
