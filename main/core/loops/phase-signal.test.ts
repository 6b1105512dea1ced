import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { LoopFollower } from './loop-follower';
import { lineHash, phaseSignal, REPEAT_MIN_LINES, RepeatTracker, WATCHDOG_TAIL, type SignalEvidence } from './phase-signal';
import { isWatchdogKill } from '../transcripts/transcript-marks';

const MIN = 60_000;
const NOW = Date.parse('2026-08-23T10:00:00Z');
const SILENCE = 30 * MIN;

/** A word of letters only (the hash leaves digits out): the n-th is different from every other. */
const word = (n: number): string => `${String.fromCharCode(97 + (n % 26))}${String.fromCharCode(97 + (Math.floor(n / 26) % 26))}${String.fromCharCode(97 + (Math.floor(n / 676) % 26))}`;

function evidence(over: Partial<SignalEvidence> = {}): SignalEvidence {
  return { status: 'running', files: [], transcript: { lines: 120, mtimeMs: NOW - 5 * MIN }, rcChangedMs: NOW - 5 * MIN, startedMs: NOW - 60 * MIN, repetition: null, watchdog: null, silenceMs: SILENCE, nowMs: NOW, ...over };
}

describe('RepeatTracker', () => {
  it('says nothing for varied lines, and turns on for repeating ones (digits do not make a line new), naming the newest line', () => {
    const t = new RepeatTracker();
    for (let i = 1; i <= 200; i++) t.feed(`tool_use Read src/${word(i)}.py`, i);
    t.settle(1000);
    expect(t.repeating()).toBeNull();
    expect(t.takeChanged()).toBe(false);
    for (let i = 201; i <= 300; i++) t.feed(`[2026-08-23T09:${i % 60}:00] retrying request (attempt ${i})`, i);
    t.settle(2000);
    expect(t.repeating()).toMatchObject({ line: 300, sinceMs: 2000, lines: 64, sample: '[2026-08-23T09:0:00] retrying request (attempt 300)' });
    expect(t.repeating()?.share).toBeGreaterThanOrEqual(0.75);
    expect(t.takeChanged()).toBe(true);
    expect(t.takeChanged()).toBe(false);
    // Still repeating later: the same since and line.
    for (let i = 301; i <= 310; i++) t.feed(`retrying request (attempt ${i})`, i);
    t.settle(3000);
    expect(t.repeating()).toMatchObject({ line: 300, sinceMs: 2000 });
    expect(t.takeChanged()).toBe(false);
    // Varied output again: it stops.
    for (let i = 311; i <= 400; i++) t.feed(`tool_use Edit ${word(i)}`, i);
    t.settle(4000);
    expect(t.repeating()).toBeNull();
    expect(t.takeChanged()).toBe(true);
  });

  it('judges only the newest lines of a read, so a burst that ended is not a loop', () => {
    const t = new RepeatTracker();
    for (let i = 1; i <= 1000; i++) t.feed('same line', i);
    for (let i = 1001; i <= 1100; i++) t.feed(`tool_use Read ${word(i)}`, i);
    t.settle(1);
    expect(t.repeating()).toBeNull();
  });

  it('needs REPEAT_MIN_LINES lines, and starts over when the file is read again from line 1', () => {
    const t = new RepeatTracker();
    for (let i = 1; i < REPEAT_MIN_LINES; i++) t.feed('same', i);
    t.settle(1);
    expect(t.repeating()).toBeNull();
    t.feed('same', REPEAT_MIN_LINES);
    t.settle(2);
    expect(t.repeating()?.line).toBe(REPEAT_MIN_LINES);
    t.takeChanged();
    t.feed('fresh file', 1);
    t.settle(3);
    expect(t.repeating()).toBeNull();
    expect(t.takeChanged()).toBe(true);
  });

  it('hashes a line by its first characters without digits', () => {
    expect(lineHash('attempt 1 of 5')).toBe(lineHash('attempt 4 of 5'));
    expect(lineHash('attempt 1 of 5')).not.toBe(lineHash('attempts 1 of 5'));
    expect(lineHash(`${'x'.repeat(300)}a`)).toBe(lineHash(`${'x'.repeat(300)}b`));
  });
});

describe('isWatchdogKill', () => {
  it('takes a column-0 kill line, not prose about one', () => {
    expect(isWatchdogKill('stream watchdog: no progress for 600s, killing the agent')).toBe(true);
    expect(isWatchdogKill('[watchdog] agent killed after 600s without output')).toBe(true);
    expect(isWatchdogKill('  libs and hooks) and died to the stream watchdog at 600s with no progress,')).toBe(false);
    expect(isWatchdogKill('- minutes with none lost to the stream watchdog')).toBe(false);
    expect(isWatchdogKill('> the stream watchdog killed it')).toBe(false);
    expect(isWatchdogKill('lost to the stream watchdog. Three cross-walk duplicates')).toBe(false);
  });

  it('takes the watchdog\'s own tagged line only: a column-0 sentence of the manual that mentions it is prose', () => {
    // reference/reliability-loop-skill.txt line 381, verbatim and at column 0.
    expect(isWatchdogKill('libs and hooks) and died to the stream watchdog at 600s with no progress,')).toBe(false);
    expect(isWatchdogKill('The agent was killed by the stream watchdog')).toBe(false);
    expect(isWatchdogKill('[stream watchdog] no output for 600s; killing the agent process group')).toBe(true);
    expect(isWatchdogKill('\x1b[31m[stream watchdog] no output for 600s; killing the agent\x1b[0m')).toBe(true);
    expect(isWatchdogKill('stream watchdog: healthy, 12 lines in the last minute')).toBe(false);
    expect(isWatchdogKill(`stream watchdog: killing the agent ${'x'.repeat(500)}`)).toBe(false);
  });
});

