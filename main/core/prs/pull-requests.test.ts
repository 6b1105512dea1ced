import { describe, expect, it } from 'vitest';
import { PullRequestSchema } from '../../../shared/domain';
import type { Cycle, Phase, PhaseStatus, PullRequest, Verdict } from '../../../shared/domain';
import { parseLines } from '../text/lines';
import { statusFileParser } from '../loops/status-file';
import { transcriptParser } from '../transcripts/transcript-parser';
import { deriveCycle, derivePhase } from '../loops/phase-status';
import { derivePullRequests, parseDeliverRecord, prNumber } from './pull-requests';
import type { DeliverRecord } from './pull-requests';

const LOOP = 'reliability';
const NOW = new Date('2026-08-25T18:00:00Z');
const PR = (n: number): string => `https://github.com/acme/radon/pull/${n}`;

function verdict(kind: Verdict['kind'], urls: string[], check: string | null = null): Verdict {
  return { kind, loop: LOOP, phase: null, prs: kind === 'deliver-ready' ? urls.length : null, urls, check, reason: null, line: 'x' };
}

interface DeliverOpts {
  readonly status: PhaseStatus;
  readonly verdict?: Verdict | null;
  readonly reason?: string;
  readonly detail?: string[];
  readonly startedAt?: string | null;
  readonly endedAt?: string | null;
}

function deliverCycle(date: string, o: DeliverOpts): Cycle {
  const audit: Phase = { name: 'audit', status: 'ok', startedAt: `${date}T04:00:00.000Z`, endedAt: `${date}T05:00:00.000Z`, timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason: 'wrapper stamp OK' };
  const deliver: Phase = {
    name: 'deliver',
    status: o.status,
    startedAt: o.startedAt === undefined ? `${date}T14:00:00.000Z` : o.startedAt,
    endedAt: o.endedAt === undefined ? `${date}T14:30:00.000Z` : o.endedAt,
    timesFrom: 'stamps',
    detail: o.detail ?? [],
    stages: [],
    verdict: o.verdict ?? null,
    reason: o.reason ?? 'deliver verdict',
  };
  return { date, status: o.status, phases: [audit, deliver] };
}

function record(over: Partial<DeliverRecord>): DeliverRecord {
  return { loop: LOOP, branch: 'nightly/2026-08-25', pr: null, url: null, status: null, check: null, updatedAt: null, ...over };
}

function prs(cycles: Cycle[], deliverRecord: DeliverRecord | null = null): PullRequest[] {
  return derivePullRequests({ loop: LOOP, cycles, deliverRecord, now: NOW }).map((p) => PullRequestSchema.parse(p));
}

describe('derivePullRequests: deliver verdicts', () => {
  it('lists ready and incomplete verdict URLs with numbers parsed from them', () => {
    const out = prs([
      deliverCycle('2026-08-24', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(90)], 'ci/test') }),
      deliverCycle('2026-08-23', { status: 'ready', verdict: verdict('deliver-ready', [PR(88), PR(89)]) }),
    ]);
    expect(out).toEqual([
      { loop: LOOP, url: PR(88), number: 88, branch: null, status: 'ready', check: null, since: '2026-08-23T14:30:00.000Z', cycle: '2026-08-23' },
      { loop: LOOP, url: PR(89), number: 89, branch: null, status: 'ready', check: null, since: '2026-08-23T14:30:00.000Z', cycle: '2026-08-23' },
      { loop: LOOP, url: PR(90), number: 90, branch: null, status: 'incomplete', check: 'ci/test', since: '2026-08-24T14:30:00.000Z', cycle: '2026-08-24' },
    ]);
  });

  it('keeps one entry for a URL seen in several cycles; the newest status wins', () => {
    const out = prs([
      deliverCycle('2026-08-25', { status: 'ready', verdict: verdict('deliver-ready', [PR(90)]) }),
      deliverCycle('2026-08-24', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(90)], 'ci/lint') }),
      deliverCycle('2026-08-23', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(90)], 'ci/test') }),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ url: PR(90), status: 'ready', check: null, cycle: '2026-08-25', since: '2026-08-25T14:30:00.000Z' });
  });

  it('dates a status from the first cycle of its latest unbroken run', () => {
    const out = prs([
      deliverCycle('2026-08-25', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(90)], 'ci/e2e') }),
      deliverCycle('2026-08-24', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(90)], 'ci/test') }),
      deliverCycle('2026-08-23', { status: 'ready', verdict: verdict('deliver-ready', [PR(90)]) }),
    ]);
    expect(out[0]).toMatchObject({ status: 'incomplete', check: 'ci/e2e', cycle: '2026-08-24', since: '2026-08-24T14:30:00.000Z' });
  });

  it('uses the start time when the deliver phase has no end, and null with neither', () => {
    const started = prs([deliverCycle('2026-08-25', { status: 'ready', verdict: verdict('deliver-ready', [PR(7)]), endedAt: null })]);
    expect(started[0]?.since).toBe('2026-08-25T14:00:00.000Z');
    const none = prs([deliverCycle('2026-08-25', { status: 'ready', verdict: verdict('deliver-ready', [PR(7)]), startedAt: null, endedAt: null })]);
    expect(none[0]?.since).toBeNull();
  });
});

