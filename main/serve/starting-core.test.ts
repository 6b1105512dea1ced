import { afterEach, describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../../testing/runner-fixture';
import { createAppCore, type AppCore } from '../core/app-core';
import { whenStarted } from './starting-core';

describe('serve answering while the core opens', () => {
  let core: AppCore | null = null;
  afterEach(async () => {
    await core?.close();
    core = null;
  });

  it('holds a command sent during the start until the core has opened its config and store', async () => {
    const fx = createRunnerFixture();
    core = createAppCore({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    const started = core.start();
    // Ungated, the same question asked now sees no config yet (the config is read asynchronously).
    expect((await core.handlers['app.info']({})).config.state).toBe('missing');
    const info = await whenStarted(core, started).handlers['app.info']({});
    expect(info.config.state).toBe('loaded');
    await started;
  });

  it('fails the waiting commands with the start failure', async () => {
    const fx = createRunnerFixture();
    core = createAppCore({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    const failed = Promise.reject(new Error('store could not be opened'));
    failed.catch(() => undefined);
    await expect(Promise.resolve(whenStarted(core, failed).handlers['app.info']({}))).rejects.toThrow('store could not be opened');
  });

  it('begins the start when a command comes before it was due, and answers once it has opened', async () => {
    const fx = createRunnerFixture();
    const opened = createAppCore({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    core = opened;
    let begin: () => void = () => undefined;
    const started = new Promise<void>((go) => (begin = go)).then(() => opened.start());
    let begun = 0;
    const gated = whenStarted(opened, started, () => {
      begun += 1;
      begin();
    });
    const info = await gated.handlers['app.info']({});
    expect(begun).toBe(1);
    expect(info.config.state).toBe('loaded');
  });
});
