import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { EventName, EventPayload } from '../../shared/contract';
import type { Snapshot } from '../../shared/domain';
import { parseConfig } from './config/load-config';
import { LoopFollower } from './loops/loop-follower';
import { LocalSource } from './sources/local-source';
import { Store } from './store/store';
import { until } from '../../testing/until';
import { composeEngine } from './session/core';
import { QUIET_AFTER } from './engine/poll-scheduler';
import { SAMPLE_EVERY_MS } from './loops/contention';

const NOW = new Date('2026-11-30T12:00:00Z');
const DAYS = ['2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30'];

function findingRow(n: number): string {
  return `| R-${n} | ${['P0', 'P1', 'P2'][n % 3]} | state | daemon/state_${n % 40}.py:${n % 500} | finding number ${n} |`;
}

/** A ledger section: a findings table of R-from…R-(to-1) and one backlog item covering its ends. */
function section(title: string, from: number, to: number, item: string): string {
  const rows = Array.from({ length: to - from }, (_, i) => findingRow(from + i));
  return ['', `## Delta audit ${title}`, '', '| ID | Sev | Category | Where | Finding |', '|---|---|---|---|---|', ...rows, '', '| ID | Findings | Sev | Acceptance |', '|---|---|---|---|', `| ${item} | R-${from}, R-${to - 1} | P1 | inject a crash |`, ''].join('\n');
}

function finishedCycle(dir: string, date: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'audit.status'), `audit ${date}T00:00:04+00:00 STARTED\naudit ${date}T00:41:12+00:00 OK\n`);
  writeFileSync(join(dir, 'remediate.status'), `remediate ${date}T01:00:00+00:00 STARTED\nremediate ${date}T03:00:00+00:00 NO-OP\n`);
  writeFileSync(join(dir, 'remediate.log'), 'tool_use Read x\nNIGHTLY PHASE NO-OP: loop=reliability phase=remediate nothing to do\n');
  writeFileSync(join(dir, 'deliver.status'), `deliver ${date}T04:00:00+00:00 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${date.slice(-2)}1 https://github.com/acme/radon/pull/${date.slice(-2)}2\n`);
}

