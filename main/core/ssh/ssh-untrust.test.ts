import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostState } from '../../../shared/domain';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { until } from '../../../testing/until';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { createSession, type Session } from '../session/session';
import { databasePath } from '../config/paths';
import { Store } from '../store/store';
import { trustedKeys } from './trusted-keys';
import { TEST_CALLER } from '../../../testing/callers';

/** A config with one SSH host `runner` whose key is not in any known_hosts file. */
function setup(sshd: TestSshd): { configPath: string; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-untrust-'));
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd, false)}\n`);
  return { configPath, dataDir: join(dir, 'data') };
}

const core = (s: { configPath: string; dataDir: string }): Session =>
  createSession({ ...s, shell: 'serve', pollMs: 60_000, ssh: isolatedSshEnv() });
const host = (c: Session): HostState | undefined => c.snapshot().hosts[0];
const fingerprintOf = (sshd: TestSshd): string =>
  execFileSync('ssh-keygen', ['-lf', join(sshd.dir, 'host_ed25519.pub'), '-E', 'sha256'], { encoding: 'utf8' }).split(' ')[1] ?? '';

describe('hosts.untrust against a real sshd', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  }, 30_000);
  afterAll(() => sshd?.stop());

  it('trust, connect, untrust: the host is untrusted again with its fingerprint, and stays so after a restart', async () => {
    const s = setup(sshd);
    const c = core(s);
    await c.start();
    const published: HostState[][] = [];
    const off = c.subscribe((...[event, payload]) => {
      if (event === 'hosts.changed') published.push([...payload.hosts]);
    });
    try {
      await until(() => host(c)?.state === 'untrusted', 15_000, 'untrusted');
      expect(host(c)?.trustedInLoopdeck).toBe(false);
      await c.handlers['hosts.trust']({ host: 'runner', fingerprint: fingerprintOf(sshd) }, TEST_CALLER);
      await until(() => host(c)?.state === 'connected', 15_000, 'connected after trust');
      expect(host(c)?.trustedInLoopdeck).toBe(true);

      expect(await c.handlers['hosts.untrust']({ host: 'runner' }, TEST_CALLER)).toEqual({ removed: 1 });
      await until(() => host(c)?.state === 'untrusted', 15_000, 'untrusted after untrust');
      expect(host(c)).toMatchObject({ fingerprint: fingerprintOf(sshd), trustedInLoopdeck: false });
      expect(published.at(-1)?.[0]).toMatchObject({ state: 'untrusted', trustedInLoopdeck: false });
      // Nothing left to forget; a local host or an unknown one is named.
      expect(await c.handlers['hosts.untrust']({ host: 'runner' }, TEST_CALLER)).toEqual({ removed: 0 });
      await expect(c.handlers['hosts.untrust']({ host: 'nope' }, TEST_CALLER)).rejects.toThrow(/No host named nope/);
    } finally {
      off();
      await c.close();
    }
    const again = core(s);
    await again.start();
    try {
      await until(() => host(again)?.state === 'untrusted', 15_000, 'untrusted after a restart');
    } finally {
      await again.close();
    }
  }, 90_000);

  it('a changed key against a Loopdeck-trusted one says to untrust; after untrust the new key is offered', async () => {
    const other = await startSshd();
    try {
      const s = setup(other);
      const store = Store.open(databasePath(s.dataDir));
      const c = core(s);
      await c.start();
      try {
        await until(() => host(c)?.state === 'untrusted', 15_000, 'untrusted');
        await c.handlers['hosts.trust']({ host: 'runner', fingerprint: fingerprintOf(other) }, TEST_CALLER);
        await until(() => host(c)?.state === 'connected', 15_000, 'connected after trust');
        // Who trusted it is kept with the key.
        expect(trustedKeys(store, '127.0.0.1', other.port)).toMatchObject([{ fingerprint: fingerprintOf(other), addedBy: TEST_CALLER.user }]);
        other.changeHostKey();
        await other.restart();
        await until(() => host(c)?.state === 'hostkey-mismatch', 20_000, 'hostkey-mismatch after the key changed');
        expect(host(c)?.error).toMatch(/but the keys trusted in Loopdeck record SHA256:\S+\. .*`loopdeck untrust runner`/);
        expect(host(c)?.trustedInLoopdeck).toBe(true);

        expect(await c.handlers['hosts.untrust']({ host: 'runner' }, TEST_CALLER)).toEqual({ removed: 1 });
        await until(() => host(c)?.state === 'untrusted', 15_000, 'untrusted after untrust');
        expect(host(c)?.fingerprint).toBe(fingerprintOf(other));
        expect(trustedKeys(store, '127.0.0.1', other.port)).toEqual([]);
      } finally {
        await c.close();
        store.close();
      }
    } finally {
      await other.stop();
    }
  }, 90_000);
});
