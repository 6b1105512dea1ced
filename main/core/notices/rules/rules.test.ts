import type { ContractBreach } from '../../../../shared/contract-breach';
import { describe, expect, it } from 'vitest';
import { NoticeSchema } from '../../../../shared/domain';
import type { Cycle, NoticePriority, Phase } from '../../../../shared/domain';
import { trackIncidentSince } from './fleet-rules';
import { trackDownSince } from './host-rules';
import { ruleOverrides } from '../notify-config';
import { deriveNotices, type NoticeDraft } from './rules';
import { contractDrafts } from './contract-rules';
import { auditFinding, item, outcome, task } from '../../../../shared/waiting-fixtures';
import { CYCLE_29, drillRun, emptyInput, finding, gpu, host, phase, pr, reliabilityLoop } from '../../../../testing/notice-fixtures';

const NOW = new Date('2026-11-30T07:00:00.000Z');
const min = (m: number): string => new Date(NOW.getTime() - m * 60_000).toISOString();
const byKey = (drafts: NoticeDraft[]): Map<string, NoticeDraft> => new Map(drafts.map((d) => [d.key, d]));

describe('deriveNotices', () => {
  it('raises a missed loop at high priority, keyed by the fire it missed', () => {
    const drafts = deriveNotices(emptyInput(NOW, { loops: [reliabilityLoop({ cycles: [] })] }));
    expect(drafts).toEqual([
      {
        key: 'deadman:reliability:2026-11-30T05:00:00.000Z:missed',
        priority: 1,
        source: 'loop:reliability',
        title: 'reliability missed its run',
        message: expect.stringContaining('no cycle for 2026-11-30 by 01:00') as unknown as string,
        url: 'http://127.0.0.1:7777/#/loops/reliability',
        urlTitle: 'reliability in Loopdeck',
      },
    ]);
  });

  it('raises a stalled loop, and nothing for ok, late or overrun', () => {
    const dm = (state: 'ok' | 'late' | 'overrun' | 'stalled') => ({ state, expectedAt: null, lastFireAt: '2026-11-30T05:00:00.000Z', reason: `it is ${state}` });
    const loops = (['ok', 'late', 'overrun', 'stalled'] as const).map((s) => reliabilityLoop({ name: `l-${s}`, cycles: [], deadman: dm(s) }));
    const drafts = deriveNotices(emptyInput(NOW, { loops }));
    expect(drafts.map((d) => [d.key, d.priority, d.title])).toEqual([['deadman:l-stalled:2026-11-30T05:00:00.000Z:stalled', 1, 'l-stalled stalled']]);
  });

  it('says where an incomplete remediate stopped (stage suite, step pytest-full) and why', () => {
    const drafts = byKey(deriveNotices(emptyInput(NOW, { loops: [reliabilityLoop({ deadman: null })] })));
    const d = drafts.get('phase:reliability:2026-11-29:remediate:incomplete');
    expect(d?.priority).toBe(1);
    expect(d?.title).toBe('reliability remediate incomplete');
    expect(d?.message).toBe(
      'reliability remediate incomplete in cycle 2026-11-29 on mac; stopped in stage suite at step pytest-full. ' +
        'the wrapper stamped INCOMPLETE (exit 75: cap reached) cap 6h reached in round 3',
    );
    expect(drafts.has('phase:reliability:2026-11-29:audit:ok')).toBe(false);
  });

  it('raises a failed phase with its failing check, and a no-op phase quietly with its declared reason', () => {
    const failed = phase('deliver', 'failed', {
      verdict: { kind: 'deliver-incomplete', loop: 'reliability', phase: 'deliver', prs: null, urls: [], check: 'ci/pytest', reason: null, line: 'NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/pytest pr=…' },
    });
    const loop = reliabilityLoop({ deadman: null, cycles: [{ date: '2026-11-30', status: 'failed', phases: [failed] }, CYCLE_29] });
    const drafts = byKey(deriveNotices(emptyInput(NOW, { loops: [loop] })));
    expect(drafts.get('phase:reliability:2026-11-30:deliver:failed')).toMatchObject({ priority: 1, message: expect.stringContaining('failing check ci/pytest') });
    expect(drafts.get('phase:reliability:2026-11-29:deliver:no-op')).toMatchObject({ priority: -1, message: expect.stringContaining('nothing on the branch to deliver') });
  });

  it('raises each open P0 finding as an emergency keyed by loop and id; not P1s, not fixed P0s', () => {
    const findings = [finding('R-123', 'P0'), finding('R-124', 'P1'), finding('R-090', 'P0', { status: 'done' }), finding('rev-2#3', 'P0', { status: 'operator-only' })];
    const drafts = deriveNotices(emptyInput(NOW, { findings }));
    expect(drafts.map((d) => [d.key, d.priority])).toEqual([
      ['finding:reliability:R-123', 2],
      ['finding:reliability:rev-2#3', 2],
    ]);
    expect(drafts[0]).toMatchObject({ title: 'P0 R-123 (reliability)', url: 'http://127.0.0.1:7777/#/findings/reliability/R-123' });
    expect(drafts[0]?.message).toContain('scripts/ib_execute.py:212');
    expect(drafts[1]?.url).toBe('http://127.0.0.1:7777/#/findings/reliability/rev-2%233');
  });

  it('raises one notice per ready PR, linking the PR itself', () => {
    const drafts = deriveNotices(emptyInput(NOW, { prs: [pr(88), pr(89), pr(90, 'incomplete'), pr(91, 'pending')] }));
    expect(drafts.map((d) => [d.key, d.priority, d.title, d.url, d.urlTitle])).toEqual([
      ['pr:https://github.com/acme/radon/pull/88:ready', 0, 'PR #88 ready to merge', 'https://github.com/acme/radon/pull/88', 'PR #88'],
      ['pr:https://github.com/acme/radon/pull/89:ready', 0, 'PR #89 ready to merge', 'https://github.com/acme/radon/pull/89', 'PR #89'],
    ]);
  });

  it('raises a host down for 6 minutes but not one down for 4', () => {
    const hosts = [host('mac', 'unreachable', min(6)), host('linux', 'reconnecting', min(4))];
    const drafts = deriveNotices(emptyInput(NOW, { hosts, hostDownSince: trackDownSince({}, hosts, [], NOW) }));
    expect(drafts.map((d) => [d.key, d.priority, d.title])).toEqual([[`host-down:mac:${min(6)}`, 1, 'mac down for 6 min']]);
    expect(drafts[0]?.message).toContain('connect ETIMEDOUT');
    // It lands on the host, in the console's Hosts view (a route the renderer has).
    expect(drafts[0]?.url).toBe('http://127.0.0.1:7777/#/hosts/mac');
  });

  it('counts an inference host reported down by its proxy', () => {
    const capacity = [gpu('gpu-1', false, min(6)), gpu('gpu-2', true, min(600))];
    const drafts = deriveNotices(emptyInput(NOW, { capacity, hostDownSince: trackDownSince({}, [], capacity, NOW) }));
    expect(drafts.map((d) => [d.key, d.source])).toEqual([[`host-down:crossbar/gpu-1:${min(6)}`, 'proxy:crossbar']]);
    // An inference host is not a host Loopdeck reads: it lands on the fleet.
    expect(drafts[0]?.url).toBe('http://127.0.0.1:7777/#/capacity');
  });

  it('keeps an outage under one key while its state flips, and keys a recovery on the outage', () => {
    let tracked = trackDownSince({}, [host('mac', 'reconnecting', min(20))], [], new Date(Date.parse(min(19))));
    // The state changes (and with it HostState.since), the outage does not.
    tracked = trackDownSince(tracked, [host('mac', 'unreachable', min(2))], [], NOW);
    const down = deriveNotices(emptyInput(NOW, { hosts: [host('mac', 'unreachable', min(2))], hostDownSince: tracked }));
    expect(down.map((d) => d.key)).toEqual([`host-down:mac:${min(20)}`]);

    const later = new Date(NOW.getTime() + 60_000);
    tracked = trackDownSince(tracked, [host('mac', 'connected', later.toISOString())], [], later);
    expect(tracked).toEqual({ 'host:mac': `${min(20)}/${later.toISOString()}` });
    const back = deriveNotices(emptyInput(later, { hosts: [host('mac', 'connected', later.toISOString())], hostDownSince: tracked }));
    expect(back).toEqual([
      expect.objectContaining({ key: `host-recovered:mac:${min(20)}`, priority: 0, title: 'mac is back', requires: `host-down:mac:${min(20)}` }),
    ]);

    // A later outage is a new episode with a new key.
    const again = new Date(later.getTime() + 3_600_000);
    tracked = trackDownSince(tracked, [host('mac', 'unreachable', again.toISOString())], [], again);
    expect(tracked['host:mac']).toBe(again.toISOString());
  });

  it('raises a due drill under waiting-drill-due (priority 0 by default), keyed by the time it fell due', () => {
    const drill = { name: 'restore-db', host: 'mac', timeoutMs: 1_800_000, args: {}, everyMs: 30 * 86_400_000 };
    const old = { ...drillRun('run-9', 'ok', 0), drill: 'restore-db', startedAt: '2026-10-30T07:00:00.000Z' };
    const drafts = deriveNotices(emptyInput(NOW, { drills: [drill], drillRuns: [old] }));
    const due = drafts.find((d) => d.key.startsWith('waiting:drill-due:'));
    expect(due).toMatchObject({
      key: 'waiting:drill-due:mac:restore-db:2026-11-29T07:00:00.000Z',
      priority: 0,
      source: 'drill:restore-db',
      url: 'http://127.0.0.1:7777/#/drills',
    });
    expect(due?.message).toContain('Run drill restore-db on mac');
    const raised = deriveNotices(emptyInput(NOW, { drills: [drill], drillRuns: [old], rules: { 'waiting-drill-due': 1 } }));
    expect(raised.find((d) => d.key.startsWith('waiting:drill-due:'))?.priority).toBe(1);
    // A fresh success: nothing due.
    const fresh = { ...old, id: 'run-10', startedAt: '2026-11-29T07:00:00.000Z' };
    expect(deriveNotices(emptyInput(NOW, { drills: [drill], drillRuns: [old, fresh] })).some((d) => d.key.startsWith('waiting:drill-due:'))).toBe(false);
  });

  it('raises a finished drill once per run, not a running one', () => {
    const drafts = deriveNotices(emptyInput(NOW, { drillRuns: [drillRun('run-1', 'failed', 1), drillRun('run-2', 'running', null)] }));
    expect(drafts).toEqual([
      expect.objectContaining({ key: 'drill:run-1', priority: 0, source: 'drill:halt-drill', title: 'Drill halt-drill: failed (rc 1)' }),
    ]);
    expect(drafts[0]?.message).toContain('after 3 min');
  });

  it('applies notify.rules overrides and reports rule names it does not know', () => {
    const { rules, unknown } = ruleOverrides({ 'prs-ready': 1, 'phase-no-op': -2, 'pr-ready': 0 });
    expect(unknown).toEqual(['pr-ready']);
    const drafts = byKey(deriveNotices(emptyInput(NOW, { rules, prs: [pr(88)], loops: [reliabilityLoop({ deadman: null })] })));
    expect(drafts.get('pr:https://github.com/acme/radon/pull/88:ready')?.priority).toBe(1);
    expect(drafts.get('phase:reliability:2026-11-29:deliver:no-op')?.priority).toBe(-2);
  });

  it('keeps every message within 1024 characters, ends a cut one with an ellipsis, and omits links without a console URL', () => {
    const long = finding('R-200', 'P0', { text: 'x'.repeat(3000) });
    const [d] = deriveNotices(emptyInput(NOW, { findings: [long], consoleUrl: undefined }));
    expect(d?.message.length).toBe(1024);
    expect(d?.message.endsWith('…')).toBe(true);
    expect(d?.url).toBeNull();
    expect(d?.urlTitle).toBeNull();
    expect(() => NoticeSchema.parse({ ...d, createdAt: NOW.toISOString(), acknowledgedAt: null, snoozedUntil: null })).not.toThrow();
  });

  it('gives the same keys for the same state whatever its text or the time it is read', () => {
    const input = emptyInput(NOW, { loops: [reliabilityLoop()], findings: [finding('R-123', 'P0')], prs: [pr(88)] });
    const a = deriveNotices(input).map((d) => d.key);
    const reworded = { ...input, now: new Date(NOW.getTime() + 3_600_000), findings: [finding('R-123', 'P0', { text: 'reworded by a second pass' })] };
    expect(deriveNotices(reworded).map((d) => d.key)).toEqual(a);
  });

  it('raises what a running phase\'s transcript tells at its rule\'s priority, keyed by loop, cycle, phase and kind, linking the line', () => {
    const signalled = (kind: 'hung' | 'spinning' | 'watchdog', line: number | null) =>
      phase('remediate', 'running', { signal: { kind, line, since: '2026-11-30T06:00:00.000Z', detail: `${kind} detail` } });
    const cycles = [
      { date: '2026-11-30', status: 'running' as const, phases: [phase('audit', 'ok'), signalled('hung', 1234)] },
      { date: '2026-11-28', status: 'running' as const, phases: [signalled('spinning', 77)] },
      { date: '2026-11-27', status: 'running' as const, phases: [signalled('watchdog', null)] },
      // A finished phase carrying one (an old summary) raises nothing of it.
      { date: '2026-11-26', status: 'failed' as const, phases: [phase('remediate', 'failed', { signal: { kind: 'hung', line: 3, since: '2026-11-26T06:00:00.000Z', detail: 'x' } })] },
    ];
    const drafts = deriveNotices(emptyInput(NOW, { loops: [reliabilityLoop({ deadman: null, cycles })] })).filter((d) => d.key.startsWith('signal:'));
    expect(drafts.map((d) => [d.key, d.priority, d.title, d.url, d.urlTitle])).toEqual([
      ['signal:reliability:2026-11-30:remediate:hung', 1, 'reliability remediate hung', 'http://127.0.0.1:7777/#/loops/reliability/2026-11-30/remediate/log?line=1234', "remediate's transcript at line 1234 in Loopdeck"],
      ['signal:reliability:2026-11-28:remediate:spinning', 0, 'reliability remediate spinning', 'http://127.0.0.1:7777/#/loops/reliability/2026-11-28/remediate/log?line=77', "remediate's transcript at line 77 in Loopdeck"],
      ['signal:reliability:2026-11-27:remediate:watchdog', 1, 'reliability remediate killed by the stream watchdog', 'http://127.0.0.1:7777/#/loops/reliability/2026-11-27/remediate/log', "remediate's transcript in Loopdeck"],
    ]);
    expect(drafts[0]?.message).toBe('reliability remediate hung in cycle 2026-11-30 on mac, since 2026-11-30T06:00:00.000Z: hung detail.');
    for (const d of drafts) expect(NoticeSchema.safeParse({ ...d, createdAt: NOW.toISOString(), acknowledgedAt: null, snoozedUntil: null }).success).toBe(true);
    const over = deriveNotices(emptyInput(NOW, { loops: [reliabilityLoop({ deadman: null, cycles })], rules: { 'phase-spinning': 2, 'phase-hung': -1 } }));
    expect(over.filter((d) => d.key.startsWith('signal:')).map((d) => d.priority)).toEqual([-1, 2, 1]);
  });

  describe('waiting on you', () => {
    const backlog = [
      item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: the broker mock cannot drop mid-frame')]),
      item('REL-051', [outcome('2026-08-23', 'operator-only', 'rotate the broker credential')], { loop: 'testing' }),
      item('REL-050', [outcome('2026-08-22', 'BLOCKED', 'root cause: x'), outcome('2026-08-23', 'DONE', 'gates 14/14')]),
    ];
    const tasks = [task('v2/01-props', 'stopped', { notes: 'make gate fails on two GIVEN v1 proxy tests' })];
    const findings = [auditFinding('R-105', [])];
    const waiting = (drafts: NoticeDraft[]) => drafts.filter((d) => d.key.startsWith('waiting:')).map((d) => [d.key, d.priority]);

    it('raises each item at priority 1 under a key of its kind, loop and id (two loops sharing an id are two notices)', () => {
      const drafts = deriveNotices(emptyInput(NOW, { backlog, tasks, findings }));
      expect(waiting(drafts)).toEqual([
        ['waiting:blocked:reliability:REL-051', 1],
        ['waiting:operator-only:testing:REL-051', 1],
        ['waiting:stopped:proxy:v2/01-props', 1],
        ['waiting:uncovered:reliability:R-105', 1],
      ]);
      const blocked = drafts.find((d) => d.key === 'waiting:blocked:reliability:REL-051');
      expect(blocked?.message).toContain('root cause: the broker mock cannot drop mid-frame');
      expect(drafts.find((d) => d.key.startsWith('waiting:stopped'))?.message).toContain('Notes: make gate fails');
      expect(drafts.find((d) => d.key.startsWith('waiting:operator-only'))?.message).toContain('rotate the broker credential');
    });

    it('takes notify.rules overrides per kind, and stops raising an item once a later DONE is logged', () => {
      const { rules } = ruleOverrides({ 'waiting-uncovered': -1, 'waiting-blocked': 2 });
      expect(waiting(deriveNotices(emptyInput(NOW, { backlog: backlog.slice(0, 1), findings, rules })))).toEqual([
        ['waiting:blocked:reliability:REL-051', 2],
        ['waiting:uncovered:reliability:R-105', -1],
      ]);
      const done = item('REL-051', [...(backlog[0]?.outcomes ?? []), outcome('2026-08-24', 'DONE', 'gates 14/14')]);
      expect(waiting(deriveNotices(emptyInput(NOW, { backlog: [done] })))).toEqual([]);
    });

    it('raises each Broken contract item once, at priority 0 (overridable per kind, contract-<kind>); a hollow remediate keeps its key and the old rule name', () => {
      const evidence = { file: '/srv/runs/2026-11-29/remediate.log', line: null, url: null };
      const hollow: ContractBreach = { kind: 'hollow', loop: 'reliability', date: '2026-11-29', phase: 'remediate', id: null, detail: 'remediate ended ok while REL-052, REL-053 had no outcome', since: null, evidence };
      const stage: ContractBreach = { ...hollow, kind: 'unfinished-stage', id: 'gates', detail: 'remediate is stamped OK while its gates stage has no DONE', evidence: { ...evidence, file: '/srv/runs/2026-11-29/remediate.gates.rc' } };
      const drafts = deriveNotices(emptyInput(NOW, { contract: [hollow, stage] }));
      expect(drafts.map((d) => [d.key, d.priority])).toEqual([
        ['hollow:reliability:2026-11-29:remediate', 0],
        ['contract:unfinished-stage:reliability:2026-11-29:remediate:gates', 0],
      ]);
      expect(drafts[0]?.message).toContain('REL-052, REL-053');
      expect(drafts[1]?.message).toContain('The manual: "The phase\'s completion marker must not be printed while any stage is still in flight."');
      expect(drafts[1]?.message).toContain('/srv/runs/2026-11-29/remediate.gates.rc');
      const { rules, unknown } = ruleOverrides({ 'remediate-hollow': 1, 'contract-unfinished-stage': 2 });
      expect(unknown).toEqual([]);
      expect(deriveNotices(emptyInput(NOW, { contract: [hollow, stage], rules })).map((d) => d.priority)).toEqual([1, 2]);
      // The phase's own hollow mark raises nothing by itself: the list is the one source.
      const loop = reliabilityLoop({ deadman: null, cycles: [{ date: '2026-11-29', status: 'ok', phases: [phase('remediate', 'ok', { hollow: { items: ['REL-052'] } })] }] });
      expect(deriveNotices(emptyInput(NOW, { loops: [loop] }))).toEqual([]);
    });

    it('makes the drafts of a Broken contract list once while the list and the priorities are the same (the notices are derived every few seconds)', () => {
      const evidence = { file: '/srv/runs/2026-11-29/remediate.log', line: null, url: null };
      const list: ContractBreach[] = ['2026-11-28', '2026-11-29'].map((date) => ({ kind: 'hollow', loop: 'reliability', date, phase: 'remediate', id: null, detail: 'remediate ended ok while REL-052 had no outcome', since: null, evidence }));
      const first = contractDrafts(list, () => 0);
      expect(contractDrafts(list, () => 0)).toBe(first);
      // Another priority, another link, or another list (the book replaces it when it moves): made again.
      const urgent = contractDrafts(list, () => 1);
      expect(urgent).not.toBe(first);
      expect(urgent.map((d) => d.priority)).toEqual([1, 1]);
      expect(contractDrafts(list, () => 0, 'http://127.0.0.1:9999/')).not.toBe(first);
      const again = contractDrafts([...list], () => 0);
      expect(again).not.toBe(first);
      expect(again).toEqual(first);
    });
  });
});

