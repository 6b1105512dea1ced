import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BacklogItem, Finding } from '../../../shared/domain';
import { NightComparisonSchema } from '../../../shared/night-compare';
import { CapacityHistory } from '../capacity/history/history-store';
import { parseConfig } from '../config/load-config';
import type { LoopConfig } from '../config/schema';
import { LocalSource } from '../sources/local-source';
import type { FileSource } from '../sources/file-source';
import { Store } from '../store/store';
import { compareNights, NightCompareError, rcDivergence } from './compare-nights';
import { NightFleet } from './night-fleet';

// Real runs folders on disk (FORMATS.md §2): four nights of a loop, the last of which regressed —
// its suite stage wrote suite_rc=1, its remediate transcript has an extra failing test and another
// pytest summary — read through a LocalSource a few KB at a time.

const NOW = new Date('2026-08-24T20:00:00Z');
const TESTS = 6000;
const EXTRA_AFTER = 500;
const FAILED_LINE = 'FAILED tests/test_orders.py::test_fsync - AssertionError: fsync was not called';

/** A remediate transcript: the same tests every night (their times, durations and ids vary), a summary, a verdict-free end. */
function transcript(date: string, night: number, regressed: boolean): string {
  const lines = [`remediate started on ${date} pid ${4000 + night} in /tmp/loop-${night}/work`];
  for (let i = 0; i < TESTS; i++) {
    if (regressed && i === EXTRA_AFTER) lines.push(FAILED_LINE);
    const sec = String((i + night) % 60).padStart(2, '0');
    // Non-ASCII text, so lines split across read chunks must not tear a character.
    lines.push(`[${date} 01:${String(i % 60).padStart(2, '0')}:${sec}] PASSED tests/test_mod${i}.py::test_café_${i} ✓ (${((i * 7 + night) % 100) / 10}s) sha=${(0xabc1230 + night).toString(16)}`);
  }
  lines.push(regressed ? '===== 9 failed, 32820 passed in 861.40s =====' : `===== 8 failed, 32821 passed in 85${night}.12s =====`);
  lines.push(`remediate finished in ${900 + night}s`);
  return `${lines.join('\n')}\n`;
}

interface Fixture {
  readonly config: LoopConfig;
  readonly source: FileSource;
  /** Bytes read from each file, by path. */
  readonly read: Map<string, number>;
  readonly runs: string;
}

/**
 * Nights 08-21 (ok), 08-22 (ok), 08-23 (failed: a gate), 08-24 (failed: the suite regressed).
 * Each audits, remediates with a `battery` stage, and the ok ones deliver a PR.
 */
function fixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-compare-'));
  const runs = join(dir, 'runs');
  const clone = join(dir, 'clone');
  const nights: { date: string; kind: 'ok' | 'gates' | 'suite' }[] = [
    { date: '2026-08-21', kind: 'ok' },
    { date: '2026-08-22', kind: 'ok' },
    { date: '2026-08-23', kind: 'gates' },
    { date: '2026-08-24', kind: 'suite' },
  ];
  nights.forEach(({ date, kind }, n) => {
    const d = join(runs, date);
    mkdirSync(d, { recursive: true });
    const w = (name: string, text: string): void => writeFileSync(join(d, name), text);
    w('audit.status', `audit ${date}T00:00:00Z STARTED\naudit ${date}T00:30:00Z OK\n`);
    w('audit.log', `audit of ${date}\nfound 2 findings\n`);
    const rc = kind === 'ok' ? [0, 0, 0] : kind === 'gates' ? [0, 2, 0] : [0, 0, 1];
    w('remediate.battery.rc', `ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=${rc[0]}\ngates_rc=${rc[1]}\nsuite_rc=${rc[2]}\nDONE\n`);
    w('remediate.log', transcript(date, n, kind === 'suite'));
    if (kind === 'ok') {
      w('remediate.status', `remediate ${date}T01:00:00Z STARTED\nremediate ${date}T03:00:00Z OK\n`);
      w('deliver.status', `deliver ${date}T04:00:00Z STARTED\ndeliver ${date}T04:30:00Z 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${80 + n}\n`);
      w('deliver.log', `NIGHTLY DELIVER READY: loop=reliability prs=1 https://github.com/acme/radon/pull/${80 + n}\n`);
    } else {
      w('remediate.status', `remediate ${date}T01:00:00Z STARTED\nremediate ${date}T01:00:05Z STARTED\nremediate ${date}T03:10:00Z FAILED 1\n`);
    }
    // The nightly branch's reflog: two commits during remediate on the regressed night, one on the others.
    const reflog = join(clone, '.git', 'logs', 'refs', 'heads', 'reliability');
    mkdirSync(reflog, { recursive: true });
    const at = (hhmm: string): number => Date.parse(`${date}T${hhmm}:00Z`) / 1000;
    const sha = (k: number): string => (k * 1_000_003 + n).toString(16).padStart(40, '0');
    const moves = [`${'0'.repeat(40)} ${sha(1)} loop <loop@runner> ${at('01:00')} +0000\tbranch: Created from main`, `${sha(1)} ${sha(2)} loop <loop@runner> ${at('01:30')} +0000\tcommit: REL-050: shrink the pool`];
    if (kind === 'suite') moves.push(`${sha(2)} ${sha(3)} loop <loop@runner> ${at('02:30')} +0000\tcommit: REL-051: fsync on rotate`);
    writeFileSync(join(reflog, date), `${moves.join('\n')}\n`);
  });
  const configPath = join(dir, 'config.yaml');
  const text = `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    dir: ${JSON.stringify(clone)}\n    phases: [audit, remediate, deliver]\n    cap: 20h\n`;
  writeFileSync(configPath, text);
  const config = parseConfig(configPath, text).loops.reliability as LoopConfig;
  const local = new LocalSource('runner');
  const read = new Map<string, number>();
  // The real source, counting what it reads.
  const source: FileSource = {
    host: local.host,
    stat: (p) => local.stat(p),
    list: (p) => local.list(p),
    read: async (p, offset, length) => {
      const buf = await local.read(p, offset, length);
      read.set(p, (read.get(p) ?? 0) + buf.length);
      return buf;
    },
  };
  return { config, source, read, runs };
}

const finding = (id: string, section: string, status: Finding['status'], backlog: string[]): Finding => ({
  id, loop: 'reliability', source: 'RELIABILITY_AUDIT.md', section, severity: 'P1', category: null, where: null, text: id, status, backlog, firstSeenAt: '2026-08-25T00:00:00Z', line: 1,
});
const item = (id: string, findings: string[], date: string): BacklogItem => ({
  id, loop: 'reliability', section: 'x', findings, severity: 'P1', acceptance: '', status: 'done', red: 1, green: 1, outcomes: [{ date, outcome: 'DONE', red: 1, green: 1, note: null, line: 1 }],
});

