import { defaultDataDir } from './core/config/paths';
import { startLogging } from './core/logging/log';
import { confirm } from './cli-terminal';
import { CliError, CONNECT_TIMEOUT_MS, type Flags } from './cli-args';
import { loadedConfig, coreFor, openEngine } from './cli-common';
import { localUser } from './rpc/local-caller';
import { messageOf } from '../shared/errors';

// `loopdeck trust HOST` and `loopdeck untrust HOST`: a host key, trusted after asking, or forgotten.

export async function trust(flags: Flags, hostName: string | undefined): Promise<number> {
  if (!hostName) throw new CliError('Usage: loopdeck trust HOST [--yes]');
  const core = await openEngine(flags, 'trust');
  const { services } = core;
  try {
    const host = services.hosts.sshHost(hostName);
    await services.hosts.settle(CONNECT_TIMEOUT_MS);
    const status = host.connection.status;
    if (status.state === 'connected') {
      console.log(`Host ${hostName} is already trusted and connected.`);
      return 0;
    }
    const key = status.presentedKey;
    if (status.state !== 'untrusted' || !key) throw new CliError(host.connection.describe(), 1);
    console.log(`Host ${hostName} (${key.host}:${key.port}) presents a ${key.keyType} key:\n  ${key.fingerprint}`);
    console.log('Compare it with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` run on the host itself.');
    if (!flags.yes && !(await confirm('Trust this key? [y/N] '))) {
      console.log('Nothing was trusted.');
      return 1;
    }
    host.trust(key.fingerprint, localUser());
    await host.connection.ready(CONNECT_TIMEOUT_MS);
    console.log(`Trusted ${key.fingerprint} for ${hostName}; connected.`);
    return 0;
  } finally {
    await core.close();
  }
}

/** Forget the keys trusted in Loopdeck for a host; the next connection shows the key to trust again. */
export async function untrust(flags: Flags, hostName: string | undefined): Promise<number> {
  if (!hostName) throw new CliError('Usage: loopdeck untrust HOST [--yes]');
  const loaded = await loadedConfig(flags);
  const dataDir = flags.data ?? defaultDataDir();
  startLogging(dataDir, 'untrust');
  // Not started: forgetting a key needs no connection (a running console drops it on its next reconnect).
  const core = coreFor(loaded.config, dataDir);
  const { services } = core;
  try {
    let host: ReturnType<typeof services.hosts.sshHost>;
    try {
      host = services.hosts.sshHost(hostName);
    } catch (err) {
      throw new CliError(messageOf(err));
    }
    const where = `${host.endpoint.host}:${host.endpoint.port}`;
    const keys = host.trustedKeys();
    if (keys.length === 0) {
      console.log(`No host key of ${hostName} (${where}) is trusted in Loopdeck; nothing was removed.`);
      console.log('Keys in ~/.ssh/known_hosts or the host\'s knownHosts file are not Loopdeck\'s: remove those with `ssh-keygen -R`.');
      return 0;
    }
    console.log(`Host ${hostName} (${where}) has ${keys.length} key(s) trusted in Loopdeck:`);
    for (const k of keys) console.log(`  ${k.keyType} ${k.fingerprint} (trusted ${k.addedAt})`);
    if (!flags.yes && !(await confirm('Forget them? [y/N] '))) {
      console.log('Nothing was removed.');
      return 1;
    }
    const removed = host.untrust(localUser(), { reconnect: false });
    console.log(`Removed ${removed} key(s) trusted in Loopdeck for ${hostName}. The next connection will ask to trust its key again (\`loopdeck trust ${hostName}\`).`);
    return 0;
  } finally {
    await core.close();
  }
}