describe('fleet incident notices', () => {
  const burst = { ...gpu('gpu-a', true, min(60)), errorShare: { errors: 30, requests: 200, windowMs: 900_000 } };
  it('raise an error burst keyed by its episode, at the rule\'s priority or its override, linking the fleet', () => {
    const since = trackIncidentSince({}, [burst], NOW);
    expect(since).toEqual({ 'crossbar:gpu-a:error-burst': NOW.toISOString() });
    const [d] = deriveNotices(emptyInput(NOW, { capacity: [burst], fleetIncidentSince: since }));
    expect(d).toMatchObject({ key: `fleet:crossbar:gpu-a:error-burst:${NOW.toISOString()}`, priority: 1, source: 'proxy:crossbar', title: 'crossbar/gpu-a: error burst', url: 'http://127.0.0.1:7777/#/capacity' });
    expect(deriveNotices(emptyInput(NOW, { capacity: [burst], fleetIncidentSince: since, rules: ruleOverrides({ 'fleet-error-burst': -1 }).rules }))[0]?.priority).toBe(-1);
    // A saturated host is shown, not pushed.
    expect(deriveNotices(emptyInput(NOW, { capacity: [{ ...gpu('gpu-b', true, min(60)), slotsBusy: 4 }] }))).toEqual([]);
  });

  it('keep an episode\'s start while it lasts and while its proxy is not polled yet, and drop it once it clears', () => {
    const first = trackIncidentSince({}, [burst], new Date(NOW.getTime() - 60_000));
    expect(trackIncidentSince(first, [burst], NOW)).toEqual(first);
    expect(trackIncidentSince(first, [], NOW)).toEqual(first);
    expect(trackIncidentSince(first, [{ ...burst, errorShare: { errors: 1, requests: 200, windowMs: 900_000 } }], NOW)).toEqual({});
  });
});

