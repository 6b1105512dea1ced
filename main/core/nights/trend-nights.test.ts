import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SummarySchema } from '../../../shared/ledger-slice';
import { MAX_NIGHT_BYTES, nightBytes, NightSummarySchema, type NightSummary } from '../../../shared/night-summary';
import { addDays, createTrendsMemo } from '../../../shared/trends';
import type { Engine } from '../engine';
import { until } from '../../../testing/until';
import { parseConfig } from '../config/load-config';
import { createSession, type Session } from '../session/session';
import { Store } from '../store/store';
import { TEST_CALLER } from '../../../testing/callers';
import { composeEngine } from '../session/core';

const NEWEST = '2026-11-29';
const NOW = new Date(`${NEWEST}T12:00:00Z`);
const NIGHTS = 100;

/** A finished night: audit OK, remediate OK (4 h), deliver ready with one PR; every 10th night remediate failed. */
function night(runs: string, date: string, i: number): void {
  const dir = join(runs, date);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'audit.status'), `audit ${date}T00:00:04+00:00 STARTED\naudit ${date}T00:41:12+00:00 OK\n`);
  const end = i % 10 === 0 ? 'FAILED 1' : 'OK';
  writeFileSync(join(dir, 'remediate.status'), `remediate ${date}T01:00:00+00:00 STARTED\nremediate ${date}T05:00:00+00:00 ${end}\n`);
  writeFileSync(join(dir, 'remediate.log'), 'tool_use Read x\n'.repeat(50));
  writeFileSync(join(dir, 'deliver.status'), `deliver ${date}T06:00:00+00:00 STARTED\ndeliver ${date}T06:30:00+00:00 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${1000 + i}\n`);
}

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'ld-history-'));
  const runs = join(dir, 'runs');
  const dates = Array.from({ length: NIGHTS }, (_, i) => addDays(NEWEST, -i));
  dates.forEach((d, i) => night(runs, d, i));
  const configPath = join(dir, 'config.yaml');
  const text = ['hosts: { runner: { local: true } }', 'loops:', '  reliability:', '    host: runner', `    runs: ${JSON.stringify(runs)}`, '    cap: 20h', '    cycles: 14', ''].join('\n');
  writeFileSync(configPath, text);
  return { dir, runs, dates, configPath, dataDir: join(dir, 'data'), config: parseConfig(configPath, text) };
}

/** Trends over 90 nights as the view derives them: the followed cycles plus the kept nights. */
async function trends90(core: Session) {
  const summary = SummarySchema.parse(await core.handlers['state.summary']({}, TEST_CALLER));
  const { nights } = await core.handlers['trends.nights']({}, TEST_CALLER);
  const r = createTrendsMemo().compute({ loops: summary.loops, findings: [], backlog: [], days: 90, now: NOW.toISOString(), history: nights });
  return { summary, nights, loop: r.loops[0] };
}

