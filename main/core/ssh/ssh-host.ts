import { existsSync, readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { AnyAuthMethod } from 'ssh2';
import { ssh2 } from './ssh2-module';
import { log } from '../logging/log';
import type { Store } from '../store/store';
import { addTrustedKey, removeTrustedKeys, trustedKeys, type TrustedKey } from './trusted-keys';
import { SshConnection, type KeyDecision, type SshConnectionOptions, type SshEndpoint } from './connection';
import { fingerprintSha256, readKeyType, verifyHostKey } from './known-hosts';
import { resolveSshTarget } from './ssh-target';

/** An SSH host's settings from the config (local paths already resolved). */
export interface SshHostConfig {
  readonly ssh: string;
  readonly identityFile?: string;
  readonly knownHosts?: string;
}

/** What an SSH host needs from its surroundings; tests point these at throwaway files. */
export interface SshHostEnv {
  readonly store: Store;
  readonly home?: string;
  readonly username?: string;
  /** ~/.ssh/config by default; null for none. */
  readonly sshConfigPath?: string | null;
  /** ~/.ssh/known_hosts by default. */
  readonly userKnownHosts?: string;
  /** The ssh-agent socket; `SSH_AUTH_SOCK` by default. */
  readonly agentSocket?: string | null;
  /** Which watcher the host's file source runs (see SshSourceOptions; tests of hosts without perl take `sh`). */
  readonly watcher?: 'perl' | 'sh';
  /** Overrides for keepalive, timeouts, backoff and the connect gate (tests make them short, or give a gate of their own). */
  readonly tuning?: Partial<Pick<SshConnectionOptions, 'keepaliveIntervalMs' | 'keepaliveCountMax' | 'readyTimeoutMs' | 'maxSessions' | 'backoffBaseMs' | 'backoffMaxMs' | 'connectGate'>>;
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * A configured SSH host: its resolved endpoint and one kept-up connection, host keys checked
 * against ~/.ssh/known_hosts, the host's `knownHosts` file and the keys trusted in Loopdeck.
 * Passphrases of encrypted identity files are held in memory only.
 */
export class SshHost {
  readonly connection: SshConnection;
  readonly endpoint: SshEndpoint;
  private readonly passphrases = new Map<string, string>();
  private locked: string | null = null;

  constructor(
    readonly name: string,
    private readonly config: SshHostConfig,
    private readonly env: SshHostEnv,
  ) {
    const home = env.home ?? homedir();
    const sshConfigPath = env.sshConfigPath === undefined ? join(home, '.ssh', 'config') : env.sshConfigPath;
    this.endpoint = resolveSshTarget(config.ssh, {
      sshConfigText: sshConfigPath ? readIfExists(sshConfigPath) : null,
      username: env.username ?? userInfo().username,
      home,
      ...(config.identityFile ? { identityFile: config.identityFile } : {}),
    });
    this.connection = new SshConnection({
      name,
      endpoint: this.endpoint,
      checkHostKey: (host, port, blob) => this.checkHostKey(host, port, blob),
      auth: (ep) => this.authMethods(ep),
      ...env.tuning,
    });
  }

  /** The identity file waiting for its passphrase, if any. */
  get needsPassphrase(): string | null {
    return this.locked;
  }

  /** Remember a passphrase for the locked identity file (in memory) and reconnect. */
  unlock(passphrase: string): boolean {
    if (!this.locked) return false;
    const parsed = ssh2().utils.parseKey(readFileSync(this.locked), passphrase);
    if (parsed instanceof Error) return false;
    this.passphrases.set(this.locked, passphrase);
    this.locked = null;
    this.connection.retry();
    return true;
  }

  /** Trust the key the host presented, for `by`, if its fingerprint is the one the operator saw. */
  trust(fingerprint: string, by: string): void {
    const key = this.connection.status.presentedKey;
    if (!key || this.connection.status.state !== 'untrusted') {
      throw new Error(`Host ${this.name} has no untrusted key to trust (it is ${this.connection.status.state}).`);
    }
    if (key.fingerprint !== fingerprint) {
      throw new Error(`Host ${this.name} now presents ${key.fingerprint}, not ${fingerprint}; nothing was trusted.`);
    }
    addTrustedKey(this.env.store, { ...key, addedAt: new Date().toISOString(), addedBy: by });
    log.info(`host ${this.name}: ${by} trusted its key ${fingerprint}`);
    this.connection.retry();
  }

  /** Keys trusted in Loopdeck for this host's address (`host:port`; known_hosts entries are not these). */
  trustedKeys(): TrustedKey[] {
    return trustedKeys(this.env.store, this.endpoint.host, this.endpoint.port);
  }

  /**
   * Forget the keys trusted in Loopdeck for this host's address and, with `reconnect` (the
   * default), drop the connection and connect again: unless known_hosts lists the key, the host is
   * `untrusted` once more, with the fingerprint to compare. Returns how many keys were removed.
   */
  untrust(by: string, { reconnect = true }: { reconnect?: boolean } = {}): number {
    const removed = removeTrustedKeys(this.env.store, this.endpoint.host, this.endpoint.port);
    log.info(`host ${this.name}: ${by} removed ${removed} key(s) trusted in Loopdeck`);
    if (reconnect) this.connection.retry();
    return removed;
  }

  private checkHostKey(host: string, port: number, blob: Buffer): KeyDecision {
    const files = [this.env.userKnownHosts ?? join(this.env.home ?? homedir(), '.ssh', 'known_hosts'), this.config.knownHosts];
    const knownHosts = files.flatMap((source) => {
      const text = source ? readIfExists(source) : null;
      return text === null || !source ? [] : [{ source, text }];
    });
    const verdict = verifyHostKey({ host, port, keyBlob: blob, knownHosts, trusted: trustedKeys(this.env.store, host, port) });
    if (verdict.kind === 'trusted') return { kind: 'trusted' };
    const key = { host, port, keyType: readKeyType(blob) ?? 'unknown', keyBase64: blob.toString('base64'), fingerprint: fingerprintSha256(blob) };
    if (verdict.kind === 'unknown') return { kind: 'unknown', key };
    const expected = verdict.kind === 'mismatch' ? verdict.expected.join(', ') : 'a revoked key';
    return {
      kind: 'mismatch',
      key,
      message:
        verdict.kind === 'revoked'
          ? `Host ${this.name}: ${host}:${port} presented ${key.fingerprint}, which ${verdict.via} marks @revoked. Refused.`
          : `Host ${this.name}: the host key of ${host}:${port} CHANGED — it presented ${key.fingerprint}, but ${verdict.via === 'loopdeck' ? 'the keys trusted in Loopdeck record' : `${verdict.via} records`} ${expected}. Refused: this may be an attack. If the change is expected, remove the old key (${verdict.via === 'loopdeck' ? `\`loopdeck untrust ${this.name}\`, or Forget key in the host list` : 'ssh-keygen -R'}) and trust the new one.`,
    };
  }

  private authMethods(ep: SshEndpoint): AnyAuthMethod[] {
    const methods: AnyAuthMethod[] = [];
    const agent = this.env.agentSocket === undefined ? process.env.SSH_AUTH_SOCK : this.env.agentSocket;
    if (agent) methods.push({ type: 'agent', username: ep.user, agent } as const);
    for (const file of ep.identityFiles) {
      if (!existsSync(file)) continue;
      const data = readFileSync(file);
      const passphrase = this.passphrases.get(file);
      const parsed = ssh2().utils.parseKey(data, passphrase);
      if (parsed instanceof Error) {
        if (/encrypted|passphrase/i.test(parsed.message)) this.locked ??= file;
        continue;
      }
      methods.push({ type: 'publickey', username: ep.user, key: data, ...(passphrase ? { passphrase } : {}) } as const);
    }
    return methods;
  }
}
