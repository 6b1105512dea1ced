import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SshHostEnv } from '../main/core/ssh/ssh-host';
import { SshHost } from '../main/core/ssh/ssh-host';
import type { Store } from '../main/core/store/store';
import type { TestSshd } from './sshd';

/** Fast keepalive and backoff, so fault tests finish in seconds (production: 10 s × 3). */
export const FAST_TUNING = {
  keepaliveIntervalMs: 500,
  keepaliveCountMax: 3,
  readyTimeoutMs: 3000,
  backoffBaseMs: 100,
  backoffMaxMs: 1000,
} as const;

/**
 * SSH surroundings isolated from the machine's own ~/.ssh: an empty home, no agent, and the
 * test sshd's known_hosts given as the host's `knownHosts` file.
 */
export function isolatedSshEnv(): Omit<SshHostEnv, 'store'> {
  const home = mkdtempSync(join(tmpdir(), 'loopdeck-home-'));
  mkdirSync(join(home, '.ssh'));
  return { home, sshConfigPath: null, agentSocket: null, tuning: FAST_TUNING };
}

/** The `hosts:` entry (YAML flow map) for a test sshd. */
export function sshHostYaml(sshd: TestSshd, trusted = true): string {
  const known = trusted ? `, knownHosts: ${JSON.stringify(sshd.knownHosts)}` : '';
  return `{ ssh: "${sshd.user}@127.0.0.1:${sshd.port}", identityFile: ${JSON.stringify(sshd.clientKey)}${known} }`;
}

/** An SshHost for a test sshd, connected (or failed) before it returns. */
export async function connectTestHost(sshd: TestSshd, store: Store, trusted = true): Promise<SshHost> {
  const host = new SshHost(
    'runner',
    { ssh: `${sshd.user}@127.0.0.1:${sshd.port}`, identityFile: sshd.clientKey, ...(trusted ? { knownHosts: sshd.knownHosts } : {}) },
    { store, ...isolatedSshEnv() },
  );
  host.connection.start();
  await host.connection.ready(10_000).catch(() => undefined);
  return host;
}
