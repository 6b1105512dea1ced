import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Phase } from '../../shared/domain';
import { createRunnerFixture, type RunnerFixture } from '../../testing/runner-fixture';
import { referenceManual } from '../../testing/reference-manual';
import { parseConfig } from './config/load-config';
import { type Engine } from './engine';
import { Store } from './store/store';
import { composeEngine } from './session/core';

// The signals of item 6 of issue 28 on generated transcripts, through the engine with a fake
// clock: every file's mtime is set on that clock, as the runner's would be.

const DAY = '2026-08-23';
const T0 = Date.parse(`${DAY}T09:00:00Z`);
const MIN = 60_000;
const at = (m: number): Date => new Date(T0 + m * MIN);

/** A word of letters only (the repetition hash leaves digits out): the n-th differs from every other. */
const word = (n: number): string => `${String.fromCharCode(97 + (n % 26))}${String.fromCharCode(97 + (Math.floor(n / 26) % 26))}${String.fromCharCode(97 + (Math.floor(n / 676) % 26))}`;
const varied = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `tool_use Read src/${word(from + i)}.py\n`).join('');

interface Rig {
  readonly fx: RunnerFixture;
  readonly engine: Engine;
  /** Poll at minute `m` after T0. */
  pollAt(m: number): Promise<void>;
  /** Write (replace) or append a cycle file, its mtime minute `m`. */
  write(name: string, text: string, m: number): void;
  append(name: string, text: string, m: number): void;
  remediate(): Phase | undefined;
  close(): Promise<void>;
}

function rig(extra = ''): Rig {
  const fx = createRunnerFixture(extra);
  const config = parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8'));
  let clock = at(0);
  const engine = composeEngine(config, { store: Store.open(':memory:'), now: () => clock });
  const touch = (name: string, m: number): void => utimesSync(join(fx.runs, DAY, name), at(m), at(m));
  return {
    fx,
    engine,
    pollAt: async (m) => {
      clock = at(m);
      await engine.poll();
    },
    write: (name, text, m) => {
      fx.write(DAY, name, text);
      touch(name, m);
    },
    append: (name, text, m) => {
      fx.append(DAY, name, text);
      touch(name, m);
    },
    remediate: () => engine.snapshot().loops[0]?.cycles.find((c) => c.date === DAY)?.phases.find((p) => p.name === 'remediate'),
    close: () => engine.close(),
  };
}

/** A remediate phase started at T0 − 60 min, with a varied transcript of `lines` lines and a gates stage, all last written at minute 0. */
function running(r: Rig, lines = 40): void {
  r.write('audit.status', `audit ${DAY}T07:00:00Z STARTED\naudit ${DAY}T07:50:00Z OK\n`, -70);
  r.write('remediate.status', `remediate ${DAY}T08:00:00Z STARTED\n`, -60);
  r.write('remediate.gates.rc', 'gates_rc=\nsuite_rc=\n', 0);
  r.write('remediate.log', varied(0, lines), 0);
}

const noticeKeys = (e: Engine): string[] => e.notifier.list().map((n) => n.key);

