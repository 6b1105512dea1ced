import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../rpc/dispatch';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { createSession, type Session } from './session';
import { TEST_CALLER } from '../../../testing/callers';

const NOW = (): Date => new Date('2026-11-29T06:00:00Z');

describe('demo.start', () => {
  let core: Session | null = null;
  afterEach(async () => {
    await core?.close();
    core = null;
  });

  it('is refused while a real config is loaded, and leaves its state alone', async () => {
    const fixture = createRunnerFixture();
    fixture.write('2026-11-29', 'audit.status', 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
    core = createSession({ configPath: fixture.configPath, dataDir: fixture.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    await core.pollOnce();
    const before = core.snapshot();
    expect(before.loops[0]?.cycles).toHaveLength(1);
    const events: string[] = [];
    core.subscribe((...[event]) => void events.push(event));

    const result = await dispatch(core.handlers, 'demo.start', {}, TEST_CALLER);

    expect(result).toMatchObject({ ok: false, error: { code: 'handler-failed' } });
    expect(!result.ok && result.error.message).toContain(`a config is loaded at ${fixture.configPath}`);
    expect(core.snapshot()).toEqual(before);
    expect(events).not.toContain('config.changed');
    expect(await dispatch(core.handlers, 'app.info', {}, TEST_CALLER)).toMatchObject({
      ok: true,
      output: { demo: false, config: { state: 'loaded', path: fixture.configPath } },
    });
  });

  it('is refused on the config-error screen too, naming the file', async () => {
    const fixture = createRunnerFixture('not: [valid\n');
    core = createSession({ configPath: fixture.configPath, dataDir: fixture.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    const result = await dispatch(core.handlers, 'demo.start', {}, TEST_CALLER);
    expect(!result.ok && result.error.message).toContain(`a config is invalid at ${fixture.configPath}`);
  });

  it('starts the demo from the first-run screen (no config yet)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-first-run-'));
    core = createSession({ configPath: join(dir, 'config.yaml'), dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000 });
    await core.start();
    const result = await dispatch(core.handlers, 'demo.start', {}, TEST_CALLER);
    expect(result).toMatchObject({ ok: true });
    expect(await dispatch(core.handlers, 'app.info', {}, TEST_CALLER)).toMatchObject({ ok: true, output: { demo: true, config: { state: 'loaded' } } });
    // Asking again (a second client) is answered with the running demo, not a second one.
    expect(await dispatch(core.handlers, 'demo.start', {}, TEST_CALLER)).toEqual(result);
  });
});
