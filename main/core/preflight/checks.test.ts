import { describe, expect, it } from 'vitest';
import type { Capacity, Cycle, Drill, DrillRun, HostState } from '../../../shared/domain';
import { preflightReasons } from '../../../shared/preflight';
import { parseConfig } from '../config/load-config';
import { deliverRecordCheck, diskCheck, drillsCheck, fleetChecks, hostCheck, judgePreflight, modelsCheck, previousCycleCheck, type PreflightInput } from './checks';
import { parseProbe, probeScript, type PathAnswer } from './host-probe';
import { originCheck, schedulerCheck } from './runner-checks';
import { parseRunner, type OriginAnswer, type RunnerAsk } from './runner-probe';

const GB = 1024 ** 3;
const NOW = new Date('2026-11-29T23:00:00Z');
const FIRE = Date.parse('2026-11-30T00:00:00Z');
const HOUR = 3_600_000;

const host = (state: HostState['state'], extra: Partial<HostState> = {}): HostState => ({
  name: 'runner', kind: 'ssh', state, error: null, since: null, attempt: 0, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false, ...extra,
});
const folder = (path: string, availableBytes: number, extra: Partial<PathAnswer> = {}): PathAnswer => ({
  path, exists: true, writable: true, df: { totalBytes: 100 * GB, availableBytes, mount: '/srv' }, ...extra,
});
const cycle = (date: string, status: Cycle['status'], phase = 'remediate'): Cycle => ({
  date, status, phases: [{ name: phase, status, startedAt: `${date}T01:00:00Z`, endedAt: null, timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason: '' }],
});
const cap = (proxy: string, name: string, extra: Partial<Capacity> = {}): Capacity => ({
  proxy, kind: 'crossbar', host: name, up: true, since: null, slotsTotal: 4, slotsBusy: 1, inflight: 1, queued: 0, nCtx: 8192,
  models: [{ id: 'qwen3-32b', nCtx: 8192, slots: 4, inflight: 1, queued: 0 }], shedThreshold: null, highWater: null, totalShed: null, missing: [], error: null, polledAt: null, ...extra,
});
const drill = (name: string, everyMs?: number): Drill => ({ name, host: 'runner', timeoutMs: 60_000, args: {}, ...(everyMs ? { everyMs } : {}) });
const run = (d: string, status: DrillRun['status'], startedAt: string): DrillRun => ({
  id: `${d}-${startedAt}`, drill: d, host: 'runner', args: {}, user: 'ops', startedAt, endedAt: null, rc: status === 'ok' ? 0 : null, status, override: false, logPath: '/tmp/x', durationMs: null,
});

const base: PreflightInput = {
  loop: 'reliability', hostName: 'runner', host: host('connected'), fireAt: FIRE, capMs: 20 * HOUR, now: NOW,
  disk: [folder('/srv/runs', 40 * GB), folder('/srv/clone', 40 * GB)], threshold: { kind: 'bytes', bytes: 2 * GB },
  cycles: [cycle('2026-11-29', 'ok')], deliverRecordPath: '/srv/deliver.json', deliverRecord: null,
  proxies: [{ name: 'crossbar', host: 'runner' }], capacity: [cap('crossbar', 'gpu-a')], models: ['qwen3-32b'], drills: [], drillRuns: [],
};