describe('phase signals from the transcript', () => {
  it('hung: after `silence` without output or an rc step, naming the last line; not before; raised as a notice', async () => {
    const r = rig();
    running(r, 40);
    await r.pollAt(0);
    expect(r.remediate()?.status).toBe('running');
    expect(r.remediate()?.signal).toBeUndefined();
    await r.pollAt(29);
    expect(r.remediate()?.signal).toBeUndefined();
    await r.pollAt(31);
    expect(r.remediate()?.signal).toEqual({ kind: 'hung', line: 40, since: at(0).toISOString(), detail: expect.stringContaining(`no new output since ${at(0).toISOString()}`) as unknown as string });
    const notice = r.engine.notifier.list().find((n) => n.key === `signal:reliability:${DAY}:remediate:hung`);
    expect(notice).toMatchObject({ priority: 1, title: 'reliability remediate hung', source: 'loop:reliability' });
    // Output again: no longer hung.
    r.append('remediate.log', 'tool_use Bash pytest -q\n', 32);
    await r.pollAt(32);
    expect(r.remediate()?.signal).toBeUndefined();
    await r.close();
  });

  it('hung: not while an rc step advanced within `silence`, and at the loop\'s own `silence`', async () => {
    const r = rig('    silence: 10m\n');
    running(r, 40);
    await r.pollAt(0);
    r.append('remediate.gates.rc', 'gates_rc=0\n', 8);
    await r.pollAt(12);
    // The transcript has been silent 12 min, but an rc step moved 4 min ago.
    expect(r.remediate()?.signal).toBeUndefined();
    await r.pollAt(17);
    expect(r.remediate()?.signal).toBeUndefined();
    await r.pollAt(19);
    expect(r.remediate()?.signal).toMatchObject({ kind: 'hung', line: 40 });
    await r.close();
  });

  it('never for a finished phase, and gone when the phase finishes', async () => {
    const r = rig();
    running(r, 40);
    r.write('deliver.status', `deliver ${DAY}T08:30:00Z STARTED\ndeliver ${DAY}T08:40:00Z INCOMPLETE: ci\n`, -20);
    r.write('deliver.log', 'stream watchdog: no progress for 600s, killing the agent\n', -20);
    await r.pollAt(45);
    expect(r.remediate()?.signal?.kind).toBe('hung');
    const deliver = r.engine.snapshot().loops[0]?.cycles[0]?.phases.find((p) => p.name === 'deliver');
    expect(deliver?.status).toBe('incomplete');
    expect(deliver?.signal).toBeUndefined();
    r.append('remediate.status', `remediate ${DAY}T09:46:00Z INCOMPLETE\n`, 46);
    await r.pollAt(46);
    expect(r.remediate()?.status).toBe('incomplete');
    expect(r.remediate()?.signal).toBeUndefined();
    await r.close();
  });

  it('spinning: output that keeps repeating while no rc step advances for `silence`; not varied output', async () => {
    const r = rig();
    running(r, 40);
    // No rc step since 08:00 (written then), but varied output: working, not spinning.
    utimesSync(join(r.fx.runs, DAY, 'remediate.gates.rc'), at(-60), at(-60));
    await r.pollAt(0);
    r.append('remediate.log', varied(100, 200), 5);
    await r.pollAt(5);
    expect(r.remediate()?.signal).toBeUndefined();
    // The same request retried, with a counter and a clock: the same line as far as the window is concerned.
    const retries = Array.from({ length: 120 }, (_, i) => `[09:${String(10 + (i % 50)).padStart(2, '0')}:00] model request failed, retrying (attempt ${i + 1})\n`).join('');
    r.append('remediate.log', retries, 10);
    await r.pollAt(10);
    const s = r.remediate()?.signal;
    expect(s?.kind).toBe('spinning');
    expect(s?.since).toBe(at(10).toISOString());
    // The newest line when the repetition was seen: 40 + 200 varied lines, then 120 retries.
    expect(s?.line).toBe(360);
    expect(s?.detail).toContain('model request failed, retrying');
    expect(noticeKeys(r.engine)).toContain(`signal:reliability:${DAY}:remediate:spinning`);
    expect(r.engine.notifier.list().find((n) => n.key.endsWith(':spinning'))?.priority).toBe(0);
    // It stops repeating: the signal goes.
    r.append('remediate.log', varied(400, 100), 12);
    await r.pollAt(12);
    expect(r.remediate()?.signal).toBeUndefined();
    await r.close();
  });

  it('spinning: not while rc steps advance', async () => {
    const r = rig();
    running(r, 40);
    await r.pollAt(0);
    r.append('remediate.gates.rc', 'gates_rc=0\n', 5);
    r.append('remediate.log', 'waiting for the suite\n'.repeat(100), 10);
    await r.pollAt(10);
    expect(r.remediate()?.signal).toBeUndefined();
    await r.close();
  });

  it('watchdog: the stream watchdog\'s kill line, by its line number; not prose about one, not once the run went on', async () => {
    const r = rig();
    running(r, 40);
    r.append('remediate.log', '  the agent died to the stream watchdog at 600s with no progress\n', 0);
    await r.pollAt(0);
    expect(r.remediate()?.signal).toBeUndefined();
    r.append('remediate.log', 'stream watchdog: no progress for 600s, killing the agent\nwrapper: round 2 ends\n', 3);
    await r.pollAt(3);
    expect(r.remediate()?.signal).toEqual({ kind: 'watchdog', line: 42, since: at(3).toISOString(), detail: expect.stringContaining('line 42') as unknown as string });
    const notice = r.engine.notifier.list().find((n) => n.key === `signal:reliability:${DAY}:remediate:watchdog`);
    expect(notice?.priority).toBe(1);
    // The wrapper's next round goes on writing: the kill is behind it.
    r.append('remediate.log', varied(1000, 60), 5);
    await r.pollAt(5);
    expect(r.remediate()?.signal).toBeUndefined();
    await r.close();
  });

  it('the loop\'s own manual, read into a running phase\'s transcript, raises no signal, verdict or notice, for the loop it names and another', async () => {
    // The manual says the agent will `cat` it into its transcript: column-0 example NO-OP lines,
    // a sentence about a subagent killed by the stream watchdog, a 20 KB line.
    const other = mkdtempSync(join(tmpdir(), 'loopdeck-other-runs-'));
    const r = rig(`  testing:\n    host: runner\n    runs: ${JSON.stringify(other)}\n    phases: [audit, remediate, deliver]\n    cap: 20h\n`);
    const manual = referenceManual();
    r.write('audit.status', `audit ${DAY}T08:00:00Z STARTED\n`, -60);
    r.write('audit.log', manual, 0);
    mkdirSync(join(other, DAY));
    writeFileSync(join(other, DAY, 'audit.status'), `audit ${DAY}T08:00:00Z STARTED\n`);
    writeFileSync(join(other, DAY, 'audit.log'), manual);
    for (const f of ['audit.status', 'audit.log']) utimesSync(join(other, DAY, f), at(0), at(0));
    await r.pollAt(1);
    await r.pollAt(5);
    const audits = r.engine.snapshot().loops.map((l) => [l.name, l.cycles.find((c) => c.date === DAY)?.phases.find((p) => p.name === 'audit')] as const);
    expect(audits.map(([name]) => name).sort()).toEqual(['reliability', 'testing']);
    for (const [, audit] of audits) {
      expect(audit).toMatchObject({ status: 'running', verdict: null });
      expect(audit?.signal).toBeUndefined();
    }
    expect(r.engine.notifier.list()).toEqual([]);
    await r.close();
  });
});
