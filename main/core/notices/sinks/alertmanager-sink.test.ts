import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Cycle, DrillRun, Finding, LoopState } from '../../../../shared/domain';
import { parseConfig } from '../../config/load-config';
import { Store } from '../../store/store';
import { conditionOf, ruleOfKey } from './alertmanager-alert';
import { AlertmanagerSink, type AlertmanagerSinkOptions } from './alertmanager-sink';
import { NoticeService } from '../notice-service';
import type { NotifyConfig } from '../notify-config';
import { deriveNotices } from '../rules/rules';
import { drillRun, emptyInput, finding, phase, reliabilityLoop } from '../../../../testing/notice-fixtures';
import { startAlertmanager, startAlertmanagerFront, type AlertmanagerFront, type ListedAlert, type TestAlertmanager } from '../../../../testing/alertmanager';
import { until } from '../../../../testing/until';

// A real Alertmanager 0.25 on loopback, shared by the tests; each test uses its own loop name so
// their alerts never meet. The front between the sink and Alertmanager records the posts and
// injects outages. The clock is the real one: Alertmanager judges `endsAt` by its own.

let am: TestAlertmanager;
let front: AlertmanagerFront;
let store: Store;
let seq = 0;
let loopName = '';

beforeAll(async () => {
  am = await startAlertmanager();
}, 30_000);
afterAll(async () => {
  await am?.stop();
});
beforeEach(async () => {
  front = await startAlertmanagerFront(am.url);
  store = Store.open(join(mkdtempSync(join(tmpdir(), 'ld-am-')), 'loopdeck.db'));
  loopName = `rel${process.pid}-${++seq}-${Date.now() % 100_000}`;
});
afterEach(async () => {
  store.close();
  await front.close();
});

type State = { loops: LoopState[]; findings: Finding[]; drillRuns: DrillRun[] };

function setup(opts: Partial<AlertmanagerSinkOptions> = {}, s: Store = store) {
  const logs: string[] = [];
  const notify: NotifyConfig = { alertmanager: { url: front.url } };
  const sink = new AlertmanagerSink({ store: s, notify, log: (m) => logs.push(m), backoffMs: 50, backoffMaxMs: 200, random: () => 0.5, ...opts });
  const svc = new NoticeService({ store: s, notify, sinks: [sink], log: (m) => logs.push(m) });
  /** One notifier update: derive, raise what is new, let the sink judge (as the Notifier does). */
  const step = async (state: State, full = false, seed = false): Promise<void> => {
    const drafts = deriveNotices(emptyInput(new Date(), state));
    sink.observe(state, drafts, full);
    // As the Notifier does: the first start's seed goes through a service without sinks.
    (seed ? new NoticeService({ store: s, notify, sinks: [] }) : svc).update(drafts, { seed });
    await sink.flush();
  };
  return { sink, svc, logs, step };
}

const loop = (cycles: Cycle[]): LoopState => reliabilityLoop({ name: loopName, cycles, deadman: null });
const cycle = (date: string, ...phases: ReturnType<typeof phase>[]): Cycle => ({ date, status: phases.some((p) => p.status === 'failed') ? 'failed' : 'ok', phases });
const p0 = (id: string, over: Partial<Finding> = {}): Finding => finding(id, 'P0', { loop: loopName, ...over });

async function listed(key: string): Promise<ListedAlert | undefined> {
  return (await am.alerts()).find((a) => a.labels.key === key);
}
const gone = async (key: string): Promise<boolean> => (await listed(key)) === undefined;
const posted = (key: string): ListedAlert[] => front.posts.flatMap((p) => p.alerts.filter((a) => a.labels.key === key));