describe('derivePullRequests: wrapper stamps', () => {
  it('reads URLs from a green stamp (its text is the phase reason)', () => {
    const reason = `wrapper stamp 2 PR(s) green, ready to merge: ${PR(88)} ${PR(89)}`;
    const out = prs([deliverCycle('2026-08-23', { status: 'ready', reason })]);
    expect(out.map((p) => [p.url, p.status])).toEqual([
      [PR(88), 'ready'],
      [PR(89), 'ready'],
    ]);
  });

  it('takes only https URLs from a stamp and its detail', () => {
    const reason = `wrapper stamp 2 PR(s) green, ready to merge: ${PR(88)} javascript:alert(1) file:///etc/passwd`;
    const cycles = [deliverCycle('2026-08-23', { status: 'ready', reason, detail: ['see data:text/html,x/pull/3 and http://h/pull/4'] })];
    expect(prs(cycles).map((p) => p.url)).toEqual([PR(88)]);
  });

  it('reads the FORMATS.md deliver stamp through the real parsers and derivePhase', () => {
    const status = `deliver 2026-08-23T10:02:11-04:00 2 PR(s) green, ready to merge: ${PR(88)} ${PR(89)}\n`;
    const log = `NIGHTLY DELIVER INCOMPLETE: loop=${LOOP} check=ci/test pr=${PR(87)}\n`;
    const phase = derivePhase(
      {
        loop: LOOP,
        phase: 'deliver',
        statusRecords: parseLines(statusFileParser, status, 's').records,
        logRecords: parseLines(transcriptParser, log, 'l').records,
        stages: [],
        hasLog: true,
        hasStatus: true,
        firstFileTime: '2026-08-23T13:00:00.000Z',
        lastFileTime: '2026-08-23T14:02:11.000Z',
      },
      NOW,
      20 * 3_600_000,
    );
    const out = prs([deriveCycle('2026-08-23', [phase], NOW, 20 * 3_600_000)]);
    expect(out.map((p) => [p.number, p.status, p.since])).toEqual([
      [88, 'ready', '2026-08-23T14:02:11.000Z'],
      [89, 'ready', '2026-08-23T14:02:11.000Z'],
      [87, 'incomplete', '2026-08-23T14:02:11.000Z'],
    ]);
  });

  it('lets the stamp override the verdict for a URL both name', () => {
    const out = prs([
      deliverCycle('2026-08-23', {
        status: 'incomplete',
        reason: 'wrapper stamp INCOMPLETE: ci/test',
        detail: [`  waiting on ${PR(88)}, see https://ci.example/run/5`],
        verdict: verdict('deliver-ready', [PR(88)]),
      }),
    ]);
    expect(out).toEqual([expect.objectContaining({ url: PR(88), status: 'incomplete', check: 'ci/test' })]);
  });

  it('finds nothing in a nothing-to-merge stamp', () => {
    expect(prs([deliverCycle('2026-08-23', { status: 'ok', reason: 'wrapper stamp 0 PR(s), nothing to merge' })])).toEqual([]);
  });
});