function fixture(cycles = 10) {
  const dir = mkdtempSync(join(tmpdir(), 'ld-incremental-'));
  const runs = join(dir, 'runs');
  const clone = join(dir, 'clone');
  mkdirSync(clone, { recursive: true });
  for (const d of DAYS.slice(0, -1)) finishedCycle(join(runs, d), d);
  const today = join(runs, DAYS.at(-1) ?? '');
  mkdirSync(today, { recursive: true });
  writeFileSync(join(today, 'audit.status'), `audit ${DAYS.at(-1)}T09:00:00+00:00 STARTED\naudit ${DAYS.at(-1)}T09:50:00+00:00 OK\n`);
  writeFileSync(join(today, 'remediate.status'), `remediate ${DAYS.at(-1)}T10:00:00+00:00 STARTED\n`);
  writeFileSync(join(today, 'remediate.log'), 'tool_use Read a\n');
  writeFileSync(join(today, 'remediate.gates.rc'), 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\n');
  const audit = join(clone, 'RELIABILITY_AUDIT.md');
  writeFileSync(audit, `# Reliability audit\n${section('2026-11-01', 0, 1000, 'REL-0')}${section('2026-11-02', 1000, 2000, 'REL-1')}`);
  const log = join(clone, 'RELIABILITY_LOG.md');
  writeFileSync(log, '# Reliability log\n\n| ID | Date | Outcome | Red/Green | Notes |\n|----|------|---------|-----------|-------|\n| REL-1 | 2026-11-03 | BLOCKED | 1/0 | mock missing |\n');
  const text = [
    'hosts: { runner: { local: true } }',
    'loops:',
    '  reliability:',
    '    host: runner',
    `    runs: ${JSON.stringify(runs)}`,
    `    dir: ${JSON.stringify(clone)}`,
    '    phases: [audit, remediate, deliver]',
    '    schedule: "0 0 * * *"',
    '    timezone: UTC',
    '    cap: 20h',
    `    cycles: ${cycles}`,
    '    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }',
    '',
  ].join('\n');
  const config = parseConfig(join(dir, 'config.yaml'), text);
  return { dir, runs, today, audit, log, config, text };
}

/** What was published, in order; a loop's change kept typed beside it. */
type Seen = { event: EventName; payload: unknown; loopChanged?: EventPayload<'loop.changed'> }[];

function open(config: ReturnType<typeof fixture>['config'], file: string) {
  const store = Store.open(file);
  const engine = composeEngine(config, { store, now: () => NOW });
  const seen: Seen = [];
  engine.subscribe((event, payload) => seen.push({ event, payload }));
  // The one generic reader of this file: each test names the slice of the payload it checks.
  return { store, engine, seen, of: <P>(event: EventName) => seen.filter((s) => s.event === event).map((s) => s.payload as P) };
}

/** An engine that notes when each poll ended and when each loop.changed came (performance clock). */
function timed(config: ReturnType<typeof fixture>['config']) {
  const polls: number[] = [];
  const changed: number[] = [];
  const engine = composeEngine(config, { store: Store.open(':memory:'), now: () => NOW, afterPoll: () => polls.push(performance.now()) });
  engine.subscribe((...e) => void (e[0] === 'loop.changed' && changed.push(performance.now())));
  return { engine, polls, changed };
}

/**
 * What both engines must agree on: the snapshot without what depends on when it was read. A ledger
 * rewritten in place is a breach only to an engine that read it before (the fresh one never did).
 */
function comparable(s: Snapshot): unknown {
  const { takenAt: _t, notices: _n, lastReviewedAt: _r, contract, ...rest } = s;
  // The runner's load is sampled while a phase runs: what a fresh read of the files cannot know.
  const loops = rest.loops.map((l) => ({ ...l, cycles: l.cycles.map((c) => ({ ...c, phases: c.phases.map(({ contention: _c, ...p }) => p) })) }));
  return { ...rest, loops, contract: (contract ?? []).filter((b) => b.kind !== 'ledger-rewritten') };
}

describe('the engine does work for what changed, and publishes deltas', () => {
  it('a line that changes a phase publishes that one cycle; a line that changes nothing publishes nothing', async () => {
    const fx = fixture();
    const { engine, seen, of } = open(fx.config, ':memory:');
    await engine.poll();
    const first = of<{ upserted: { date: string }[] }>('loop.changed');
    expect(first.flatMap((p) => p.upserted.map((c) => c.date)).sort()).toEqual(DAYS);

    seen.length = 0;
    appendFileSync(join(fx.today, 'remediate.gates.rc'), 'gates_rc=0\n');
    await engine.poll();
    const delta = of<{ loop: string; upserted: { date: string; phases: { name: string; stages: { steps: { rc: number | null }[] }[] }[] }[]; removed: string[] }>('loop.changed');
    expect(delta).toHaveLength(1);
    expect(delta[0]?.upserted.map((c) => c.date)).toEqual([DAYS.at(-1)]);
    expect(delta[0]?.removed).toEqual([]);
    expect(delta[0]?.upserted[0]?.phases[1]?.stages[0]?.steps.map((s) => s.rc)).toEqual([0, 0, null]);
    expect(JSON.stringify(delta[0]).length).toBeLessThan(2048);
    expect(seen.map((s) => s.event)).toEqual(['loop.changed']);

    seen.length = 0;
    appendFileSync(join(fx.today, 'remediate.log'), 'tool_use Bash pytest -q\n');
    await engine.poll();
    expect(seen).toEqual([]);
    await engine.close();
  });

  it('a ledger section of 50 findings publishes those 50, and a log outcome the rows it covers, without re-reading the store', async () => {
    const fx = fixture();
    const { store, engine, seen, of } = open(fx.config, ':memory:');
    await engine.poll();
    type Delta = { findings: { upserted: { id: string; status: string }[]; removed: string[] }; backlog: { upserted: { id: string; status: string }[] } };
    // 2,000 findings and their backlog: more than a delta carries, so clients read them in pages.
    expect(of<Delta>('ledgers.changed')).toEqual([]);
    expect(of<{ loop: string; rows: number }>('ledgers.reset')).toEqual([{ loop: 'reliability', rows: 2002 }]);
    const reads = vi.spyOn(store, 'records');

    seen.length = 0;
    appendFileSync(fx.audit, section('2026-11-30', 2000, 2050, 'REL-2'));
    await engine.poll();
    const appended = of<Delta>('ledgers.changed');
    expect(appended).toHaveLength(1);
    expect(appended[0]?.findings.upserted.map((f) => f.id)).toEqual(Array.from({ length: 50 }, (_, i) => `R-${2000 + i}`));
    expect(appended[0]?.findings.removed).toEqual([]);
    expect(appended[0]?.backlog.upserted.map((b) => b.id)).toEqual(['REL-2']);
    const fifty = JSON.stringify(appended[0]?.findings.upserted);
    expect(JSON.stringify(appended[0]).length).toBeLessThan(2 * fifty.length);
    // The new P0 findings' notices, not the whole list (2,000 findings' worth were seeded before).
    const newP0 = appended[0]?.findings.upserted.filter((f) => Number(f.id.slice(2)) % 3 === 0).length ?? 0;
    // And the section's findings its one backlog item does not cover: each waits on you (every R-### must be covered).
    const uncovered = 50 - 2;
    expect(of<{ notices: unknown[] }>('notices.changed').map((p) => p.notices.length)).toEqual([newP0 + uncovered]);

    seen.length = 0;
    appendFileSync(fx.log, '| REL-0 | 2026-11-30 | DONE | 1/1 | fixed |\n');
    await engine.poll();
    const outcome = of<Delta>('ledgers.changed');
    expect(outcome[0]?.findings.upserted.map((f) => [f.id, f.status])).toEqual([
      ['R-0', 'done'],
      ['R-999', 'done'],
    ]);
    expect(outcome[0]?.backlog.upserted.map((b) => [b.id, b.status])).toEqual([['REL-0', 'done']]);
    expect(reads).not.toHaveBeenCalled();
    expect(engine.snapshot().findings).toHaveLength(2050);
    await engine.close();
  });

  it('a restart reports the stored ledgers as one small ledgers.reset, not an event of every row', async () => {
    const fx = fixture();
    const file = join(fx.dir, 'loopdeck.db');
    const first = open(fx.config, file);
    await first.engine.poll();
    await first.engine.close();
    first.store.close();
    const again = open(fx.config, file);
    await again.engine.poll();
    expect(again.of('ledgers.reset')).toEqual([{ loop: 'reliability', rows: 2002 }]);
    expect(again.of('ledgers.changed')).toEqual([]);
    for (const { event, payload } of again.seen) expect(JSON.stringify(payload).length, event).toBeLessThan(64 * 1024);
    expect(again.engine.snapshot().findings).toHaveLength(2000);
    // Under the limit a change is still a delta: one section of 50.
    again.seen.length = 0;
    appendFileSync(fx.audit, section('2026-11-30', 2000, 2050, 'REL-2'));
    await again.engine.poll();
    expect(again.of<{ findings: { upserted: unknown[] } }>('ledgers.changed')[0]?.findings.upserted).toHaveLength(50);
    await again.engine.close();
    again.store.close();
  });

  it('an idle poll reads nothing from a host whose watchers cover the folders; the poll a watcher wakes reads the file it named, alone', async () => {
    const fx = fixture();
    const { engine, of, seen } = open(fx.config, ':memory:');
    await engine.poll();
    // The watches started with that poll: the next lists their folders again, once (LocalSource.watch).
    await engine.poll({ reason: 'timer' });
    const calls = { list: 0, dirs: 0, stat: 0, read: 0 };
    const proto = LocalSource.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
    const originals = new Map<string, (...a: unknown[]) => unknown>();
    for (const m of ['list', 'dirs', 'stat', 'read'] as const) {
      const original = proto[m];
      if (!original) continue;
      originals.set(m, original);
      proto[m] = function (this: unknown, ...args: unknown[]) {
        calls[m]++;
        return original.apply(this, args);
      };
    }
    const spies = [{ mockRestore: () => originals.forEach((fn, m) => (proto[m] = fn)) }];
    try {
      for (let i = 0; i < 5; i++) await engine.poll({ reason: 'timer' });
      expect(calls).toEqual({ list: 0, dirs: 0, stat: 0, read: 0 });
      // From now on the engine polls on its own: a timer poll (nothing read), then the one the watcher wakes.
      engine.run({ intervalMs: 60_000 });
      await engine.idle(); // the first timer poll, begun by run
      expect(calls).toEqual({ list: 0, dirs: 0, stat: 0, read: 0 });
      seen.length = 0;
      appendFileSync(join(fx.today, 'remediate.gates.rc'), 'gates_rc=0\n');
      await until(() => of('loop.changed').length > 0, 10_000, 'the woken poll to show the append');
      // That file alone: one stat and one read, no folder listed.
      expect(calls).toEqual({ list: 0, dirs: 0, stat: 1, read: 1 });
      expect(of<{ upserted: unknown[] }>('loop.changed')[0]?.upserted).toHaveLength(1);
    } finally {
      spies.forEach((sp) => sp.mockRestore());
      await engine.close();
    }
  });

  it('spaces its timer polls out once they find nothing to do on a watched host, and a watcher\'s report ends that at once', async () => {
    const fx = fixture();
    const { engine, polls, changed } = timed(fx.config);
    try {
      await engine.poll();
      // Timer polls 50 ms apart until QUIET_AFTER in a row found nothing to do; then a minute apart.
      engine.run({ intervalMs: 50, quietIntervalMs: 60_000 });
      await until(() => polls.length > QUIET_AFTER && performance.now() - (polls.at(-1) ?? 0) > 1000, 20_000, 'the timer polls to go quiet');
      // A line: the watcher wakes a poll at once, and the timer polls are 50 ms apart again after it.
      const at = performance.now();
      appendFileSync(join(fx.today, 'remediate.gates.rc'), 'gates_rc=0\n');
      await until(() => changed.some((t) => t > at), 10_000, 'the woken poll');
      await until(() => polls.filter((t) => t > at).length >= 4, 10_000, 'timer polls an interval apart after the wake');
    } finally {
      await engine.close();
    }
  });

  it('sees a line appended between a poll\'s read and its watchers\' start, though its timer polls have gone quiet', async () => {
    const fx = fixture();
    const engine = composeEngine(fx.config, { store: Store.open(':memory:'), now: () => NOW });
    const rcs: (number | null)[][] = [];
    let appended = false;
    engine.subscribe((...e) => {
      if (e[0] !== 'loop.changed') return;
      const today = e[1].upserted.find((c) => c.date === DAYS.at(-1));
      const steps = today?.phases.find((p) => p.name === 'remediate')?.stages[0]?.steps;
      if (steps) rcs.push(steps.map((st) => st.rc));
      // The first read's event: the line lands before that poll starts its watchers.
      if (!appended) {
        appended = true;
        appendFileSync(join(fx.today, 'remediate.gates.rc'), 'gates_rc=0\n');
      }
    });
    try {
      engine.run({ intervalMs: 50, quietIntervalMs: 60_000 });
      await until(() => rcs.some((r) => r[1] === 0), 10_000, 'the line appended before the watchers started');
    } finally {
      await engine.close();
    }
  });

  it('keeps its timer polls an interval apart while a folder it reads has no watcher (a runs folder not made yet), and sees the folder made', async () => {
    const fx = fixture();
    rmSync(fx.runs, { recursive: true, force: true });
    const { engine, polls, changed } = timed(fx.config);
    try {
      await engine.poll();
      engine.run({ intervalMs: 50, quietIntervalMs: 60_000 });
      // Nothing is published and nothing happens, but no watcher covers the runs folder: only the timer sees it made.
      await until(() => polls.length >= 6 * QUIET_AFTER, 20_000, 'timer polls to go on an interval apart');
      expect(changed).toEqual([]);
      finishedCycle(join(fx.runs, DAYS[0] ?? ''), DAYS[0] ?? '');
      await until(() => changed.length > 0, 10_000, 'a timer poll to see the runs folder made');
      // Now watched: the polls go quiet.
      await until(() => performance.now() - (polls.at(-1) ?? 0) > 1000, 20_000, 'the timer polls to go quiet once the folder is watched');
    } finally {
      await engine.close();
    }
  });

  it('stays quiet while the runner\'s load is sampled: the sample is shown, and is no news to the polls', async () => {
    const fx = fixture();
    let clock = NOW.getTime();
    const polls: number[] = [];
    const samples: { at: number; count: number }[] = [];
    const engine = composeEngine(fx.config, { store: Store.open(':memory:'), now: () => new Date(clock), afterPoll: () => polls.push(performance.now()) });
    engine.subscribe((event, payload) => {
      if (event !== 'loop.changed') return;
      const load = (payload as EventPayload<'loop.changed'>).upserted.flatMap((c) => c.phases).find((p) => p.contention)?.contention;
      if (load) samples.push({ at: performance.now(), count: load.samples });
    });
    /** The gaps between the timer polls that ended after `t`. */
    const gapsAfter = (t: number): number[] => polls.filter((p) => p > t).map((p, i, after) => p - (i === 0 ? t : (after[i - 1] ?? t))).slice(1);
    try {
      await engine.poll();
      // Quiet timer polls 400 ms apart, 50 ms otherwise.
      engine.run({ intervalMs: 50, quietIntervalMs: 400 });
      await until(() => samples.length > 0 && polls.length > QUIET_AFTER && performance.now() - (polls.at(-1) ?? 0) > 300, 20_000, 'the first sample, then the polls to go quiet');
      // The clock reaches the next sample: a quiet poll asks for it and shows it; the polls stay quiet.
      for (const count of [2, 3]) {
        clock += SAMPLE_EVERY_MS;
        await until(() => samples.at(-1)?.count === count, 10_000, `sample ${count}`);
        const at = samples.at(-1)?.at ?? 0;
        await until(() => polls.filter((p) => p > at).length >= 4, 10_000, 'three timer polls after the sample');
        // A sample taken as news would bring QUIET_AFTER polls 50 ms apart.
        expect(Math.min(...gapsAfter(at))).toBeGreaterThan(300);
      }
    } finally {
      await engine.close();
    }
  });

  it('an idle poll visits only the loops with something due: none at rest, the loop whose cap or dead-man the clock reaches', async () => {
    const fx = fixture();
    // Today's remediate started at 10:00 under a 3-h cap: the clock turns it incomplete at 13:00.
    const config = parseConfig(join(fx.dir, 'config.yaml'), fx.text.replace('cap: 20h', 'cap: 3h'));
    let clock = NOW.getTime();
    const engine = composeEngine(config, { store: Store.open(':memory:'), now: () => new Date(clock) });
    const seen: Seen = [];
    engine.subscribe((...e) => seen.push({ event: e[0], payload: e[1], ...(e[0] === 'loop.changed' ? { loopChanged: e[1] } : {}) }));
    const changes = () => seen.flatMap((s) => (s.loopChanged ? [s.loopChanged] : []));
    const spy = vi.spyOn(LoopFollower.prototype, 'poll');
    // Visits of the loop on its quiet host (the safety net's full reads, every tenth timer poll, aside).
    const quietVisits = (): number => spy.mock.calls.filter(([, scope]) => scope?.quiet === true).length;
    try {
      await engine.poll();
      // The watchers start after the first poll; a timer poll or two later the host is quiet.
      for (let i = 0; i < 3; i++) await engine.poll({ reason: 'timer' });
      spy.mockClear();
      for (let i = 0; i < 5; i++) await engine.poll({ reason: 'timer' });
      expect(quietVisits()).toBe(0);

      seen.length = 0;
      clock = Date.parse('2026-11-30T13:00:01Z');
      await engine.poll({ reason: 'timer' });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(quietVisits()).toBe(1);
      const capped = changes()[0]?.upserted.find((c) => c.date === DAYS.at(-1));
      expect(capped?.phases.find((ph) => ph.name === 'remediate')?.status).toBe('incomplete');
      spy.mockClear();
      for (let i = 0; i < 5; i++) await engine.poll({ reason: 'timer' });
      expect(quietVisits()).toBe(0);

      // Past tonight's fire and its grace with no new cycle: the dead-man moves on the clock alone.
      seen.length = 0;
      clock = Date.parse('2026-12-01T06:00:00Z');
      spy.mockClear();
      await engine.poll({ reason: 'timer' });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(changes().map((c) => c.deadman?.state)).toEqual(['missed']);
    } finally {
      spy.mockRestore();
      await engine.close();
    }
  });

  it('following changes poll by poll ends where a fresh read of the same files does', async () => {
    const fx = fixture(4);
    const dir = mkdtempSync(join(tmpdir(), 'ld-incremental-db-'));
    const a = open(fx.config, join(dir, 'a.sqlite'));
    await a.engine.poll();
    const steps: (() => void)[] = [
      () => appendFileSync(join(fx.today, 'remediate.gates.rc'), 'gates_rc=0\nsuite_rc=1\nDONE\n'),
      () => appendFileSync(join(fx.today, 'remediate.status'), `remediate ${DAYS.at(-1)}T11:00:00+00:00 FAILED 1\n`),
      () => appendFileSync(fx.audit, section('2026-11-30', 2000, 2050, 'REL-2')),
      () => appendFileSync(fx.log, '| REL-2 | 2026-11-30 | DONE | 1/1 | fixed |\n| REL-1 | 2026-11-30 | operator-only | 0/0 | creds |\n'),
      // A new night: the oldest cycle leaves the window of four.
      () => finishedCycle(join(fx.runs, '2026-12-01'), '2026-12-01'),
      // A late edit of an old night, and a ledger rewritten in place.
      () => appendFileSync(join(fx.runs, '2026-11-28', 'deliver.status'), 'deliver 2026-11-28T05:00:00+00:00 INCOMPLETE: ci/test\n'),
      () => writeFileSync(fx.audit, `# Reliability audit\n${section('2026-11-01', 0, 300, 'REL-0')}`),
      () => rmSync(join(fx.runs, '2026-11-29'), { recursive: true }),
    ];
    for (const step of steps) {
      step();
      // Enough polls for the round robin to reach every old night.
      for (let i = 0; i < 4; i++) await a.engine.poll();
    }
    const b = open(fx.config, join(dir, 'b.sqlite'));
    await b.engine.poll();
    expect(comparable(a.engine.snapshot())).toEqual(comparable(b.engine.snapshot()));
    expect(a.engine.snapshot().loops[0]?.cycles.map((c) => c.date)).toEqual(['2026-12-01', '2026-11-30', '2026-11-28', '2026-11-27']);
    await a.engine.close();
    await b.engine.close();
  });

  it('a poll asked for while one is in flight reads what was written after that one began, shared by every caller meanwhile', async () => {
    const fx = fixture(5);
    const store = Store.open(':memory:');
    let during: (() => Promise<void>[]) | null = null;
    let asked: Promise<void>[] = [];
    // afterPoll runs once the poll's reads are over, before it ends: a write then is one it cannot see.
    const engine = composeEngine(fx.config, {
      store,
      now: () => NOW,
      afterPoll: () => {
        const ask = during;
        during = null;
        if (ask) asked = ask();
      },
    });
    let polls = 0;
    await engine.poll();
    const phase = () => engine.snapshot().loops[0]?.cycles.find((c) => c.date === DAYS.at(-1))?.phases[1]?.status;
    expect(phase()).toBe('running');
    during = () => {
      appendFileSync(join(fx.today, 'remediate.status'), `remediate ${DAYS.at(-1)}T11:00:00+00:00 OK\n`);
      polls++;
      return [engine.poll(), engine.poll({ reason: 'wake' }), engine.poll()];
    };
    await engine.poll();
    expect(polls).toBe(1);
    // The three calls made during that poll share one poll after it, which read the stamp.
    expect(asked).toHaveLength(3);
    expect(new Set(asked).size).toBe(1);
    await Promise.all(asked);
    expect(phase()).toBe('ok');
    await engine.idle();
    await engine.close();
  });
});