describe('pre-flight rules', () => {
  it('is ready when every check holds, and says so', () => {
    const p = judgePreflight(base);
    expect(p.state).toBe('ready');
    expect(p.checks.map((c) => [c.name, c.status])).toEqual([
      ['host', 'ok'], ['disk', 'ok'], ['previous-cycle', 'ok'], ['deliver-record', 'ok'], ['fleet', 'ok'], ['models', 'ok'], ['drills', 'ok'],
    ]);
    expect(p.fireAt).toBe('2026-11-30T00:00:00.000Z');
  });

  it('host: connected is ok; an untrusted key fails naming the fingerprint and the command; connecting is unknown', () => {
    expect(hostCheck('runner', host('connected')).status).toBe('ok');
    const untrusted = hostCheck('runner', host('untrusted', { fingerprint: 'SHA256:abc' }));
    expect([untrusted.status, untrusted.ok]).toEqual(['fail', false]);
    expect(untrusted.detail).toBe("host runner's key is not trusted (SHA256:abc): compare it with the host's own and run `loopdeck trust runner`");
    expect(hostCheck('runner', host('unreachable', { error: 'connect ECONNREFUSED' })).detail).toBe('host runner is unreachable: connect ECONNREFUSED');
    expect(hostCheck('runner', host('connecting')).status).toBe('unknown');
    expect(hostCheck('gone', undefined).detail).toMatch(/not declared under hosts/);
  });

  it('disk: fails below the threshold (bytes or a percentage), on a missing or unwritable folder; unknown when not asked', () => {
    const bytes = { kind: 'bytes', bytes: 2 * GB } as const;
    const full = diskCheck('runner', [folder('/srv/runs', 40 * GB), folder('/srv/clone', 512 * 1024)], bytes);
    expect(full.status).toBe('fail');
    expect(full.detail).toBe('clone /srv/clone has 512 KB free on /srv (needs 2 GB, preflightDisk)');
    expect(diskCheck('runner', [folder('/srv/runs', 5 * GB)], { kind: 'percent', percent: 10 }).status).toBe('fail');
    expect(diskCheck('runner', [folder('/srv/runs', 11 * GB)], { kind: 'percent', percent: 10 }).status).toBe('ok');
    expect(diskCheck('runner', [folder('/srv/runs', 0, { exists: false, writable: false, df: null })], bytes).detail).toBe('runs folder /srv/runs does not exist on runner');
    expect(diskCheck('runner', [folder('/srv/runs', 9 * GB, { writable: false })], bytes).detail).toBe('runs folder /srv/runs is not writable on runner');
    expect(diskCheck('runner', null, bytes).status).toBe('unknown');
    expect(diskCheck('runner', 'Host runner: timed out', bytes).detail).toBe('free room not checked on host runner: Host runner: timed out');
  });

  it('previous cycle: a cycle still running fails (it will overrun); a finished one is ok', () => {
    const c = previousCycleCheck([cycle('2026-11-29', 'running')], FIRE);
    expect(c.status).toBe('fail');
    expect(c.detail).toBe("cycle 2026-11-29 is still running (remediate since 2026-11-29 01:00 UTC): unless it ends by the 2026-11-30 00:00 UTC fire, tonight's run overruns");
    expect(previousCycleCheck([cycle('2026-11-29', 'incomplete')], FIRE).status).toBe('ok');
    expect(previousCycleCheck([], FIRE).detail).toBe('no earlier cycle');
  });

  it('deliver record: a resumable one (incomplete) is a warning, not a failure', () => {
    const rec = { loop: 'reliability', branch: 'reliability/2026-11-29', pr: 88, url: 'https://github.com/acme/radon/pull/88', status: 'incomplete' as const, check: 'ci', updatedAt: null };
    const c = deliverRecordCheck('/srv/deliver.json', rec);
    expect([c.status, c.ok]).toEqual(['warn', true]);
    expect(c.detail).toBe("tonight's fire resumes https://github.com/acme/radon/pull/88 on reliability/2026-11-29 (failing check ci) before today's branch");
    expect(judgePreflight({ ...base, deliverRecord: rec }).state).toBe('ready');
    expect(deliverRecordCheck('/srv/deliver.json', { ...rec, status: 'green' }).status).toBe('ok');
  });

  it('fleet: every host down or every slot busy fails; not polled yet is unknown', () => {
    const proxies = [{ name: 'crossbar', host: 'runner' }];
    expect(fleetChecks(proxies, [cap('crossbar', 'gpu-a', { up: false, error: 'crossbar: connection refused' })])[0]?.detail).toBe('proxy crossbar: no host is up (crossbar: connection refused)');
    expect(fleetChecks(proxies, [cap('crossbar', 'gpu-a', { slotsBusy: 4, queued: 3 })])[0]?.detail).toBe('proxy crossbar has no free slot (4 of 4 busy, 3 queued)');
    expect(fleetChecks(proxies, [cap('crossbar', 'gpu-a'), cap('crossbar', 'gpu-b', { up: false })])[0]?.detail).toBe('proxy crossbar: 1 of 2 hosts up, 3 of 4 slots free');
    expect(fleetChecks(proxies, [])[0]?.status).toBe('unknown');
  });

  it('models: one the loop expects that no up host of its proxies has loaded fails, naming what is loaded', () => {
    const proxies = [{ name: 'crossbar', host: 'runner' }];
    const c = modelsCheck(['qwen3-32b', 'gpt-oss-120b'], proxies, [cap('crossbar', 'gpu-a')]);
    expect(c?.status).toBe('fail');
    expect(c?.detail).toBe('model gpt-oss-120b not loaded on crossbar (loaded: qwen3-32b)');
    // Loaded only behind a proxy the loop does not use.
    expect(modelsCheck(['qwen3-32b'], proxies, [cap('other', 'gpu-z')])?.status).toBe('unknown');
    expect(modelsCheck([], proxies, [])).toBeNull();
  });

  it('drills: one falling due inside fire..fire+cap or running now fails; one already due warns', () => {
    const day = 24 * HOUR;
    const w = { now: NOW, fireAt: FIRE, capMs: 20 * HOUR, hostName: 'runner', proxies: [] };
    // Last ok 30 days minus 5 hours before the fire, every 30 days: due at 19:00 UTC tonight... after the fire.
    const lastOk = new Date(FIRE + 5 * HOUR - 30 * day).toISOString();
    const inWindow = drillsCheck({ ...w, drills: [drill('drain', 30 * day)], drillRuns: [run('drain', 'ok', lastOk)] });
    expect(inWindow.status).toBe('fail');
    expect(inWindow.detail).toBe("drill drain on runner falls due at 2026-11-30 05:00 UTC, inside tonight's window (2026-11-30 00:00 UTC + cap 20h): run it before the fire");
    const running = drillsCheck({ ...w, drills: [drill('drain')], drillRuns: [run('drain', 'running', '2026-11-29T22:50:00Z')] });
    expect(running.detail).toBe('drill drain is running now on runner (started 2026-11-29 22:50 UTC)');
    expect(drillsCheck({ ...w, drills: [drill('drain', 30 * day)], drillRuns: [] }).status).toBe('warn');
    const later = new Date(FIRE + 2 * day - 30 * day).toISOString();
    expect(drillsCheck({ ...w, drills: [drill('drain', 30 * day)], drillRuns: [run('drain', 'ok', later)] }).status).toBe('ok');
    // A drill on another host does not disturb this loop.
    expect(drillsCheck({ ...w, drills: [{ ...drill('drain', 30 * day), host: 'gw' }], drillRuns: [] }).status).toBe('ok');
  });

  it('is at risk with any failure, explaining each, and unknown when only a check could not be told', () => {
    const p = judgePreflight({ ...base, host: host('untrusted', { fingerprint: 'SHA256:abc' }), disk: null, models: ['gpt-oss-120b'] });
    expect(p.state).toBe('at-risk');
    expect(preflightReasons(p).map((c) => c.name)).toEqual(['host', 'models']);
    expect(judgePreflight({ ...base, capacity: [] }).state).toBe('unknown');
  });
});