describe('incompletes that fix themselves (issue 43, item 14)', () => {
  const EXIT_75 = phase('remediate', 'incomplete', { resumable: true, reason: 'wrapper stamp FAILED 75' });
  const PLAIN = phase('remediate', 'incomplete', { reason: 'wrapper stamp INCOMPLETE', detail: ['agent exited 0 without committing to the nightly branch'] });
  const PR_90 = 'https://github.com/acme/radon/pull/90';
  const DELIVER_INCOMPLETE = phase('deliver', 'incomplete', {
    reason: 'wrapper stamp INCOMPLETE: ci/pytest',
    verdict: { kind: 'deliver-incomplete', loop: 'reliability', phase: null, prs: null, urls: [PR_90], check: 'ci/pytest', reason: null, line: `NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/pytest pr=${PR_90}` },
  });
  /** PR #90 as the PR list carries a deliver record with status `incomplete` (check ci/pytest). */
  const RESUMING = { ...pr(90, 'incomplete'), check: 'ci/pytest', cycle: '2026-11-29' };
  const cycle = (date: string, phases: Phase[]): Cycle => ({ date, status: phases.some((p) => p.status === 'incomplete') ? 'incomplete' : 'ok', phases });
  const OK_28 = cycle('2026-11-28', [phase('audit', 'ok'), phase('remediate', 'ok'), phase('deliver', 'ok')]);
  const notices = (cycles: Cycle[], over: Parameters<typeof emptyInput>[1] = {}) =>
    byKey(deriveNotices(emptyInput(NOW, { loops: [reliabilityLoop({ deadman: null, cycles })], ...over })));
  const REMEDIATE_29 = 'phase:reliability:2026-11-29:remediate:incomplete';
  const DELIVER_29 = 'phase:reliability:2026-11-29:deliver:incomplete';

  it('notices an exit-75 phase at priority 0, saying it resumes on the next fire', () => {
    expect(notices([cycle('2026-11-29', [EXIT_75]), OK_28]).get(REMEDIATE_29)).toMatchObject({
      priority: 0,
      message: 'reliability remediate incomplete in cycle 2026-11-29 on mac. Not urgent: exit 75, it resumes on the next fire. wrapper stamp FAILED 75',
    });
    // The operator's priority for phase-incomplete is the ceiling: 2 is quieted to 0, -1 stays -1.
    const at = (p: NoticePriority) => notices([cycle('2026-11-29', [EXIT_75]), OK_28], { rules: ruleOverrides({ 'phase-incomplete': p }).rules }).get(REMEDIATE_29)?.priority;
    expect([at(2), at(-1)]).toEqual([0, -1]);
    // Without the previous cycle in view a repeat cannot be ruled out: the rule's priority, nothing said.
    expect(notices([cycle('2026-11-29', [EXIT_75])]).get(REMEDIATE_29)).toMatchObject({ priority: 1, message: 'reliability remediate incomplete in cycle 2026-11-29 on mac. wrapper stamp FAILED 75' });
  });

  it('notices a resumable deliver INCOMPLETE (its PR incomplete in the deliver record) at priority 0, naming the PR', () => {
    const d = notices([cycle('2026-11-29', [DELIVER_INCOMPLETE]), OK_28], { prs: [RESUMING] }).get(DELIVER_29);
    expect(d?.priority).toBe(0);
    expect(d?.message).toContain('failing check ci/pytest. Not urgent: PR #90 resumes on the next fire (the deliver record holds it incomplete on ci/pytest).');
    // A PR of another loop, or none incomplete: nothing says the next fire finishes it.
    expect(notices([cycle('2026-11-29', [DELIVER_INCOMPLETE]), OK_28], { prs: [{ ...RESUMING, loop: 'testing' }] }).get(DELIVER_29)?.priority).toBe(1);
    expect(notices([cycle('2026-11-29', [DELIVER_INCOMPLETE]), OK_28], { prs: [pr(90, 'ready')] }).get(DELIVER_29)?.priority).toBe(1);
  });

  it('notices the same phase, or the same deliver check, incomplete two fires in a row at priority 1, naming the dates', () => {
    const phaseTwice = notices([cycle('2026-11-29', [EXIT_75]), cycle('2026-11-28', [EXIT_75])]).get(REMEDIATE_29);
    expect(phaseTwice).toMatchObject({ priority: 1, message: expect.stringContaining('Incomplete two fires in a row: 2026-11-28, 2026-11-29; it is not fixing itself.') as unknown as string });
    const checkTwice = notices([cycle('2026-11-29', [DELIVER_INCOMPLETE]), cycle('2026-11-28', [DELIVER_INCOMPLETE])], { prs: [RESUMING] }).get(DELIVER_29);
    expect(checkTwice?.priority).toBe(1);
    expect(checkTwice?.message).toContain('Incomplete two fires in a row: 2026-11-28, 2026-11-29 (check ci/pytest both times); it is not fixing itself.');
    // Not in a row: an ok fire in between makes the latest one resume quietly again.
    expect(notices([cycle('2026-11-29', [EXIT_75]), OK_28, cycle('2026-11-27', [EXIT_75])]).get(REMEDIATE_29)?.priority).toBe(0);
  });

  it('reads the previous fire and the PRs from the whole state when the input holds only what changed (as a poll hands it)', () => {
    // A poll hands the rules only the cycles that changed and no PRs when those did not move.
    const changedOnly = [cycle('2026-11-29', [EXIT_75, DELIVER_INCOMPLETE])];
    const whole = [...changedOnly, OK_28];
    const quiet = notices(changedOnly, { cyclesOf: () => whole, prs: [], currentPrs: [RESUMING] });
    expect([quiet.get(REMEDIATE_29)?.priority, quiet.get(DELIVER_29)?.priority]).toEqual([0, 0]);
    const repeated = notices(changedOnly, { cyclesOf: () => [...changedOnly, cycle('2026-11-28', [EXIT_75])], prs: [], currentPrs: [RESUMING] });
    expect(repeated.get(REMEDIATE_29)?.priority).toBe(1);
  });

  it('keeps a plain incomplete at its rule\'s priority and message, beside a resumable one', () => {
    const drafts = notices([cycle('2026-11-29', [phase('audit', 'incomplete', { resumable: true, reason: 'wrapper stamp FAILED 75' }), PLAIN, DELIVER_INCOMPLETE]), OK_28]);
    expect(drafts.get('phase:reliability:2026-11-29:audit:incomplete')?.priority).toBe(0);
    expect(drafts.get(REMEDIATE_29)).toMatchObject({
      priority: 1,
      message: 'reliability remediate incomplete in cycle 2026-11-29 on mac. wrapper stamp INCOMPLETE agent exited 0 without committing to the nightly branch',
    });
    // A deliver INCOMPLETE whose PR no record holds incomplete is plain too.
    expect(drafts.get(DELIVER_29)?.priority).toBe(1);
    expect(drafts.get(DELIVER_29)?.message).not.toContain('Not urgent');
  });
});