describe('AlertmanagerSink against a real Alertmanager', () => {
  it('posts a notice raised after start with its labels and annotations, and resolves it when acknowledged', async () => {
    const { svc, step } = setup();
    await step({ loops: [], findings: [], drillRuns: [] }, true);
    const failed = loop([cycle('2026-11-29', phase('audit', 'failed'))]);
    await step({ loops: [failed], findings: [], drillRuns: [] });
    const key = `phase:${loopName}:2026-11-29:audit:failed`;
    await until(async () => (await listed(key))?.status.state === 'active', 10_000, 'the alert to be active');
    const alert = await listed(key);
    expect(alert?.labels).toEqual({ alertname: 'phase-failed', loop: loopName, host: 'mac', priority: '1', key });
    expect(alert?.annotations).toMatchObject({ title: `${loopName} audit failed`, summary: `${loopName} audit failed`, url: `http://127.0.0.1:7777/#/loops/${loopName}/2026-11-29/audit/log` });
    expect(alert?.annotations.text).toMatch(/audit failed in cycle 2026-11-29 on mac/);
    expect(alert?.generatorURL).toBe(`http://127.0.0.1:7777/#/loops/${loopName}/2026-11-29/audit/log`);
    const notice = svc.list().find((n) => n.key === key);
    expect(Date.parse(alert?.startsAt ?? '')).toBe(Date.parse(notice?.createdAt ?? ''));
    expect(Date.parse(alert?.endsAt ?? '')).toBeGreaterThan(Date.now() + 60_000); // a few minutes ahead

    const ackedAt = svc.acknowledge(key, 'alice');
    // The front records a post once Alertmanager has answered it, so after Alertmanager applied it: both are waited for.
    await until(async () => (await gone(key)) && posted(key).length > 0 && posted(key).at(-1)?.endsAt === ackedAt, 10_000, 'the alert to be resolved at the acknowledgement');
    expect(posted(key).at(-1)?.endsAt).toBe(ackedAt);
  });

  it('resolves when the condition clears: a P0 finding fixed, a failed phase run through in a later cycle', async () => {
    const { step } = setup();
    await step({ loops: [], findings: [], drillRuns: [] }, true);
    const failed = loop([cycle('2026-11-29', phase('audit', 'failed'))]);
    await step({ loops: [failed], findings: [p0('R-1'), p0('R-2')], drillRuns: [] });
    const phaseKey = `phase:${loopName}:2026-11-29:audit:failed`;
    const f1 = `finding:${loopName}:R-1`;
    const f2 = `finding:${loopName}:R-2`;
    await until(async () => !(await gone(phaseKey)) && !(await gone(f1)) && !(await gone(f2)), 10_000, 'three alerts');

    // A delta with only R-1, now done: R-1 resolves; R-2, not in the delta, keeps firing.
    await step({ loops: [], findings: [p0('R-1', { status: 'done' })], drillRuns: [] });
    await until(() => gone(f1), 10_000, 'R-1 to be resolved');
    expect(await listed(f2)).toBeDefined();
    // The next cycle's audit ran through: the failed audit of 2026-11-29 is over.
    await step({ loops: [loop([cycle('2026-11-30', phase('audit', 'ok'))])], findings: [], drillRuns: [] });
    await until(() => gone(phaseKey), 10_000, 'the failed phase to be resolved');
    expect(await listed(f2)).toBeDefined();
  });

  it('posts firing alerts again while they last; one no longer sent ends in Alertmanager by itself', async () => {
    const { svc, sink, step } = setup({ resendMs: 300, lifetimeMs: 2_500 });
    await step({ loops: [], findings: [], drillRuns: [] }, true);
    await step({ loops: [], findings: [p0('R-7')], drillRuns: [] });
    const key = `finding:${loopName}:R-7`;
    const first = Date.parse(posted(key)[0]?.endsAt ?? '');
    // Past the first endsAt, re-posts keep it firing.
    await until(
      async () => {
        await svc.tick();
        await sink.flush();
        return Date.now() > first + 500 && (await listed(key))?.status.state === 'active';
      },
      15_000,
      're-posts keeping the alert firing past its first endsAt',
      100,
    );
    expect(posted(key).length).toBeGreaterThan(3);
    // No more ticks (Loopdeck quit): Alertmanager resolves it at the last endsAt.
    await until(() => gone(key), 15_000, 'Alertmanager to end the alert no longer sent', 100);
  });

  it('keeps a resolve through an outage and posts it when Alertmanager answers again', async () => {
    const { svc, sink, step, logs } = setup();
    await step({ loops: [], findings: [], drillRuns: [] }, true);
    await step({ loops: [], findings: [p0('R-3')], drillRuns: [] });
    const key = `finding:${loopName}:R-3`;
    await until(async () => !(await gone(key)), 10_000, 'the alert');
    front.failNext(503, 3);
    svc.acknowledge(key, 'alice');
    await sink.flush();
    expect(logs.join('\n')).toMatch(/Alertmanager post to .* failed \(HTTP 503: injected outage\); 1 resolves/);
    expect(await listed(key)).toBeDefined();
    await until(
      async () => {
        await svc.tick();
        await sink.flush();
        return gone(key);
      },
      10_000,
      'the resolve to land after the outage',
      60,
    );
    expect(logs.join('\n')).toMatch(/answers again/);
  });

  it('resolves after a restart an alert acknowledged while its resolve could not be posted', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-am-restart-')), 'loopdeck.db');
    const first = Store.open(file);
    const a = setup({}, first);
    await a.step({ loops: [], findings: [], drillRuns: [] }, true);
    await a.step({ loops: [], findings: [p0('R-4')], drillRuns: [] });
    const key = `finding:${loopName}:R-4`;
    await until(async () => !(await gone(key)), 10_000, 'the alert');
    front.failNext(503, 1);
    a.svc.acknowledge(key, 'alice');
    await a.sink.flush();
    first.close();

    const second = Store.open(file);
    const b = setup({}, second);
    await b.step({ loops: [], findings: [p0('R-4')], drillRuns: [] }, true);
    await until(() => gone(key), 10_000, 'the new process to resolve it');
    second.close();
  });

  it('never fires what the first start listed (seeded), and posts nothing for it', async () => {
    const { svc, sink, step } = setup();
    await step({ loops: [loop([cycle('2026-11-29', phase('audit', 'failed'))])], findings: [p0('R-5')], drillRuns: [] }, true, true);
    await svc.tick();
    await sink.flush();
    expect(front.posts.flatMap((p) => p.alerts)).toEqual([]);
    expect((await am.alerts()).filter((x) => x.labels.loop === loopName)).toEqual([]);
  });

  it('lets an event (a drill finished) end on its own', async () => {
    const { step } = setup({ eventMs: 1_500 });
    await step({ loops: [], findings: [], drillRuns: [] }, true);
    const run = { ...drillRun(`${loopName}-run`, 'ok', 0), host: 'runner' };
    await step({ loops: [], findings: [], drillRuns: [run] });
    const key = `drill:${run.id}`;
    const alert = await listed(key);
    expect(alert?.labels).toEqual({ alertname: 'drill-finished', drill: 'halt-drill', host: 'runner', priority: '0', key });
    expect(Date.parse(alert?.endsAt ?? '')).toBe(Date.parse(alert?.startsAt ?? '') + 1_500);
    await until(() => gone(key), 10_000, 'the event to end');
  });
});

