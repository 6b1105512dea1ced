import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../shared/contract';
import type { Problem } from '../../shared/domain';
import { createRunnerFixture, type RunnerFixture } from '../../testing/runner-fixture';
import { mountTmpfs, type Tmpfs } from '../../testing/tmpfs';
import { until } from '../../testing/until';
import { loadConfig } from './config/load-config';
import { type Engine } from './engine';
import { openStore } from './store/open-store';
import { Store } from './store/store';
import { startFleetServer, type FleetServer } from './demo/fleet-server';
import { composeEngine } from './session/core';

const DAY = '2026-11-29';
const START = Date.parse('2026-11-29T12:00:00Z');

/** An engine whose data folder is a 2 MiB tmpfs, on a runner folder on the real disk. */
interface OnTmpfs {
  readonly fx: RunnerFixture;
  readonly disk: Tmpfs;
  readonly store: Store;
  readonly engine: Engine;
  readonly events: { event: EventName; payload: unknown; repeat?: boolean }[];
  /** Move the engine's clock on. */
  advance(ms: number): void;
  /** The data folder's problem, if it has one. */
  fullProblem(): Problem | undefined;
}

const running: OnTmpfs[] = [];

async function engineOnTmpfs(extraConfig = ''): Promise<OnTmpfs> {
  const fx = createRunnerFixture(extraConfig);
  const disk = mountTmpfs(2 * 1024 * 1024, { dir: fx.dataDir });
  const loaded = await loadConfig(fx.configPath);
  if (loaded.state !== 'loaded') throw new Error(`the fixture's config did not load: ${loaded.state}`);
  const { store } = openStore(fx.dataDir);
  let now = START;
  const engine = composeEngine(loaded.config, { store, now: () => new Date(now), noticeTickMs: 20 });
  const events: OnTmpfs['events'] = [];
  engine.subscribe((...e) => events.push({ event: e[0], payload: e[1], ...(e[0] === 'notice.raised' ? { repeat: e[1].repeat } : {}) }));
  engine.start();
  const t: OnTmpfs = {
    fx,
    disk,
    store,
    engine,
    events,
    advance: (ms) => (now += ms),
    fullProblem: () => engine.problems().find((p) => p.source === fx.dataDir),
  };
  running.push(t);
  return t;
}

/** The data folder's problem, as the console shows it: naming the folder and the room left. */
const FULL = (dir: string): RegExp => new RegExp(`^data folder full: \\d+ bytes free in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Free some space there`);

/** The steps of the newest cycle's audit stage, as the engine holds them. */
const steps = (engine: Engine): string[] => engine.snapshot().loops[0]?.cycles[0]?.phases[0]?.stages[0]?.steps.map((s) => s.name) ?? [];