describe('derivePullRequests: deliver record', () => {
  const cycles = [deliverCycle('2026-08-24', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(90)], 'ci/test') })];

  it('wins when newer than the verdict, and gives branch and number', () => {
    const out = prs(cycles, record({ url: PR(90), pr: 90, status: 'green', updatedAt: '2026-08-24T16:00:00.000Z' }));
    expect(out).toEqual([
      { loop: LOOP, url: PR(90), number: 90, branch: 'nightly/2026-08-25', status: 'ready', check: null, since: '2026-08-24T16:00:00.000Z', cycle: '2026-08-24' },
    ]);
  });

  it('loses to a newer verdict but still gives the branch', () => {
    const out = prs(cycles, record({ url: PR(90), status: 'pending', updatedAt: '2026-08-24T13:00:00.000Z' }));
    expect(out[0]).toMatchObject({ status: 'incomplete', check: 'ci/test', branch: 'nightly/2026-08-25', since: '2026-08-24T14:30:00.000Z' });
  });

  it('loses to any verdict when it is undated', () => {
    expect(prs(cycles, record({ url: PR(90), status: 'green' }))[0]?.status).toBe('incomplete');
  });

  it('shows a resumable incomplete record with its check, in the cycle resuming it', () => {
    const resuming = deliverCycle('2026-08-25', { status: 'running', startedAt: '2026-08-25T14:00:00.000Z', endedAt: null });
    const rec = record({ url: PR(90), pr: 90, status: 'incomplete', check: 'ci/e2e', updatedAt: '2026-08-25T14:10:00.000Z' });
    expect(prs([resuming, ...cycles], rec)).toEqual([
      { loop: LOOP, url: PR(90), number: 90, branch: 'nightly/2026-08-25', status: 'incomplete', check: 'ci/e2e', since: '2026-08-24T14:30:00.000Z', cycle: '2026-08-24' },
    ]);
  });

  it('lists a pending PR known only from the record', () => {
    const out = prs([], record({ url: 'https://github.com/acme/radon/pull/91', status: 'pending', updatedAt: '2026-08-25T15:00:00Z' }));
    expect(out).toEqual([expect.objectContaining({ status: 'pending', number: 91, since: '2026-08-25T15:00:00.000Z', cycle: null })]);
  });

  it('matches a record without a URL to a known PR by number', () => {
    const out = prs(cycles, record({ pr: 90, status: 'green', updatedAt: '2026-08-24T16:00:00Z' }));
    expect(out).toEqual([expect.objectContaining({ url: PR(90), status: 'ready' })]);
  });

  it("ignores another loop's record", () => {
    expect(prs([], record({ loop: 'testing', url: PR(5), status: 'green' }))).toEqual([]);
  });

  it('sorts ready, then incomplete, then pending, newest first within each', () => {
    const out = prs(
      [
        deliverCycle('2026-08-24', { status: 'ready', verdict: verdict('deliver-ready', [PR(3)]) }),
        deliverCycle('2026-08-23', { status: 'ready', verdict: verdict('deliver-ready', [PR(2), PR(1)]) }),
        deliverCycle('2026-08-22', { status: 'incomplete', verdict: verdict('deliver-incomplete', [PR(4)], 'ci') }),
      ],
      record({ url: PR(5), status: 'pending', updatedAt: '2026-08-25T01:00:00Z' }),
    );
    expect(out.map((p) => p.number)).toEqual([3, 1, 2, 4, 5]);
  });
});

describe('parseDeliverRecord', () => {
  it('reads every field and ignores unknown ones', () => {
    const text = JSON.stringify({ loop: LOOP, branch: 'nightly/x', pr: 90, url: PR(90), status: 'incomplete', check: 'ci/test', updated_at: '2026-08-25T10:00:00-04:00', extra: 1 });
    expect(parseDeliverRecord(text, 'deliver.json')).toEqual({
      record: { loop: LOOP, branch: 'nightly/x', pr: 90, url: PR(90), status: 'incomplete', check: 'ci/test', updatedAt: '2026-08-25T14:00:00.000Z' },
      problems: [],
    });
  });

  it('reports each field of the wrong type by name and keeps the rest', () => {
    const { record: r, problems } = parseDeliverRecord(JSON.stringify({ loop: 3, pr: 'abc', status: 'merged', url: PR(1), updated_at: 'yesterday' }), 'd.json');
    expect(r).toMatchObject({ loop: null, pr: null, status: null, url: PR(1), updatedAt: null });
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('"pr"'),
      expect.stringContaining('"status"'),
      expect.stringContaining('"updated_at"'),
      expect.stringContaining('"loop"'),
    ]);
    expect(problems.every((p) => p.source === 'd.json' && p.line === null)).toBe(true);
  });

  it('refuses a url that is not https, naming the field', () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'http://github.com/a/b/pull/1']) {
      const { record, problems } = parseDeliverRecord(JSON.stringify({ pr: 1, url }), 'd.json');
      expect(record?.url).toBeNull();
      expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('"url" should be an https URL')]);
    }
  });

  it('accepts a PR number written as a string', () => {
    expect(parseDeliverRecord('{"pr":"#12"}', 'd').record?.pr).toBe(12);
  });

  it('reports invalid JSON and a non-object naming the source', () => {
    const bad = parseDeliverRecord('{"loop":', '/var/loop/deliver.json');
    expect(bad.record).toBeNull();
    expect(bad.problems[0]?.message).toContain('/var/loop/deliver.json');
    expect(parseDeliverRecord('[1]', 'x.json').problems[0]?.message).toContain('x.json');
  });
});

describe('prNumber', () => {
  it('reads GitHub and GitLab URLs', () => {
    expect(prNumber(PR(88))).toBe(88);
    expect(prNumber('https://github.com/a/b/pull/88/files')).toBe(88);
    expect(prNumber('https://gitlab.com/a/b/-/merge_requests/4')).toBe(4);
    expect(prNumber('https://github.com/a/b/issues/3')).toBeNull();
  });
});