describe('phaseSignal', () => {
  it('is hung after silence with no output and no rc step, naming the last line; not a minute before', () => {
    const before = phaseSignal(evidence({ transcript: { lines: 120, mtimeMs: NOW - 29 * MIN }, rcChangedMs: NOW - 40 * MIN }));
    expect(before.signal).toBeNull();
    expect(before.dueMs).toBe(NOW + MIN);
    const hung = phaseSignal(evidence({ transcript: { lines: 120, mtimeMs: NOW - 31 * MIN }, rcChangedMs: NOW - 40 * MIN }));
    expect(hung.signal).toMatchObject({ kind: 'hung', line: 120, since: new Date(NOW - 31 * MIN).toISOString() });
    expect(hung.signal?.detail).toContain(`no new output since ${new Date(NOW - 31 * MIN).toISOString()}`);
    expect(hung.signal?.detail).toContain('silence of 30m');
    expect(hung.signal?.detail).toContain('last line 120');
  });

  it('is not hung while an rc step advanced within silence, nor for any status but running', () => {
    expect(phaseSignal(evidence({ transcript: { lines: 1, mtimeMs: NOW - 50 * MIN }, rcChangedMs: NOW - 10 * MIN })).signal).toBeNull();
    for (const status of ['ok', 'failed', 'incomplete', 'no-op', 'ready', 'pending'] as const) {
      expect(phaseSignal(evidence({ status, transcript: { lines: 1, mtimeMs: NOW - 50 * MIN }, rcChangedMs: null })).signal).toBeNull();
    }
  });

  it('is spinning while output repeats and no rc step advanced for silence; not while rc steps move', () => {
    const repetition = { line: 70, sinceMs: NOW - 20 * MIN, share: 0.9, lines: 64, sample: 'retrying request' };
    const spinning = phaseSignal(evidence({ repetition, rcChangedMs: NOW - 45 * MIN }));
    expect(spinning.signal).toMatchObject({ kind: 'spinning', line: 70, since: new Date(NOW - 20 * MIN).toISOString() });
    expect(spinning.signal?.detail).toContain('"retrying request"');
    const moving = phaseSignal(evidence({ repetition, rcChangedMs: NOW - 10 * MIN }));
    expect(moving.signal).toBeNull();
    expect(moving.dueMs).toBe(NOW + 20 * MIN);
  });

  it('names the watchdog kill line while it is among the last lines, and not once the run went on', () => {
    const watchdog = { line: 100, text: 'stream watchdog: killing the agent', atMs: NOW - MIN };
    expect(phaseSignal(evidence({ watchdog, transcript: { lines: 102, mtimeMs: NOW - MIN } })).signal).toMatchObject({ kind: 'watchdog', line: 100 });
    expect(phaseSignal(evidence({ watchdog, transcript: { lines: 100 + WATCHDOG_TAIL, mtimeMs: NOW - MIN } })).signal).toBeNull();
    expect(phaseSignal(evidence({ watchdog, status: 'failed' })).signal).toBeNull();
  });
});

