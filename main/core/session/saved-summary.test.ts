import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import type { EventName } from '../../../shared/contract';
import { SummarySchema, type Summary } from '../../../shared/ledger-slice';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { mountTmpfs } from '../../../testing/tmpfs';
import { until } from '../../../testing/until';
import { createSession, type Session } from './session';
import { useLogger } from '../logging/log';
import { createLogger, logFilePath } from '../logging/logger';
import { DiskSpace } from '../store/disk-space';
import { FIRST_READ_AFTER_ANSWER_MS, FIRST_READ_WAIT_MS, FirstReadStart } from './first-read-start';
import { readSummaryCache, SavedSummary, SUMMARY_CACHE_FILE, SUMMARY_FORMAT, writeSummaryCache } from './saved-summary';
import { TEST_CALLER } from '../../../testing/callers';

const NOW = (): Date => new Date('2026-11-29T12:00:00Z');

function summaryOfCore(core: Session): Promise<Summary> {
  return Promise.resolve(core.handlers['state.summary']({}, TEST_CALLER)).then((s) => SummarySchema.parse(s));
}

/** A started core on the fixture, every event it publishes pushed to `events`. */
async function startRecording(fx: { configPath: string; dataDir: string }, events: EventName[]): Promise<Session> {
  const core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
  core.subscribe((...[event]) => void events.push(event));
  await core.start();
  return core;
}