describe('the runner checks: scheduler and origin', () => {
  const said = (asks: readonly RunnerAsk[], lines: readonly string[]) => parseRunner(lines.join('\n'), asks);
  const sched = (ask: RunnerAsk, lines: readonly string[]) => {
    const s = ask.scheduler;
    if (!s) throw new Error('no scheduler');
    return schedulerCheck('reliability', 'runner', s, said([ask], lines)[0]?.scheduler ?? null);
  };
  const origin = (o: Partial<OriginAnswer>): OriginAnswer => ({ noGit: false, notRepo: false, url: 'ssh://git@github.com/acme/radon.git', via: 'timeout', rc: 0, error: null, ...o });

  it('cron: a matching uncommented line is ok; none, or no crontab at all, fails; crontab not installed is said, not success', () => {
    const cron = { scheduler: { cron: 'reliability-nightly' } };
    expect(sched(cron, ['S 0 rc 0', 'S 0 + 0 0 * * * /srv/reliability-nightly.sh'])).toMatchObject({ status: 'ok', detail: `runner's crontab has "0 0 * * * /srv/reliability-nightly.sh"` });
    expect(sched(cron, ['S 0 rc 0'])).toMatchObject({ status: 'fail', ok: false });
    expect(sched(cron, ['S 0 rc 1', 'S 0 ! no crontab for ops'])).toMatchObject({
      status: 'fail',
      detail: 'runner has no crontab (crontab -l: no crontab for ops): no line contains "reliability-nightly", tonight\'s fire is not installed (loops.reliability.scheduler.cron)',
    });
    expect(sched(cron, ['S 0 rc 1', 'S 0 ! crontab: your UID isn\'t in the passwd file.']).status).toBe('unknown');
    expect(sched(cron, ['S 0 none'])).toMatchObject({ status: 'unknown', ok: false, detail: 'crontab is not installed on runner: cannot tell whether a crontab line containing "reliability-nightly" is installed (loops.reliability.scheduler)' });
    // The host said nothing for it (a cut-off answer): not success either.
    expect(sched(cron, []).status).toBe('unknown');
  });

  it('systemd: an enabled timer with a next fire is ok; enabled but inactive, disabled or not installed fails; a failed list-timers cannot tell', () => {
    const timer = { scheduler: { systemd: 'reliability.timer' } };
    const user = (en: string, timers: string[]) => ['S 0 en system Failed to get unit file state for reliability.timer: No such file or directory', 'S 0 T system', `S 0 en user ${en}`, 'S 0 T user', ...timers.map((t) => `S 0 T+ user ${t}`)];
    const next = 'Mon 2026-11-30 00:00:00 UTC 59min left Sun 2026-11-29 00:00:03 UTC 23h ago reliability.timer reliability.service';
    expect(sched(timer, user('enabled', [next]))).toMatchObject({ status: 'ok', detail: `reliability.timer is enabled (user) on runner; list-timers: ${next}` });
    expect(sched(timer, user('enabled', ['n/a n/a n/a n/a reliability.timer reliability.service'])).status).toBe('fail');
    expect(sched(timer, user('enabled', [])).detail).toBe('reliability.timer is enabled (user) on runner but not loaded (list-timers does not list it): start it with `systemctl --user start reliability.timer` (loops.reliability.scheduler.systemd)');
    expect(sched(timer, user('disabled', [])).detail).toBe("reliability.timer is disabled (user) on runner: tonight's fire will not start it (loops.reliability.scheduler.systemd)");
    expect(sched(timer, user('not-found', [])).detail).toBe("reliability.timer is not installed on runner (neither a system nor a user unit): tonight's fire will not happen (loops.reliability.scheduler.systemd)");
    const noInit = ['S 0 en system enabled', "S 0 T! system System has not been booted with systemd as init system (PID 1). Can't operate.", 'S 0 en user not-found', 'S 0 T! user Failed to connect to bus'];
    expect(sched(timer, noInit)).toMatchObject({ status: 'unknown', detail: "reliability.timer is enabled (system) on runner, but list-timers failed: System has not been booted with systemd as init system (PID 1). Can't operate.: cannot tell its next fire" });
    // A service (fired by a timer, so static) is checked with is-enabled alone.
    expect(sched({ scheduler: { systemd: 'reliability.service' } }, ['S 0 en system static', 'S 0 T! system x', 'S 0 en user not-found', 'S 0 T! user x']).status).toBe('ok');
    expect(sched(timer, ['S 0 none']).detail).toMatch(/^systemctl is not installed on runner: cannot tell/);
  });

  it('launchd: the label in launchctl list (or launchctl print) is ok; absent fails; launchctl not installed is said', () => {
    const ld = { scheduler: { launchd: 'com.acme.reliability' } };
    expect(sched(ld, ['S 0 rc 0', 'S 0 + -\t78\tcom.acme.reliability'])).toMatchObject({ status: 'ok', detail: 'com.acme.reliability is loaded on runner (launchctl list: last exit status 78)' });
    // A label that only contains it is not it.
    expect(sched(ld, ['S 0 rc 0', 'S 0 + -\t0\tcom.acme.reliability.old'])).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^com\.acme\.reliability is not loaded on runner \(launchctl list does not list it\)/) });
    expect(sched(ld, ['S 0 rc 0', 'S 0 P gui/501']).detail).toBe('com.acme.reliability is loaded on runner (launchctl print gui/501/com.acme.reliability)');
    expect(sched(ld, ['S 0 none']).status).toBe('unknown');
  });

  it('origin: answering is ok; an error names the remote and git\'s first line; the bound hit is said; no git cannot tell', () => {
    expect(originCheck('runner', '/srv/radon', origin({}), 20)).toMatchObject({ status: 'ok', detail: 'origin ssh://git@github.com/acme/radon.git answers (git ls-remote --heads, clone /srv/radon)' });
    expect(originCheck('runner', '/srv/radon', origin({ rc: 128, error: 'ssh: connect to host github.com port 22: Connection timed out' }), 20).detail).toBe(
      'origin ssh://git@github.com/acme/radon.git does not answer from clone /srv/radon on runner (git ls-remote exit 128): ssh: connect to host github.com port 22: Connection timed out',
    );
    expect(originCheck('runner', '/srv/radon', origin({ rc: 124 }), 20)).toMatchObject({
      status: 'fail',
      detail: "origin ssh://git@github.com/acme/radon.git did not answer within 20 s (the bound was hit: timeout 20 on runner), from clone /srv/radon: tonight's pushes and PR will fail",
    });
    expect(originCheck('runner', '/srv/radon', origin({ noGit: true }), 20)).toMatchObject({ status: 'unknown', detail: 'git is not installed on runner: cannot tell whether the origin of clone /srv/radon answers' });
    expect(originCheck('runner', '/srv/radon', null, 20).status).toBe('unknown');
    // A first line that ends with a colon goes on in the next.
    const [a] = said([{ dir: '/srv/radon' }], ['O 0 url git://10.0.0.1/r.git', 'O 0 via timeout', 'O 0 rc 128', 'O 0 ! fatal: unable to connect to 10.0.0.1:', 'O 0 ! 10.0.0.1[0: 10.0.0.1]: errno=Connection refused']);
    expect(a?.origin?.error).toBe('fatal: unable to connect to 10.0.0.1: 10.0.0.1[0: 10.0.0.1]: errno=Connection refused');
  });

  it('judges the scheduler only when declared and the origin only with a dir; a missing scheduler or an unreachable origin puts the night at risk', () => {
    expect(judgePreflight(base).checks.map((c) => c.name)).not.toContain('scheduler');
    const runner = { scheduler: { kind: 'cron', rc: 0, lines: [], error: null } as const, origin: origin({ rc: 128, error: 'fatal: x' }) };
    const cron = { cron: 'reliability-nightly' };
    const p = judgePreflight({ ...base, scheduler: cron, dir: '/srv/clone', runner });
    expect(p.checks.map((c) => c.name).slice(0, 4)).toEqual(['host', 'disk', 'scheduler', 'origin']);
    expect(p.state).toBe('at-risk');
    expect(preflightReasons(p).map((c) => c.name)).toEqual(['scheduler', 'origin']);
    expect(judgePreflight({ ...base, scheduler: cron, runner: { ...runner, scheduler: { kind: 'cron', rc: 0, lines: ['0 0 * * * reliability-nightly'], error: null } } }).state).toBe('ready');
    // The host could not be read: neither is taken for success.
    const unread = judgePreflight({ ...base, scheduler: cron, dir: '/srv/clone', runner: null });
    expect(unread.checks.filter((c) => c.name === 'scheduler' || c.name === 'origin').map((c) => c.status)).toEqual(['unknown', 'unknown']);
  });

  it('asks in the one script: origin in the background with timeout 20 (else a watchdog), the scheduler quoted', () => {
    const script = probeScript([['/srv/runs', '/srv/clone']], [{ dir: '/srv/clone', scheduler: { cron: "it's-nightly" } }]);
    expect(script).toContain("( o=$(ld_git '/srv/clone' 20); printf '%s\\n' \"$o\" | sed 's/^/O 0 /' ) &");
    expect(script).toContain('timeout "$2" git -C "$1" ls-remote --heads origin');
    expect(script).toContain("ld_cron 'it'\\''s-nightly' | sed 's/^/S 0 /'");
    expect(script.trimEnd().endsWith('wait\nexit 0')).toBe(true);
    // Nothing asked: the script is what it was.
    expect(probeScript([['/srv/runs']])).not.toContain('ld_git');
  });
});