describe('phaseSignal without a transcript (issue 43, item 12)', () => {
  const iso = (ms: number): string => new Date(ms).toISOString();
  /** Remediate stamped STARTED an hour ago, an rc file with steps still pending, no transcript. */
  const noTranscript = (statusMs: number, rcMs: number): SignalEvidence =>
    evidence({
      transcript: null,
      files: [{ name: 'remediate.status', mtimeMs: statusMs }, { name: 'remediate.gates.rc', mtimeMs: rcMs }],
      rcChangedMs: rcMs,
      startedMs: NOW - 60 * MIN,
    });

  it('is hung after silence since the newest growth of any file, naming the files seen; line null', () => {
    const hung = phaseSignal(noTranscript(NOW - 60 * MIN, NOW - 35 * MIN));
    expect(hung.signal).toMatchObject({ kind: 'hung', line: null, since: iso(NOW - 35 * MIN) });
    expect(hung.signal?.detail).toBe(
      `nothing grew in any file of the phase since ${iso(NOW - 35 * MIN)}, past the loop's silence of 30m; ` +
        `files seen: remediate.gates.rc (last grew ${iso(NOW - 35 * MIN)}), remediate.status (last grew ${iso(NOW - 60 * MIN)}); no transcript`,
    );
    expect(hung.dueMs).toBe(Infinity);
  });

  it('is not hung while any file grew within silence, and turns hung at that growth plus silence', () => {
    const rcRecent = phaseSignal(noTranscript(NOW - 60 * MIN, NOW - 10 * MIN));
    expect(rcRecent).toEqual({ signal: null, dueMs: NOW + 20 * MIN });
    // A stamp written recently (a new round) counts as growth too.
    expect(phaseSignal(noTranscript(NOW - 5 * MIN, NOW - 50 * MIN))).toEqual({ signal: null, dueMs: NOW + 25 * MIN });
  });

  it('is hung when the transcript, the rc files and the stamps all stopped growing, and not when only the stamps grew', () => {
    const files = (statusMs: number) => [{ name: 'remediate.status', mtimeMs: statusMs }, { name: 'remediate.gates.rc', mtimeMs: NOW - 45 * MIN }, { name: 'remediate.log', mtimeMs: NOW - 40 * MIN }];
    const base = { transcript: { lines: 7, mtimeMs: NOW - 40 * MIN }, rcChangedMs: NOW - 45 * MIN };
    const hung = phaseSignal(evidence({ ...base, files: files(NOW - 60 * MIN) }));
    expect(hung.signal).toMatchObject({ kind: 'hung', line: 7, since: iso(NOW - 40 * MIN) });
    expect(hung.signal?.detail).toContain(`no new output since ${iso(NOW - 40 * MIN)} and no rc step since ${iso(NOW - 45 * MIN)}, past the loop's silence of 30m; last line 7`);
    expect(hung.signal?.detail).toContain(
      `nothing grew in any file of the phase since ${iso(NOW - 40 * MIN)}; files seen: remediate.log (last grew ${iso(NOW - 40 * MIN)}), ` +
        `remediate.gates.rc (last grew ${iso(NOW - 45 * MIN)}), remediate.status (last grew ${iso(NOW - 60 * MIN)})`,
    );
    expect(hung.signal?.detail).not.toContain('no transcript');
    expect(phaseSignal(evidence({ ...base, files: files(NOW - 2 * MIN) })).signal).toBeNull();
  });

  it('says nothing for a phase that is not running, or with no time to measure from', () => {
    expect(phaseSignal({ ...noTranscript(NOW - 60 * MIN, NOW - 50 * MIN), status: 'ok' }).signal).toBeNull();
    expect(phaseSignal(evidence({ transcript: null, files: [], rcChangedMs: null, startedMs: null }))).toEqual({ signal: null, dueMs: Infinity });
  });
});

describe('LoopFollower: a phase without a transcript', () => {
  it('turns hung by the clock once none of its files grew for silence, and not while its rc file is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-notranscript-'));
    const runs = join(dir, 'runs');
    const day = join(runs, '2026-11-29');
    mkdirSync(day, { recursive: true });
    const at = (s: string): Date => new Date(s);
    const write = (name: string, text: string, mtime: string): void => {
      writeFileSync(join(day, name), text);
      utimesSync(join(day, name), at(mtime), at(mtime));
    };
    write('remediate.status', 'remediate 2026-11-29T05:00:00+00:00 STARTED\n', '2026-11-29T05:00:00Z');
    write('remediate.gates.rc', 'gates_rc=\nsuite_rc=\ngates_rc=0\n', '2026-11-29T05:40:00Z');
    const cfg = parseConfig(join(dir, 'c.yaml'), `hosts: { r: { local: true } }\nloops: { l: { host: r, runs: ${JSON.stringify(runs)}, phases: [remediate], cap: 20h, silence: 30m } }\n`);
    const follower = new LoopFollower('l', cfg.loops.l!, new LocalSource('r'), Store.open(':memory:'));
    const first = await follower.poll(at('2026-11-29T06:00:00Z'));
    expect(first.cycles[0]?.phases[0]).toMatchObject({ status: 'running' });
    expect(first.cycles[0]?.phases[0]?.signal).toBeUndefined();
    expect((await follower.poll(at('2026-11-29T06:09:00Z'), { quiet: true })).upserted).toEqual([]);
    const hung = await follower.poll(at('2026-11-29T06:10:00Z'), { quiet: true });
    const signal = hung.upserted[0]?.phases[0]?.signal;
    expect(signal).toMatchObject({ kind: 'hung', line: null, since: '2026-11-29T05:40:00.000Z' });
    expect(signal?.detail).toContain('files seen: remediate.gates.rc (last grew 2026-11-29T05:40:00.000Z), remediate.status (last grew 2026-11-29T05:00:00.000Z); no transcript');
    // A step written: it moves again.
    write('remediate.gates.rc', 'gates_rc=\nsuite_rc=\ngates_rc=0\nsuite_rc=0\n', '2026-11-29T06:11:00Z');
    const moving = await follower.poll(at('2026-11-29T06:12:00Z'));
    expect(moving.cycles[0]?.phases[0]?.signal).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});