describe('history that lasts: kept nights', () => {
  let core: Session | null = null;
  afterEach(async () => {
    await core?.close();
    core = null;
  });

  it('Trends at 90 nights is full with cycles: 14, and stays after a restart without reading the old nights again', async () => {
    const fx = fixture();
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: () => NOW });
    await core.start();
    // The older nights are read a chunk a poll after the first read: wait for all 90.
    await until(async () => (await trends90(core as Session)).loop?.nights.filter((n) => n.outcome !== null).length === 90, 20_000, '90 nights in Trends');
    const first = await trends90(core);
    expect(first.summary.loops[0]?.cycles).toHaveLength(14);
    expect(first.loop?.nights.map((n) => n.date)).toEqual(fx.dates.slice(0, 90).reverse());
    // Every 10th night's remediate failed; all delivered one PR; durations reach back too.
    expect(first.loop?.nights.filter((n) => n.outcome === 'failed')).toHaveLength(9);
    expect(first.loop?.nights.every((n) => n.prs === 1)).toBe(true);
    // Each failed remediate is put down by the same rule, old nights and followed ones alike: this
    // Loopdeck watched none of those nights, so none is blamed on the agent (issue 40, item 3).
    expect(first.loop?.failures).toEqual({ fleet: 0, runner: 0, agent: 0, unknown: 9 });
    expect(first.loop?.phases.find((p) => p.phase === 'remediate')).toMatchObject({ runs: 90, p50Ms: 4 * 3_600_000 });
    // Nights past `history` (90) are not read: 90 rows kept, no more.
    expect(first.nights).toHaveLength(90);
    for (const n of first.nights) expect(nightBytes(NightSummarySchema.parse(n))).toBeLessThanOrEqual(MAX_NIGHT_BYTES);
    await core.close();
    core = null;

    // The old nights' folders are gone: a restart still has them, from the store.
    for (const d of fx.dates.slice(14)) rmSync(join(fx.runs, d), { recursive: true });
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: () => NOW });
    await core.start();
    // Asking for the summary while the saved one is answered would put the first read off: poll now.
    await core.pollOnce();
    expect((await trends90(core)).summary.restored).toBeUndefined();
    const again = await trends90(core);
    expect(again.loop?.nights.filter((n) => n.outcome !== null)).toHaveLength(90);
    expect(again.loop?.nights.filter((n) => n.outcome === 'failed')).toHaveLength(9);
  });

  it('reads the old nights once, a chunk a poll, and a change to one night re-writes only its row', async () => {
    const fx = fixture();
    const file = join(fx.dataDir, 'loopdeck.db');
    mkdirSync(fx.dataDir, { recursive: true });
    let store = Store.open(file);
    // The proxy's usage rows over one old night's remediate (01:00-05:00), and one outside every phase.
    const usage = store.sql.prepare('INSERT INTO usage_rows (proxy, key, t, route, host, model, status, ttfb_ms, tokens, error) VALUES (?, ?, ?, NULL, NULL, NULL, ?, NULL, ?, NULL)');
    const old = fx.dates[20] ?? '';
    usage.run('crossbar', 'a', Date.parse(`${old}T02:00:00Z`), '200', 1200);
    usage.run('crossbar', 'b', Date.parse(`${old}T04:59:00Z`), '200', 800);
    usage.run('crossbar', 'c', Date.parse(`${old}T05:30:00Z`), '200', 5000);
    let engine = composeEngine(fx.config, { store, now: () => NOW });
    const written: NightSummary[][] = [];
    engine.subscribe((...[event, payload]) => {
      if (event === 'nights.changed') written.push([...payload.upserted]);
    });
    await engine.poll();
    // The first poll keeps the 14 followed nights and a first chunk of the older ones; once the
    // poll's Broken contract list is derived, the followed nights get their count of breaches
    // (kept before the first list, they could not have it): 14 more, once a start.
    expect(engine.nights.rows.writes).toBe(14 + 8 + 14);
    expect(engine.nights.oldNightsRead).toBe(8);
    for (let i = 0; engine.nights.pending && i < 100; i++) await engine.poll();
    expect(engine.nights.oldNightsRead).toBe(76);
    expect(engine.nights.rows.writes).toBe(104);
    // Each phase keeps the fleet tokens of its own window; a phase without usage rows keeps none (not 0).
    const kept = engine.nights.list().find((n) => n.date === old);
    expect(kept?.phases.map((p) => [p.name, p.tokens])).toEqual([['audit', undefined], ['remediate', 2000], ['deliver', undefined]]);

    // A poll with nothing new writes nothing; one phase of one followed night changing writes that night's row.
    written.length = 0;
    await engine.poll();
    expect(engine.nights.rows.writes).toBe(104);
    appendFileSync(join(fx.runs, fx.dates[1] ?? '', 'deliver.status'), `deliver ${fx.dates[1]}T07:00:00+00:00 FAILED 2\n`);
    await engine.poll();
    expect(engine.nights.rows.writes).toBe(105);
    expect(written.flat().map((n) => [n.date, n.status])).toEqual([[fx.dates[1], 'failed']]);
    await engine.close();
    store.close();

    // A restart reads none of the old nights again.
    store = Store.open(file);
    engine = composeEngine(fx.config, { store, now: () => NOW });
    await engine.poll();
    expect(engine.nights.pending).toBe(false);
    expect(engine.nights.oldNightsRead).toBe(0);
    expect(engine.nights.list()).toHaveLength(90);
    // The console asks for its longest range and 30 nights before: no more rows than that.
    expect(engine.nights.list(undefined, 30).map((n) => n.date)).toEqual(fx.dates.slice(0, 30).reverse());
    await engine.close();
    store.close();
  });

  it('keeps each night’s new findings by severity, and a ledger section appended re-writes only its night’s row', async () => {
    const fx = fixture();
    const clone = join(fx.dir, 'clone');
    mkdirSync(clone);
    const section = (date: string, sevs: string[], from: number) =>
      `\n## Delta audit ${date}\n\n| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n${sevs.map((s, i) => `| R-${from + i} | ${s} | durability | src/a.py:${from + i} | x |`).join('\n')}\n`;
    const audit = join(clone, 'RELIABILITY_AUDIT.md');
    const old = fx.dates[40] ?? '';
    writeFileSync(audit, `# Audit\n${section(old, ['P0', 'P0', 'P2'], 1)}`);
    const text = ['hosts: { runner: { local: true } }', 'loops:', '  reliability:', '    host: runner', `    runs: ${JSON.stringify(fx.runs)}`, `    dir: ${JSON.stringify(clone)}`, '    ledgers: { audit: RELIABILITY_AUDIT.md }', '    cap: 20h', '    cycles: 14', ''].join('\n');
    const store = Store.open(':memory:');
    const engine = composeEngine(parseConfig(fx.configPath, text), { store, now: () => NOW });
    await engine.poll();
    for (let i = 0; engine.nights.pending && i < 100; i++) await engine.poll();
    const at = (d: string) => engine.nights.list().find((n) => n.date === d);
    expect(at(old)?.opened).toEqual({ P0: 2, P1: 0, P2: 1, P3: 0, none: 0 });
    expect(at(fx.dates[2] ?? '')?.opened).toEqual({ P0: 0, P1: 0, P2: 0, P3: 0, none: 0 });
    const writes = engine.nights.rows.writes;
    appendFileSync(audit, section(fx.dates[2] ?? '', ['P1'], 4));
    await engine.poll();
    expect(engine.nights.rows.writes).toBe(writes + 1);
    expect(at(fx.dates[2] ?? '')?.opened).toMatchObject({ P1: 1 });
    await engine.close();
    store.close();
  });

  it('keeps each followed night’s contract breaches by kind, re-writes only the night whose count moved, and an older night keeps its last count', async () => {
    const fx = fixture();
    // Remediate stamped OK while its gates stage has no DONE: `unfinished-stage`, on two followed
    // nights and on an old one (never followed with the list: its count is not known).
    const unfinished = (date: string) => writeFileSync(join(fx.runs, date, 'remediate.gates.rc'), 'gates_rc=\nsuite_rc=\ngates_rc=0\n');
    const [broken = '', fixed = '', clean = '', old = ''] = [fx.dates[3], fx.dates[1], fx.dates[2], fx.dates[31]];
    for (const d of [broken, fixed, old]) unfinished(d);
    const file = join(fx.dataDir, 'loopdeck.db');
    mkdirSync(fx.dataDir, { recursive: true });
    let store = Store.open(file);
    let engine = composeEngine(fx.config, { store, now: () => NOW });
    const written: NightSummary[] = [];
    engine.subscribe((...[event, payload]) => {
      if (event === 'nights.changed') written.push(...payload.upserted);
    });
    await engine.poll();
    for (let i = 0; engine.nights.pending && i < 100; i++) await engine.poll();
    const at = (e: Engine, d: string) => e.nights.list().find((n) => n.date === d);
    // The engine publishes the list after a poll, and TrendNights is told it (the lead's call in engine.ts).
    const tell = async (e: Engine) => {
      const summary = e.summary();
      e.nights.noteContract(summary.contract ?? [], (loop) => summary.loops.find((l) => l.name === loop)?.cycles);
      await e.poll();
    };
    expect((engine.summary().contract ?? []).filter((b) => b.kind === 'unfinished-stage').map((b) => b.date)).toEqual([fixed, broken]);
    await tell(engine);
    expect(at(engine, broken)?.breaches).toEqual({ total: 1, kinds: { 'unfinished-stage': 1 } });
    expect(at(engine, clean)?.breaches).toEqual({ total: 0, kinds: {} });
    expect(at(engine, old)?.breaches).toBeUndefined();
    expect(at(engine, old)?.phases.map((p) => p.status)).toEqual(['ok', 'ok', 'ready']);
    // The same list again writes nothing; the stage finishing on one (hot) night re-writes that row only.
    const writes = engine.nights.rows.writes;
    await tell(engine);
    expect(engine.nights.rows.writes).toBe(writes);
    appendFileSync(join(fx.runs, fixed, 'remediate.gates.rc'), 'suite_rc=0\nDONE\n');
    written.length = 0;
    await engine.poll();
    await tell(engine);
    expect(engine.nights.rows.writes).toBe(writes + 1);
    expect(written.map((n) => [n.date, n.breaches])).toEqual([[fixed, { total: 0, kinds: {} }]]);
    await engine.close();
    store.close();

    // Restarted following 2 cycles: the broken night is past the followed window and out of the
    // list, and keeps the count it was last written with, read back from the store.
    const text = ['hosts: { runner: { local: true } }', 'loops:', '  reliability:', '    host: runner', `    runs: ${JSON.stringify(fx.runs)}`, '    cap: 20h', '    cycles: 2', ''].join('\n');
    store = Store.open(file);
    engine = composeEngine(parseConfig(fx.configPath, text), { store, now: () => NOW });
    // Before the list is told, a followed night re-derived keeps the count its row has: nothing to write.
    await engine.poll();
    await tell(engine);
    expect(engine.nights.rows.writes).toBe(0);
    const summary = engine.summary();
    expect((summary.contract ?? []).filter((b) => b.date === broken)).toEqual([]);
    expect(NightSummarySchema.parse(at(engine, broken)).breaches).toEqual({ total: 1, kinds: { 'unfinished-stage': 1 } });
    // Trends, as the view derives it: the followed nights from the list, the older from their rows ("—" when none).
    const r = createTrendsMemo().compute({ loops: summary.loops, findings: [], backlog: [], days: 90, now: NOW.toISOString(), history: engine.nights.list(), contract: summary.contract });
    const shown = new Map(r.loops[0]?.nights.map((n) => [n.date, n.breaches]));
    expect(shown.get(fx.dates[0] ?? '')).toEqual({ total: 0, kinds: {} });
    expect(shown.get(broken)).toEqual({ total: 1, kinds: { 'unfinished-stage': 1 } });
    expect(shown.get(fixed)).toEqual({ total: 0, kinds: {} });
    expect(shown.get(old)).toBeNull();
    expect(r.loops[0]?.breaches).toEqual({ total: 1, kinds: { 'unfinished-stage': 1 }, unknownNights: 90 - 14 });
    await engine.close();
    store.close();
  });
});
