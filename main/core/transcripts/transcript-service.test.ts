import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../../shared/contract';
import type { TranscriptChanged } from '../../../shared/transcript-domain';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { until } from '../../../testing/until';
import { parseConfig } from '../config/load-config';
import { type Engine } from '../engine';
import { sessionCommands, type CommandSession } from '../session/commands';
import { Store } from '../store/store';
import { TEST_CALLER } from '../../../testing/callers';
import { dispatch } from '../../rpc/dispatch';
import { composeEngine, servicesOf } from '../session/core';

const DAY = '2026-08-23';

function engineOn(): { engine: Engine; fx: ReturnType<typeof createRunnerFixture>; handlers: ReturnType<typeof sessionCommands> } {
  const fx = createRunnerFixture();
  fx.write(DAY, 'remediate.status', 'remediate 2026-08-23T01:00:00-04:00 STARTED\n');
  fx.write(DAY, 'remediate.log', `${Array.from({ length: 450 }, (_, i) => `step ${i + 1}`).join('\n')}\nTraceback (most recent call last):\nValueError: boom\n`);
  const config = parseConfig(fx.configPath, readFileSync(fx.configPath, 'utf8'));
  const store = Store.open(join(fx.dir, 'loopdeck.db'));
  const engine = composeEngine(config, { store, now: () => new Date('2026-08-23T09:00:00Z') });
  const services = servicesOf(engine);
  const session = { services: () => services } as unknown as CommandSession;
  return { engine, fx, handlers: sessionCommands(session) };
}

describe('transcript commands through the engine', () => {
  it('opens a phase transcript resolved from the config, with its marks and whether it runs', async () => {
    const { engine, handlers, fx } = engineOn();
    await engine.poll();
    const info = await handlers['transcript.open'](commands['transcript.open'].input.parse({ loop: 'reliability', date: DAY, phase: 'remediate' }), TEST_CALLER);
    expect(info).toMatchObject({ host: 'runner', path: join(fx.runs, DAY, 'remediate.log'), lines: 452, running: true });
    expect(info.marks).toEqual([
      { n: 451, kind: 'failure', text: 'Traceback (most recent call last):' },
      { n: 452, kind: 'failure', text: 'ValueError: boom' },
    ]);
    const lines = await handlers['transcript.lines'](commands['transcript.lines'].input.parse({ loop: 'reliability', date: DAY, phase: 'remediate', at: { line: 250 }, count: 2 }), TEST_CALLER);
    expect(lines.rows).toEqual([
      { n: 250, text: 'step 250', cut: false },
      { n: 251, text: 'step 251', cut: false },
    ]);
    const search = await handlers['transcript.search'](commands['transcript.search'].input.parse({ loop: 'reliability', date: DAY, phase: 'remediate', query: 'step 44[0-9]$', regex: true }), TEST_CALLER);
    expect(search.hits.map((h) => h.n)).toEqual([440, 441, 442, 443, 444, 445, 446, 447, 448, 449]);
    await engine.close();
  });

  it('refuses a raw path and unknown fields, and names the loop, phase and file that do not exist', async () => {
    const { engine, handlers, fx } = engineOn();
    expect(commands['transcript.open'].input.safeParse({ loop: 'reliability', date: DAY, phase: 'remediate', path: '/etc/passwd' }).success).toBe(false);
    expect(commands['transcript.open'].input.safeParse({ loop: 'reliability', date: '../../etc', phase: 'remediate' }).success).toBe(false);
    expect(commands['transcript.search'].input.safeParse({ loop: 'reliability', date: DAY, phase: 'remediate', query: 'a\nb' }).success).toBe(false);
    await expect(handlers['transcript.open']({ loop: 'nope', date: DAY, phase: 'audit' }, TEST_CALLER)).rejects.toThrow(/No loop named nope in the config \(loops: reliability\)/);
    await expect(handlers['transcript.open']({ loop: 'reliability', date: DAY, phase: 'lint' }, TEST_CALLER)).rejects.toThrow(/Loop reliability has no phase lint/);
    await expect(handlers['transcript.open']({ loop: 'reliability', date: DAY, phase: 'audit' }, TEST_CALLER)).rejects.toThrow(
      `Loop reliability, cycle ${DAY}, phase audit: no transcript at runner:${join(fx.runs, DAY, 'audit.log')} (the file does not exist).`,
    );
    await engine.close();
  });

  it("over the dispatch, a loop named like something every object has is no loop, and the answer names the config's loops", async () => {
    const { engine, handlers } = engineOn();
    for (const loop of ['__proto__', 'constructor', 'toString']) {
      const ref = { loop, date: DAY, phase: 'remediate' };
      const noLoop = new RegExp(`No loop named ${loop} in the config \\(loops: reliability\\)`);
      for (const [name, input] of [
        ['transcript.open', ref],
        ['transcript.lines', { ...ref, at: 'end', count: 5 }],
        ['transcript.search', { ...ref, query: 'step' }],
      ] as const) {
        const r = await dispatch(handlers, name, input, TEST_CALLER);
        expect(r.ok ? 'answered' : r.error.message, `${name} ${loop}`).toMatch(noLoop);
      }
      const drill = await dispatch(handlers, 'drills.run', { name: loop, confirm: loop }, TEST_CALLER);
      expect(drill.ok ? 'ran' : drill.error.message).toContain(`No drill named ${JSON.stringify(loop)}`);
    }
    // An argument named __proto__ (an own key, as JSON.parse makes it off the wire) is refused by
    // name, not dropped: zod's record would run the drill without it.
    const proto = await dispatch(handlers, 'drills.run', JSON.parse('{"name":"x","confirm":"x","args":{"__proto__":"y"}}') as unknown, TEST_CALLER);
    expect(proto.ok ? 'ran' : { code: proto.error.code, issues: proto.error.issues }).toEqual({ code: 'invalid-input', issues: [{ path: 'args', message: 'no drill argument may be named __proto__' }] });
    await engine.close();
  });

  it('publishes transcript.changed once per poll, only for a transcript someone opened', async () => {
    const { engine, handlers, fx } = engineOn();
    const seen: TranscriptChanged[] = [];
    engine.subscribe((...[event, payload]) => {
      if (event === 'transcript.changed') seen.push(payload);
    });
    await engine.poll();
    fx.append(DAY, 'remediate.log', 'unseen 1\n');
    await engine.poll();
    expect(seen).toEqual([]);
    await handlers['transcript.open']({ loop: 'reliability', date: DAY, phase: 'remediate' }, TEST_CALLER);
    fx.append(DAY, 'remediate.log', 'new 1\nnew 2\nnew 3\n');
    await engine.poll();
    expect(seen).toEqual([{ loop: 'reliability', date: DAY, phase: 'remediate', size: expect.any(Number), lines: 456, ino: expect.any(String) }]);
    await engine.poll();
    expect(seen).toHaveLength(1);
    fx.append(DAY, 'remediate.log', 'new 4\n');
    await until(async () => (await engine.poll(), seen.length === 2), 5000, 'the second change');
    expect(seen[1]?.lines).toBe(457);
    appendFileSync(join(fx.runs, DAY, 'audit.log'), 'another phase\n');
    await engine.poll();
    expect(seen).toHaveLength(2);
    await engine.close();
  });
});