describe('compareNights', () => {
  let fx: Fixture;
  beforeAll(() => {
    fx = fixture();
  });

  it('the last good night is one where every phase worked: a good night that declared NO-OP is taken only when there is no other', async () => {
    const own = fixture();
    // 08-23 becomes a quiet good night: audit and remediate NO-OP, nothing delivered (its cycle is ok).
    const d = join(own.runs, '2026-08-23');
    rmSync(d, { recursive: true });
    mkdirSync(d);
    writeFileSync(join(d, 'audit.status'), 'audit 2026-08-23T00:00:00Z STARTED\naudit 2026-08-23T00:20:00Z NO-OP\n');
    writeFileSync(join(d, 'remediate.status'), 'remediate 2026-08-23T00:21:00Z STARTED\nremediate 2026-08-23T00:25:00Z NO-OP\n');
    writeFileSync(join(d, 'deliver.status'), 'deliver 2026-08-23T00:26:00Z STARTED\ndeliver 2026-08-23T00:30:00Z 0 PR(s), nothing to merge\n');
    const base = { loop: 'reliability', config: own.config, source: own.source, fleet: null, now: NOW, a: '2026-08-24' } as const;
    const c = await compareNights(base);
    expect(c).toMatchObject({ b: { date: '2026-08-22', status: 'ready' }, picked: 'last-good' });
    // Without a night that worked before it, the quiet one is the last good night.
    rmSync(join(own.runs, '2026-08-22'), { recursive: true });
    rmSync(join(own.runs, '2026-08-21'), { recursive: true });
    expect((await compareNights(base)).b).toEqual({ date: '2026-08-23', status: 'ok' });
  });

  it('finds the regressed night’s first rc step and transcript line apart from the last good night, reading no further than it needs', async () => {
    const store = Store.open(':memory:');
    // The fleet over the good night's window (00:00–04:30), minute rollups; nothing kept for the regressed night.
    const t0 = Date.parse('2026-08-22T01:00:00Z');
    new CapacityHistory(store.sql).record([
      { proxy: 'xb', host: 'gpu-a', t: t0, up: true, slotsTotal: 4, slotsBusy: 2, inflight: 2, queued: 3, spanMs: 60_000, requests: 10, errors: { '503': 2 }, tokens: 6000, tokenSpanMs: 60_000 },
      { proxy: 'xb', host: 'gpu-b', t: t0 + 60_000, up: true, slotsTotal: 4, slotsBusy: 4, inflight: 4, queued: 7, spanMs: 60_000, requests: 10, errors: { '502': 1 }, tokens: 3000, tokenSpanMs: 60_000 },
    ]);
    new CapacityHistory(store.sql).addUsage('xb', [{ key: 'k1', t: t0, route: '/v1/chat', host: 'gpu-a', model: 'qwen3-32b', status: '200', ttfbMs: 100, tokens: 500, error: null }]);
    const ledgers = {
      findings: [finding('R-7', 'Delta audit 2026-08-24', 'open', []), finding('R-3', 'Delta audit 2026-08-20', 'done', ['REL-3']), finding('R-5', 'Delta audit 2026-08-22', 'open', [])],
      backlog: [item('REL-3', ['R-3'], '2026-08-22')],
    };
    const c = await compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: new NightFleet(store), now: NOW, a: '2026-08-24', ledgers, chunkBytes: 4096 });
    expect(NightComparisonSchema.parse(c)).toEqual(c);
    // 08-23 failed too: the last good night before 08-24 is 08-22.
    expect(c).toMatchObject({ loop: 'reliability', host: 'runner', a: { date: '2026-08-24', status: 'failed' }, b: { date: '2026-08-22', status: 'ready' }, picked: 'last-good' });
    const remediate = c.phases.find((p) => p.name === 'remediate');
    expect(remediate?.firstRcDivergence).toEqual({ stage: 'battery', step: 'suite', a: 1, b: 0 });
    // Line 1 is the header, test i is line i + 2: the extra line comes where test 2000 is on the good night.
    const line = EXTRA_AFTER + 2;
    expect(remediate?.firstLineDivergence).toEqual({ lineA: line, lineB: line, a: FAILED_LINE, b: expect.stringContaining(`PASSED tests/test_mod${EXTRA_AFTER}.py::test_café_${EXTRA_AFTER} ✓`) });
    expect(remediate?.transcript).toEqual({ lines: line - 1, stopped: null });
    expect(remediate?.a).toMatchObject({ status: 'failed', rounds: 2, durationMs: 2 * 3_600_000 + 10 * 60_000, cause: { kind: 'agent' }, commits: { count: 2 } });
    expect(remediate?.a?.commits.first.map((x) => x.message)).toEqual(['commit: REL-050: shrink the pool', 'commit: REL-051: fsync on rotate']);
    expect(remediate?.b).toMatchObject({ status: 'ok', rounds: 1, durationMs: 2 * 3_600_000, cause: null, commits: { count: 1 } });
    // The regressed night's suite: one more failure, one fewer pass (the summary sits in the transcript's tail).
    expect(remediate?.suites).toEqual([{ runner: 'pytest', a: { passed: 32820, failed: 9, skipped: 0, errors: 0 }, b: { passed: 32821, failed: 8, skipped: 0, errors: 0 }, passed: -1, failed: 1 }]);
    // The transcripts were read only as far as the divergence (and the summaries' tails), never whole.
    const logA = join(fx.runs, '2026-08-24', 'remediate.log');
    expect(fx.read.get(logA)).toBeLessThan((remediate?.a?.transcriptBytes ?? 0) / 3);
    // The audits agree once dates, times and numbers are masked; the regressed night delivered nothing.
    expect(c.phases.find((p) => p.name === 'audit')).toMatchObject({ firstRcDivergence: null, firstLineDivergence: null, transcript: { lines: 2, stopped: null } });
    const deliver = c.phases.find((p) => p.name === 'deliver');
    expect(deliver?.a).toMatchObject({ status: 'pending', transcriptBytes: null, rounds: 0 });
    expect(deliver?.firstLineDivergence).toEqual({ lineA: 1, lineB: 1, a: null, b: 'NIGHTLY DELIVER READY: loop=reliability prs=1 https://github.com/acme/radon/pull/81' });
    expect(c.prs).toEqual({ a: [], b: ['https://github.com/acme/radon/pull/81'] });
    expect(c.findings).toEqual({ a: { opened: ['R-7'], closed: [], openedTotal: 1, closedTotal: 0 }, b: { opened: ['R-5'], closed: ['R-3'], openedTotal: 1, closedTotal: 1 } });
    expect(c.fleet.a).toBeNull();
    expect(c.fleet.b).toEqual({ from: '2026-08-22T00:00:00.000Z', to: '2026-08-22T04:30:00.000Z', tokensPerSecond: 150, queuedPeak: 7, errors: 3, errorsByStatus: { '503': 2, '502': 1 }, modelsServed: ['qwen3-32b'], samples: 2 });
    store.close();
  });

  it('compares the night named, and says when a bound stopped it before any divergence', async () => {
    const c = await compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: null, now: NOW, a: '2026-08-22', b: '2026-08-21', maxLines: 500 });
    expect(c.picked).toBe('given');
    const remediate = c.phases.find((p) => p.name === 'remediate');
    expect(remediate).toMatchObject({ firstRcDivergence: null, firstLineDivergence: null, transcript: { lines: 500, stopped: 'lines' } });
    expect(c.notes).toContain('Phase remediate: the transcripts agree for their first 500 lines; no more were compared.');
    const bytes = await compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: null, now: NOW, a: '2026-08-22', b: '2026-08-21', maxBytes: 10_000 });
    expect(bytes.phases.find((p) => p.name === 'remediate')).toMatchObject({ firstLineDivergence: null, transcript: { stopped: 'bytes' } });
    // Two good nights whose transcripts differ only in what changes night to night agree to the end.
    expect(c.fleet).toEqual({ a: null, b: null });
    const full = await compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: null, now: NOW, a: '2026-08-22', b: '2026-08-21' });
    expect(full.phases.find((p) => p.name === 'remediate')).toMatchObject({ firstLineDivergence: null, transcript: { lines: TESTS + 3, stopped: null } });
  });

  it('names the night that does not exist, and a loop with no good night before', async () => {
    const missing = compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: null, now: NOW, a: '2026-08-24', b: '2026-07-01' });
    await expect(missing).rejects.toThrow(NightCompareError);
    await expect(missing).rejects.toThrow(`Loop reliability has no night 2026-07-01: there is no folder runner:${join(fx.runs, '2026-07-01')}`);
    await expect(compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: null, now: NOW, a: '2026-08-21' })).rejects.toThrow(
      'Loop reliability: no night before 2026-08-21 ended ok or ready (no night before it in runner:',
    );
    await expect(compareNights({ loop: 'reliability', config: fx.config, source: fx.source, fleet: null, now: NOW, a: '2026-8-1' })).rejects.toThrow('"2026-8-1" is not a night\'s date');
  });
});

describe('rcDivergence', () => {
  const stage = (name: string, steps: [string, number | null][]) => ({ name, done: true, stoppedAt: null, steps: steps.map(([n, rc]) => ({ name: n, rc })) });

  it('walks stages and their steps in plan order; a step not run on one night is null there', () => {
    expect(rcDivergence([stage('battery', [['gates', 0], ['suite', 0]])], [stage('battery', [['gates', 0], ['suite', 0]])])).toBeNull();
    expect(rcDivergence([stage('battery', [['gates', 0], ['suite', null]])], [stage('battery', [['gates', 0], ['suite', 0]])])).toEqual({ stage: 'battery', step: 'suite', a: null, b: 0 });
    expect(rcDivergence([stage('battery', [['gates', 0]])], [stage('battery', [['gates', 0]]), stage('verify', [['smoke', 0]])])).toEqual({ stage: 'verify', step: 'smoke', a: null, b: 0 });
  });
});