describe('the host probe', () => {
  it('asks about every group in one script, one df a group, and reads it back in order', () => {
    const script = probeScript([['/srv/runs', '/srv/clone'], ['~/other runs']]);
    expect(script.match(/df -Pk/g)?.length).toBe(2);
    expect(script).toContain('"$HOME"/\'other runs\'');
    const out = ['@G 0', 'D w', 'D -', 'F /dev/sda1 103081248 61848720 41232528 60% /srv', '@G 1', 'D r', 'F tmpfs 1024 1020 4 100% /mnt/a b', ''].join('\n');
    const [a, b] = parseProbe(out, [['/srv/runs', '/srv/clone'], ['~/other runs']]);
    expect(a).toEqual([
      { path: '/srv/runs', exists: true, writable: true, df: { totalBytes: 103081248 * 1024, availableBytes: 41232528 * 1024, mount: '/srv' } },
      { path: '/srv/clone', exists: false, writable: false, df: null },
    ]);
    expect(b?.[0]).toEqual({ path: '~/other runs', exists: true, writable: false, df: { totalBytes: 1024 * 1024, availableBytes: 4096, mount: '/mnt/a b' } });
  });
});

describe('pre-flight config', () => {
  const cfg = (loop: string, top = ''): ReturnType<typeof parseConfig> =>
    parseConfig('/c.yaml', `hosts: { r: { local: true } }\nproxies: { crossbar: { host: r, kind: crossbar, url: "http://127.0.0.1:8080" } }\nloops: { l: { host: r, runs: /runs${loop} } }\n${top}`);

  it('defaults to a 1h lead, 2GB and a re-run every 10m; takes a loop\'s lead, off, a size or a percentage, models and uses', () => {
    const d = cfg('');
    expect(d.preflight).toEqual({ lead: HOUR, disk: { kind: 'bytes', bytes: 2 * GB }, every: 600_000 });
    // No schedule written: no fire declared to check before, so no pre-flight unless asked; with one, the top-level lead.
    expect([d.loops.l?.preflight, d.loops.l?.preflightDisk, d.loops.l?.uses]).toEqual([null, undefined, undefined]);
    expect(cfg(', schedule: "30 1 * * *"').loops.l?.preflight).toBeUndefined();
    const l = cfg(', preflight: 30m, preflightDisk: "10%", models: [qwen3-32b], uses: [crossbar]').loops.l;
    expect([l?.preflight, l?.preflightDisk, l?.models, l?.uses]).toEqual([1_800_000, { kind: 'percent', percent: 10 }, ['qwen3-32b'], ['crossbar']]);
    expect(cfg(', preflight: "off", preflightDisk: 500MB').loops.l?.preflightDisk).toEqual({ kind: 'bytes', bytes: 500 * 1024 ** 2 });
    expect(cfg(', preflight: "off"').loops.l?.preflight).toBeNull();
    expect(cfg('', 'preflight: { lead: 2h, disk: 5GB, every: 5m }\n').preflight).toEqual({ lead: 2 * HOUR, disk: { kind: 'bytes', bytes: 5 * GB }, every: 300_000 });
  });

  it('refuses a bad lead, a bad size and a proxy in uses that is not declared, naming the key', () => {
    expect(() => cfg(', preflight: soon')).toThrow(/loops\.l\.preflight: expected a lead before the fire like "1h" or "30m", or "off"/);
    expect(() => cfg(', preflightDisk: lots')).toThrow(/loops\.l\.preflightDisk: expected free room like "2GB", "500MB" or "10%"/);
    expect(() => cfg(', uses: [crossbar, gpu-z]')).toThrow(/loops\.l\.uses\.1: proxy "gpu-z" is not declared under proxies \(declared: crossbar\)/);
  });
});
