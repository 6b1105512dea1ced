import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { parseConfig } from '../config/load-config';
import { Store } from '../store/store';
import { composeEngine } from '../session/core';

// A poll reads the hosts side by side: a host whose reads hang (here: every session's command
// waits on a gate file, as a login shell stuck in its rc file would) holds up only its own loops.
describe('a poll over several SSH hosts, against real sshds', () => {
  let slow: TestSshd;
  let fast: TestSshd;
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-side-by-side-'));
  const gate = join(dir, 'gate');
  beforeAll(async () => {
    [slow, fast] = await Promise.all([startSshd({ gate }), startSshd()]);
  }, 30_000);
  afterAll(async () => {
    writeFileSync(gate, '');
    await Promise.all([slow?.stop(), fast?.stop()]);
  });

  it('publishes the loop of a host that answers while the first host in the config has not answered yet', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const loops = ['on-slow', 'on-fast'].map((name) => {
      const runs = join(dir, name);
      mkdirSync(join(runs, day), { recursive: true });
      writeFileSync(join(runs, day, 'audit.status'), `audit ${day}T00:00:04+00:00 STARTED\n`);
      return `  ${name}:\n    host: ${name.slice(3)}\n    runs: ${JSON.stringify(runs)}\n`;
    });
    const text = `hosts:\n  slow: ${sshHostYaml(slow)}\n  fast: ${sshHostYaml(fast)}\nloops:\n${loops.join('')}`;
    const store = Store.open(':memory:');
    const engine = composeEngine(parseConfig(join(dir, 'config.yaml'), text), { store, ssh: isolatedSshEnv() });
    const published: string[] = [];
    engine.subscribe((...[event, payload]) => {
      if (event === 'loop.changed') published.push(payload.loop);
    });
    engine.start();
    try {
      await until(() => engine.snapshot().hosts.every((h) => h.state === 'connected'), 15_000, 'both hosts to connect');
      const poll = engine.poll();
      // One loop after another, the fast host's loop would wait for the slow one's reads (30 s).
      await until(() => published.includes('on-fast'), 10_000, "the fast host's loop to be published");
      expect(published).not.toContain('on-slow');
      writeFileSync(gate, '');
      await poll;
      expect(published).toContain('on-slow');
    } finally {
      await engine.close();
      store.close();
    }
  }, 60_000);
});