describe('alert rules and conditions', () => {
  it.each([
    ['deadman:rel:2026-11-30T05:00:00.000Z:missed', 'loop-missed'],
    ['deadman:rel:2026-11-30T05:00:00.000Z:stalled', 'loop-stalled'],
    ['phase:rel:2026-11-29:audit:failed', 'phase-failed'],
    ['phase:rel:2026-11-29:remediate:incomplete', 'phase-incomplete'],
    ['finding:rel:R-1', 'finding-p0'],
    ['pr:https://github.com/acme/radon/pull/88:ready', 'prs-ready'],
    ['host-down:crossbar/gpu-1:2026-11-30T05:00:00.000Z', 'host-down'],
    ['host-recovered:mac:2026-11-30T05:00:00.000Z', 'host-recovered'],
    ['drill:abc', 'drill-finished'],
    ['signal:rel:2026-11-29:remediate:hung', 'phase-hung'],
    ['signal:rel:2026-11-29:remediate:spinning', 'phase-spinning'],
    ['signal:rel:2026-11-29:remediate:watchdog', 'phase-watchdog'],
    ['signal:rel:2026-11-29:remediate:other', null],
    ['waiting:blocked:rel:REL-051', 'waiting-blocked'],
    ['waiting:operator-only:rel:REL-052', 'waiting-operator-only'],
    ['waiting:stopped:proxy:v2/01-props', 'waiting-stopped'],
    ['waiting:uncovered:rel:R-105', 'waiting-uncovered'],
    ['waiting:drill-due:mac:restore-db:never', 'waiting-drill-due'],
    ['hollow:rel:2026-11-29:remediate', 'contract-hollow'],
    ['contract:no-verdict:rel:2026-11-29:deliver:', 'contract-no-verdict'],
    ['fleet:crossbar:gpu-1:error-burst:2026-11-30T05:00:00.000Z', 'fleet-error-burst'],
    ['fleet:crossbar:10.0.0.7:8081:error-burst:2026-11-30T05:00:00.000Z', 'fleet-error-burst'],
    ['fleet:gateway:gateway:heap:2026-11-30T05:00:00.000Z', 'fleet-heap'],
    ['fleet:gateway:gateway:shed-threshold:2026-11-30T05:00:00.000Z', 'fleet-shed-threshold'],
    ['fleet:gateway:gateway:saturated:2026-11-30T05:00:00.000Z', null],
    ['preflight:rel:2026-12-01T00:00:00.000Z', 'preflight-at-risk'],
    ['something-else', null],
  ])('%s is raised by %s', (key, rule) => expect(ruleOfKey(key)).toBe(rule));

  it('judges a phase only when the update covers its loop', () => {
    const n = { key: 'phase:rel:2026-11-29:audit:failed', source: 'loop:rel' };
    const rel = (cycles: Cycle[]): LoopState => ({ name: 'rel', host: 'mac', cycles, deadman: null });
    const scope = (loops: LoopState[], full = false) => ({ full, derived: new Set([n.key]), loops: new Map(loops.map((l) => [l.name, l])), findings: new Set<string>() });
    expect(conditionOf(n, scope([]))).toBe('unknown');
    expect(conditionOf(n, scope([rel([cycle('2026-11-30', phase('audit', 'failed'))])]))).toBe('unknown');
    expect(conditionOf(n, scope([rel([cycle('2026-11-30', phase('audit', 'ok'))])]))).toBe('cleared');
    expect(conditionOf(n, scope([rel([cycle('2026-11-28', phase('audit', 'ok')), cycle('2026-11-29', phase('audit', 'failed'))])], true))).toBe('holds');
  });

  it('judges a phase signal like its phase: it holds while derived, and clears when its cycle no longer calls for it', () => {
    const n = { key: 'signal:rel:2026-11-29:remediate:hung', source: 'loop:rel' };
    const rel = (cycles: Cycle[]): LoopState => ({ name: 'rel', host: 'mac', cycles, deadman: null });
    const scope = (derived: string[], loops: LoopState[]) => ({ full: false, derived: new Set(derived), loops: new Map(loops.map((l) => [l.name, l])), findings: new Set<string>() });
    const running = rel([cycle('2026-11-29', phase('remediate', 'running'))]);
    expect(conditionOf(n, scope([n.key], []))).toBe('unknown');
    expect(conditionOf(n, scope([n.key], [running]))).toBe('holds');
    expect(conditionOf(n, scope([], [running]))).toBe('cleared');
  });

  it('judges a ready PR only when the update derived the PR list', () => {
    const n = { key: 'pr:https://github.com/acme/radon/pull/88:ready', source: 'loop:rel' };
    const scope = (derived: string[], prs: boolean | undefined, full = false) => ({ full, derived: new Set(derived), loops: new Map(), findings: new Set<string>(), ...(prs === undefined ? {} : { prs }) });
    expect(conditionOf(n, scope([], false))).toBe('unknown'); // the list did not change: left out, not cleared
    expect(conditionOf(n, scope([], true))).toBe('cleared');
    expect(conditionOf(n, scope([n.key], true))).toBe('holds');
    expect(conditionOf(n, scope([], undefined))).toBe('cleared');
    expect(conditionOf(n, scope([], false, true))).toBe('cleared');
  });
});

describe('notify.alertmanager in the config', () => {
  it('takes an http(s) URL and names the key when it is not one', () => {
    expect(parseConfig('/etc/loopdeck.yaml', 'notify:\n  alertmanager: { url: "http://127.0.0.1:9093" }\n').notify.alertmanager).toEqual({ url: 'http://127.0.0.1:9093' });
    expect(() => parseConfig('/etc/loopdeck.yaml', 'notify:\n  alertmanager: { url: "127.0.0.1:9093" }\n')).toThrow(/notify\.alertmanager\.url.*expected Alertmanager's http\(s\) URL/s);
    expect(() => parseConfig('/etc/loopdeck.yaml', 'notify:\n  alertmanager: { url: "http://x", token: 1 }\n')).toThrow(/notify\.alertmanager.*token/s);
  });
});