describe('the summary kept across restarts', () => {
  let core: Session | null = null;
  afterEach(async () => {
    await core?.close();
    core = null;
  });

  it('answers the state saved at the last run at once after a start, marked restored, then publishes state.reset and answers afresh', async () => {
    const fx = createRunnerFixture();
    fx.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T00:40:00+00:00 OK\n');
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    await until(async () => (await summaryOfCore(core as Session)).loops[0]?.cycles.length === 1 && !(await summaryOfCore(core as Session)).restored, 10_000, 'the first read');
    await core.close(); // saves the summary
    core = null;
    const saved = readSummaryCache(fx.dataDir);
    expect(saved?.loops[0]?.cycles[0]?.phases[0]?.status).toBe('ok');
    expect(saved?.restored).toBeUndefined();

    // While Loopdeck was off, the next phase started.
    fx.write('2026-11-29', 'remediate.status', 'remediate 2026-11-29T01:00:00+00:00 STARTED\n');
    const events: EventName[] = [];
    core = await startRecording(fx, events);
    // Before the first poll has caught up: the saved state, marked, without the new phase.
    const first = await summaryOfCore(core);
    expect(first.restored).toBe(true);
    expect(first.loops[0]?.cycles[0]?.phases[1]?.status).not.toBe('running');
    // The rows are not read yet, which is not "there are none".
    const page = async (): Promise<unknown> => core?.handlers['ledgers.page']({ cursor: null, offset: 0, limit: 10 }, TEST_CALLER);
    expect(await page()).toEqual({ ready: false, reason: expect.stringMatching(/^The ledgers' rows are not read yet: the state shown is the one saved at the last run/) });
    await until(() => events.includes('state.reset'), 10_000, 'state.reset');
    expect(await page()).toMatchObject({ ready: true, total: 0, next: null });
    const fresh = await summaryOfCore(core);
    expect(fresh.restored).toBeUndefined();
    expect(fresh.loops[0]?.cycles[0]?.phases[1]?.status).toBe('running');
    expect(events.filter((e) => e === 'state.reset')).toHaveLength(1);
  });

  it('without a saved summary, answers the live state marked reading until the first read has caught up, then publishes state.reset', async () => {
    const fx = createRunnerFixture();
    fx.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T00:40:00+00:00 OK\n');
    const events: EventName[] = [];
    core = await startRecording(fx, events);
    // The first poll has begun but cannot have finished (it reads files): what is answered may be
    // half read, and says so, so that a console neither shows nor copies it as the whole.
    const first = await summaryOfCore(core);
    expect(first.restored).toBeUndefined();
    expect(first.reading).toBe(true);
    await until(() => events.includes('state.reset'), 10_000, 'state.reset');
    const fresh = await summaryOfCore(core);
    expect(fresh.reading).toBeUndefined();
    expect(fresh.loops[0]?.cycles[0]?.phases[0]?.status).toBe('ok');
    await core.pollOnce();
    expect(events.filter((e) => e === 'state.reset')).toHaveLength(1);
    await core.close();
    core = null;
    expect(readSummaryCache(fx.dataDir)?.reading).toBeUndefined();
  });

  it('does not save a state whose first read never caught up', () => {
    const fx = createRunnerFixture();
    mkdirSync(fx.dataDir, { recursive: true });
    const keeper = new SavedSummary(fx.dataDir);
    const partial: Summary = { schema: 1, takenAt: '2026-11-29T00:00:00Z', hosts: [], loops: [], problems: [], prs: [], capacity: [], notices: [], lastReviewedAt: null, drills: [], drillRuns: [], ledgerRows: { findings: 0, backlog: 0, tasks: 0, lessons: 0, audits: 0 } };
    const source = { summary: () => partial, behind: () => true };
    expect(keeper.answer(source).reading).toBe(true);
    expect(keeper.afterPoll(source, 0)).toBe(false);
    keeper.close(source);
    expect(readSummaryCache(fx.dataDir)).toBeNull();
  });

  it('ignores a saved summary that is not one or was saved in another format, and a first start has none', async () => {
    const fx = createRunnerFixture();
    expect(readSummaryCache(fx.dataDir)).toBeNull();
    mkdirSync(fx.dataDir, { recursive: true });
    writeFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), '{"schema": 1, "loops": "not a list"}');
    expect(readSummaryCache(fx.dataDir)).toBeNull();
    writeFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), '{ torn');
    expect(readSummaryCache(fx.dataDir)).toBeNull();
    // A summary saved bare (before the format key) or in another build's format is not answered.
    const summary = await (async () => {
      const c = createSession({ configPath: fx.configPath, dataDir: `${fx.dataDir}-other`, shell: 'serve', pollMs: 60_000, now: NOW });
      await c.start();
      await c.pollOnce();
      const s = await summaryOfCore(c);
      await c.close();
      return s;
    })();
    writeFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), JSON.stringify(summary));
    expect(readSummaryCache(fx.dataDir)).toBeNull();
    writeFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), JSON.stringify({ format: 'another', summary }));
    expect(readSummaryCache(fx.dataDir)).toBeNull();
    writeFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), JSON.stringify({ format: SUMMARY_FORMAT, summary }));
    expect(readSummaryCache(fx.dataDir)).toEqual(summary);
    writeFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), '{ torn');
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    expect((await summaryOfCore(core)).restored).toBeUndefined();
  });

  describe('a saved summary of this format but the wrong shape', () => {
    // A real one: a cycle with a stage and its steps, a notice, a problem.
    let good: { format: string; summary: Record<string, unknown> };
    let fx: ReturnType<typeof createRunnerFixture>;
    beforeAll(async () => {
      fx = createRunnerFixture('notify:\n  rules: { phase-failed: 0 }\n');
      fx.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
      fx.write('2026-11-29', 'audit.suite.rc', 'build_rc=0\nsuite_rc=\nnot an rc line\n');
      const c = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
      await c.start();
      await c.pollOnce();
      fx.append('2026-11-29', 'audit.status', 'audit 2026-11-29T00:10:00+00:00 FAILED 1\n');
      await c.pollOnce();
      await c.close();
      good = JSON.parse(readFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), 'utf8')) as typeof good;
      expect(good.format).toBe(SUMMARY_FORMAT);
      expect(readSummaryCache(fx.dataDir)).toEqual(good.summary);
    });

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed file, reached into to break it
    type Mutable = Record<string, any>;
    const wrong: [string, (s: Mutable) => void, string][] = [
      ['schema', (s) => (s.schema = 2), 'summary.schema is not one of 1'],
      ['takenAt', (s) => (s.takenAt = 1764400000000), 'summary.takenAt is not a string'],
      ['hosts', (s) => (s.hosts = { runner: {} }), 'summary.hosts is not a list'],
      ['loops', (s) => (s.loops = 'reliability'), 'summary.loops is not a list'],
      ['problems', (s) => delete s.problems, 'summary.problems is not a list'],
      ['prs', (s) => (s.prs = null), 'summary.prs is not a list'],
      ['capacity', (s) => (s.capacity = 3), 'summary.capacity is not a list'],
      ['notices', (s) => (s.notices = {}), 'summary.notices is not a list'],
      ['lastReviewedAt', (s) => (s.lastReviewedAt = false), 'summary.lastReviewedAt is not a string'],
      ['drills', (s) => (s.drills = [[]]), 'summary.drills[0] is not an object'],
      ['drillRuns', (s) => (s.drillRuns = 'none'), 'summary.drillRuns is not a list'],
      ['ledgerRows', (s) => (s.ledgerRows = [0, 0, 0, 0, 0]), 'summary.ledgerRows is not an object'],
      ['a ledger count', (s) => (s.ledgerRows.findings = -1), 'summary.ledgerRows.findings is not a count'],
      ["a loop's cycles", (s) => (s.loops[0].cycles = { '2026-11-29': s.loops[0].cycles[0] }), 'summary.loops[0].cycles is not a list'],
      ['a cycle', (s) => (s.loops[0].cycles[0] = '2026-11-29'), 'summary.loops[0].cycles[0] is not an object'],
      ["a cycle's status", (s) => (s.loops[0].cycles[0].status = 'exploded'), 'summary.loops[0].cycles[0].status is not one of "pending", "running", "ok", "no-op", "ready", "incomplete", "failed"'],
      ["a phase's stages", (s) => (s.loops[0].cycles[0].phases[0].stages = null), 'summary.loops[0].cycles[0].phases[0].stages is not a list'],
      ["a step's name", (s) => (s.loops[0].cycles[0].phases[0].stages[0].steps[1].name = 7), 'summary.loops[0].cycles[0].phases[0].stages[0].steps[1].name is not a string'],
      ["a host's state", (s) => (s.hosts[0].state = 'asleep'), 'summary.hosts[0].state is not one of'],
      ["a notice's priority", (s) => (s.notices[0].priority = 5), 'summary.notices[0].priority is not one of -2, -1, 0, 1, 2'],
      ["a problem's line", (s) => (s.problems[0].line = '3'), 'summary.problems[0].line is not a number'],
      ['the summary itself', (s) => (s.loops = undefined), 'summary.loops is not a list'],
    ];

    it.each(wrong)('%s: is not answered, and a warning names the file and the field', async (_what, breakIt, fault) => {
      const broken = structuredClone(good);
      breakIt(broken.summary);
      const path = join(fx.dataDir, SUMMARY_CACHE_FILE);
      writeFileSync(path, JSON.stringify(broken));
      const logDir = mkdtempSync(join(tmpdir(), 'ld-summary-log-'));
      const restore = useLogger(createLogger({ dataDir: logDir, level: 'info' }));
      try {
        expect(readSummaryCache(fx.dataDir)).toBeNull();
        // A console asking at once is not answered it: it is told the first read is under way.
        core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
        await core.start();
        const first = await summaryOfCore(core);
        expect(first.restored).toBeUndefined();
        expect(first.reading).toBe(true);
      } finally {
        restore();
      }
      const warnings = readFileSync(logFilePath(logDir), 'utf8').split('\n').filter((l) => / WARN /.test(l));
      expect(warnings).toHaveLength(2);
      for (const w of warnings) expect(w).toContain(`WARN  ${path}: not a summary as this build saves it (${fault}`);
    });
  });

  it('knows the format of the summary it saves: a hash of the summary schema, so a changed schema never reads an old file', () => {
    const jsonSchema = JSON.stringify(z.toJSONSchema(SummarySchema, { unrepresentable: 'any', io: 'output' }));
    const format = createHash('sha256').update(jsonSchema).digest('hex').slice(0, 16);
    expect(SUMMARY_FORMAT, `SummarySchema changed: set SUMMARY_FORMAT in saved-summary.ts to '${format}' (saved summaries of the old shape are then ignored)`).toBe(format);
  });

  it('saves after the first read that caught up, then at most every 15 minutes, and keeps the old one if never read afresh', () => {
    const fx = createRunnerFixture();
    mkdirSync(fx.dataDir, { recursive: true });
    const base = { schema: 1 as const, takenAt: '2026-11-29T00:00:00Z', hosts: [], loops: [], problems: [], prs: [], capacity: [], notices: [], lastReviewedAt: null, drills: [], drillRuns: [] };
    const summaryAt = (takenAt: string): Summary => ({ ...base, takenAt, ledgerRows: { findings: 0, backlog: 0, tasks: 0, lessons: 0, audits: 0 } });
    writeSummaryCache(fx.dataDir, summaryAt('2026-11-28T00:00:00Z'));
    let behind = true;
    let takenAt = '2026-11-29T01:00:00Z';
    const source = { summary: () => summaryAt(takenAt), behind: () => behind };
    const keeper = new SavedSummary(fx.dataDir);
    const savedAt = (): string => (JSON.parse(readFileSync(join(fx.dataDir, SUMMARY_CACHE_FILE), 'utf8')) as { summary: Summary }).summary.takenAt;
    expect(keeper.pending?.takenAt).toBe('2026-11-28T00:00:00Z');
    expect(keeper.afterPoll(source, 0)).toBe(false); // still reading a backlog
    keeper.close(source);
    expect(savedAt()).toBe('2026-11-28T00:00:00Z'); // never read afresh: the old one stays
    behind = false;
    expect(keeper.afterPoll(source, 1000)).toBe(true);
    expect(keeper.pending).toBeNull();
    expect(savedAt()).toBe('2026-11-29T01:00:00Z');
    takenAt = '2026-11-29T02:00:00Z';
    expect(keeper.afterPoll(source, 2000)).toBe(false);
    expect(savedAt()).toBe('2026-11-29T01:00:00Z');
    keeper.afterPoll(source, 1000 + 15 * 60 * 1000);
    expect(savedAt()).toBe('2026-11-29T02:00:00Z');
  });

  it('on a full data folder: a save fails without a throw, keeps the saved one whole and leaves no half-written file, says the folder is full, and saves again once there is room', () => {
    const disk = mountTmpfs(256 * 1024);
    try {
      const space = new DiskSpace(disk.dir);
      const summaryAt = (takenAt: string): Summary => ({ schema: 1, takenAt, hosts: [], loops: [], problems: [], prs: [], capacity: [], notices: [], lastReviewedAt: null, drills: [], drillRuns: [], ledgerRows: { findings: 0, backlog: 0, tasks: 0, lessons: 0, audits: 0 } });
      const path = join(disk.dir, SUMMARY_CACHE_FILE);
      writeSummaryCache(disk.dir, summaryAt('2026-11-28T00:00:00.000Z'), space);
      const saved = readFileSync(path, 'utf8');
      const unfill = disk.fill();
      expect(() => writeSummaryCache(disk.dir, summaryAt('2026-11-29T00:00:00.000Z'), space)).not.toThrow();
      expect(readFileSync(path, 'utf8')).toBe(saved);
      expect(existsSync(`${path}.tmp`)).toBe(false);
      expect(space.problem()).toMatchObject({ source: disk.dir, message: expect.stringMatching(/^data folder full: \d+ bytes free in /) });
      unfill();
      writeSummaryCache(disk.dir, summaryAt('2026-11-30T00:00:00.000Z'), space);
      expect(readSummaryCache(disk.dir)?.takenAt).toBe('2026-11-30T00:00:00.000Z');
      expect(space.problem()).toBeNull();
    } finally {
      disk.unmount();
    }
  });

  it('begins the first read at once without a saved summary; with one, shortly after a console got it, or after the wait', () => {
    vi.useFakeTimers();
    try {
      let begun = 0;
      new FirstReadStart(() => begun++).start(false);
      expect(begun).toBe(1);
      const answered = new FirstReadStart(() => begun++);
      answered.start(true);
      vi.advanceTimersByTime(FIRST_READ_AFTER_ANSWER_MS * 2);
      expect(begun).toBe(1); // nobody asked yet
      answered.soon();
      vi.advanceTimersByTime(FIRST_READ_AFTER_ANSWER_MS);
      expect(begun).toBe(2);
      answered.soon();
      vi.advanceTimersByTime(FIRST_READ_WAIT_MS);
      expect(begun).toBe(2); // once only
      new FirstReadStart(() => begun++).start(true);
      vi.advanceTimersByTime(FIRST_READ_WAIT_MS);
      expect(begun).toBe(3); // no console came
      const closed = new FirstReadStart(() => begun++);
      closed.start(true);
      closed.cancel();
      vi.advanceTimersByTime(FIRST_READ_WAIT_MS);
      expect(begun).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