describe('a full data folder', () => {
  // Whatever escapes a timer or an unawaited promise would end serve: none may.
  const escaped: unknown[] = [];
  const escape = (err: unknown): void => {
    escaped.push(err);
  };
  beforeAll(() => {
    process.on('unhandledRejection', escape);
    process.on('uncaughtException', escape);
  });
  afterEach(async () => {
    for (const t of running.splice(0)) {
      await t.engine.close();
      t.store.close();
      t.disk.unmount();
    }
  });
  afterAll(() => {
    process.off('unhandledRejection', escape);
    process.off('uncaughtException', escape);
  });

  it('a position the timer cannot write: the folder is a problem naming it and its room, and the position is written once there is room', async () => {
    const t = await engineOnTmpfs();
    t.fx.write(DAY, 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
    t.fx.write(DAY, 'audit.log', 'tool_use Read a\n');
    await t.engine.poll();
    const unfill = t.disk.fill();
    // Transcript lines make no record: only their position moves, written by the store's timer.
    t.fx.append(DAY, 'audit.log', 'tool_use Read b\ntool_result ok\n'.repeat(50));
    await t.engine.poll();
    await until(() => t.fullProblem() !== undefined || escaped.length > 0, 10_000, 'the data folder full problem');
    expect(escaped).toEqual([]);
    expect(t.fullProblem()?.message).toMatch(FULL(t.fx.dataDir));
    unfill();
    // The timer tries again on its own, and the problem goes with the first write that lands.
    await until(() => t.fullProblem() === undefined, 10_000, 'the problem to go once there is room');
    const stored = Store.open(t.store.dbPath);
    try {
      const row = stored.sql.prepare('SELECT offset FROM files WHERE path = ?').get(join(t.fx.runs, DAY, 'audit.log')) as { offset: number };
      expect(row.offset).toBe(statSync(join(t.fx.runs, DAY, 'audit.log')).size);
    } finally {
      stored.close();
    }
    expect(escaped).toEqual([]);
  });

  it("an emergency's repeat due while the folder is full: nothing escapes the notices' tick, and it is repeated once, when there is room", async () => {
    const t = await engineOnTmpfs('notify:\n  rules: { phase-failed: 2 }\n');
    t.fx.write(DAY, 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
    await t.engine.poll(); // the first start on a fresh database lists what it finds, alerting nothing
    t.fx.append(DAY, 'audit.status', 'audit 2026-11-29T00:10:00+00:00 FAILED 1\n');
    await t.engine.poll();
    const raised = (repeat: boolean): number => t.events.filter((e) => e.event === 'notice.raised' && e.repeat === repeat).length;
    expect(raised(false)).toBe(1);
    const unfill = t.disk.fill();
    // The repeat is due: the tick (every 20 ms here) is the only writer, and its write fails.
    t.advance(61_000);
    await until(() => t.fullProblem() !== undefined || escaped.length > 0, 10_000, "the tick's write to fail");
    expect(escaped).toEqual([]);
    expect(t.fullProblem()?.message).toMatch(FULL(t.fx.dataDir));
    expect(raised(true)).toBe(0); // not sent while its send cannot be recorded
    expect(t.engine.problems().filter((p) => p.source === 'notices')).toEqual([]);
    unfill();
    await until(() => raised(true) === 1, 10_000, 'the repeat, once there is room');
    await t.engine.poll(); // a poll writes (or tries to): the folder has room again
    expect(t.fullProblem()).toBeUndefined();
    expect(raised(true)).toBe(1);
    expect(escaped).toEqual([]);
  });

  it('records of followed files: what could not be stored is read again when there is room, each record once, and nothing stored before is lost', async () => {
    const t = await engineOnTmpfs();
    t.fx.write(DAY, 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
    const written: string[] = [];
    const feed = (n: number): void => {
      const names = Array.from({ length: n }, (_, i) => `step${written.length + i}`);
      written.push(...names);
      t.fx.append(DAY, 'audit.suite.rc', names.map((s) => `${s}_rc=0\n`).join(''));
    };
    feed(50);
    await t.engine.poll();
    expect(steps(t.engine)).toEqual(written);
    const before = [...written];
    const unfill = t.disk.fill();
    // Fed until SQLite says the disk is full (the WAL may have room for a commit or two).
    for (let i = 0; i < 20 && t.fullProblem() === undefined; i++) {
      feed(500);
      await t.engine.poll();
    }
    expect(t.fullProblem()?.message).toMatch(FULL(t.fx.dataDir));
    // The folder's problem, not the loop's: the loop's source is fine.
    expect(t.engine.problems().filter((p) => p.source === 'loops.reliability')).toEqual([]);
    expect(steps(t.engine).slice(0, before.length)).toEqual(before);
    // Still polling, still failing, still running.
    feed(10);
    await t.engine.poll();
    expect(t.fullProblem()).toBeDefined();
    unfill();
    feed(10);
    await t.engine.poll();
    for (let i = 0; t.engine.behind() && i < 50; i++) await t.engine.poll();
    expect(t.fullProblem()).toBeUndefined();
    expect(steps(t.engine)).toEqual(written);
    expect(escaped).toEqual([]);
    // What the database holds, read afresh: every line once, in order.
    await t.engine.close();
    t.store.close();
    const stored = Store.open(t.store.dbPath);
    try {
      const id = (stored.sql.prepare('SELECT id FROM files WHERE path = ?').get(join(t.fx.runs, DAY, 'audit.suite.rc')) as { id: number }).id;
      const records = stored.records<{ line: number; name: string }>(id);
      expect(records.map((r) => r.name)).toEqual(written);
      expect(records.map((r) => r.line)).toEqual(written.map((_, i) => i + 1));
    } finally {
      stored.close();
    }
  });

  it("the fleet's capacity history: a poll or a prune that cannot write is the folder's problem, the live figures go on, and history is written again once there is room", async () => {
    const fleet: FleetServer = await startFleetServer();
    try {
      const t = await engineOnTmpfs(`proxies:\n  xb: { host: runner, kind: crossbar, url: "${fleet.url}", every: 250ms }\n`);
      await until(() => (t.engine.snapshot().capacity.length > 0), 10_000, 'the first capacity poll');
      const samples = (): number => (t.store.sql.prepare('SELECT COUNT(*) AS n FROM capacity_samples').get() as { n: number }).n;
      const up = (host: string): boolean | undefined => t.engine.snapshot().capacity.find((c) => c.host === host)?.up;
      const host = t.engine.snapshot().capacity.find((c) => c.host !== 'xb')?.host ?? '';
      const unfill = t.disk.fill();
      await until(() => t.fullProblem() !== undefined || escaped.length > 0, 15_000, "a capacity write to fail");
      expect(escaped).toEqual([]);
      t.engine.capacity.prune(new Date());
      // Still polled and shown while nothing can be stored: a host that goes down shows down.
      fleet.setHostDown(host, true);
      await until(() => up(host) === false, 10_000, 'a capacity poll while full');
      expect(escaped).toEqual([]);
      unfill();
      const before = samples();
      await t.engine.poll(); // a poll writes (or tries to): the folder has room again
      // New samples, at a later time (the engine's clock is the test's).
      await until(() => (t.advance(10_000), samples() > before), 10_000, 'capacity samples written again');
      expect(t.fullProblem()).toBeUndefined();
      expect(escaped).toEqual([]);
    } finally {
      await fleet.close();
    }
  });
});
