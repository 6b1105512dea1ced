import type { HostState } from '../../../shared/domain';
import type { Config } from '../config/schema';
import { LocalShell, type HostShell } from './host-shell';
import type { FileSource } from '../sources/file-source';
import { LocalSource } from '../sources/local-source';
import { SshSource } from '../sources/ssh-source';
import { httpGet, type HttpReply } from '../ssh/http-over-ssh';
import { SshHost, type SshHostEnv } from '../ssh/ssh-host';
import type { Store } from '../store/store';
import { addressKey, trustedAddresses } from '../ssh/trusted-keys';
import { messageOf } from '../../../shared/errors';

/** A configured host and the ways Loopdeck reaches it. */
export interface HostEntry {
  readonly name: string;
  readonly source: FileSource | null;
  readonly shell: HostShell | null;
  readonly ssh: SshHost | null;
  /** Why the host cannot be used at all (e.g. its ssh spec does not resolve). */
  readonly error: string | null;
}

/** Wraps a host's file source as it is made (the bench counts what passes through it). */
export type SourceTap = (source: FileSource) => FileSource;

/** Build a host from its config: local, or SSH with one kept-up connection. */
export function hostEntry(name: string, cfg: Config['hosts'][string], store: Store, env?: Omit<SshHostEnv, 'store'>, tap: SourceTap = (s) => s): HostEntry {
  if ('local' in cfg) return { name, source: tap(new LocalSource(name)), shell: new LocalShell(), ssh: null, error: null };
  try {
    const ssh = new SshHost(name, cfg, { store, ...env });
    return { name, source: tap(new SshSource(name, ssh.connection, env?.watcher ? { watcher: env.watcher } : {})), shell: ssh.connection, ssh, error: null };
  } catch (err) {
    return { name, source: null, shell: null, ssh: null, error: `Host ${name} (hosts.${name}.ssh): ${messageOf(err)}` };
  }
}

/** Whether a host can be read right now. */
export function isReachable(h: HostEntry | undefined): h is HostEntry {
  return h !== undefined && h.source !== null && (h.ssh === null || h.ssh.connection.status.state === 'connected');
}

/** HTTP GET on a host's loopback: over its SSH connection, or directly for a local host. */
export function hostFetch(h: HostEntry): (url: string, timeoutMs: number, maxBytes?: number) => Promise<HttpReply> {
  return (url, timeoutMs, maxBytes) => httpGet(h.ssh ? h.ssh.connection : null, url, timeoutMs, maxBytes);
}

/** A host's state as the UI and the snapshot show it; `trusted`: whether Loopdeck holds a key trusted for its address. */
function hostState(h: HostEntry, trusted: boolean): HostState {
  const base = { name: h.name, since: null, attempt: 0, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false } as const;
  if (h.error) return { ...base, kind: 'ssh', state: 'unreachable', error: h.error };
  if (!h.ssh) return { ...base, kind: 'local', state: 'connected', error: null };
  const s = h.ssh.connection.status;
  return {
    name: h.name,
    kind: 'ssh',
    state: s.state,
    error: s.error,
    since: s.since,
    attempt: s.attempt,
    fingerprint: s.presentedKey?.fingerprint ?? null,
    needsPassphrase: h.ssh.needsPassphrase,
    trustedInLoopdeck: trusted,
  };
}

/**
 * The configured hosts by name, and what the engine asks of them all: whether one can be read, the
 * states to publish (only when they changed), which failed, and when the SSH ones have settled.
 */
export class HostTable {
  private readonly byName = new Map<string, HostEntry>();
  private publishedJson = '';
  /** Each host's last state and what it was made from: made again only when one of those moved. */
  private readonly made = new Map<string, { readonly status: unknown; readonly locked: string | null; readonly trusted: boolean; readonly state: HostState }>();

  constructor(
    hosts: Config['hosts'],
    private readonly store: Store,
    env?: Omit<SshHostEnv, 'store'>,
    tap?: SourceTap,
  ) {
    for (const [name, cfg] of Object.entries(hosts)) this.byName.set(name, hostEntry(name, cfg, store, env, tap));
  }

  get(name: string): HostEntry | undefined {
    return this.byName.get(name);
  }

  /** Start every SSH connection; `onStatus` hears each change of one's state. */
  connect(onStatus: (state: string) => void): void {
    for (const h of this.all()) {
      if (!h.ssh) continue;
      h.ssh.connection.on('status', (status: { state: string }) => onStatus(status.state));
      h.ssh.connection.start();
    }
  }

  all(): IterableIterator<HostEntry> {
    return this.byName.values();
  }

  /** The host can be read now (local, or its SSH connection is up). */
  reachable(name: string): boolean {
    return isReachable(this.byName.get(name));
  }

  /** Every host with its connection state. */
  states(): HostState[] {
    return this.statesNow().states;
  }

  /**
   * Every host's state, and whether any was made again. A connection's status is a new object at
   * each change and a trust or an untrust (here, or by `loopdeck untrust` in another process)
   * shows in one look at the trusted addresses: a hundred quiet hosts cost one query, no more.
   */
  private statesNow(): { states: HostState[]; moved: boolean } {
    const trusted = trustedAddresses(this.store);
    let moved = false;
    const states = [...this.byName.values()].map((h) => {
      const status = h.ssh?.connection.status ?? null;
      const locked = h.ssh?.needsPassphrase ?? null;
      const isTrusted = h.ssh !== null && trusted.has(addressKey(h.ssh.endpoint.host, h.ssh.endpoint.port));
      const last = this.made.get(h.name);
      if (last && last.status === status && last.locked === locked && last.trusted === isTrusted) return last.state;
      moved = true;
      const state = hostState(h, isTrusted);
      this.made.set(h.name, { status, locked, trusted: isTrusted, state });
      return state;
    });
    return { states, moved };
  }

  /** The states when they changed since they were last returned here (a small slice: compared whole), else null. */
  changed(): HostState[] | null {
    const { states, moved } = this.statesNow();
    if (!moved && this.publishedJson !== '') return null;
    const json = JSON.stringify(states);
    if (json === this.publishedJson) return null;
    this.publishedJson = json;
    return states;
  }

  /** One sentence per host not connected, naming it and why. */
  failures(): string[] {
    return this.states()
      .filter((h) => h.state !== 'connected')
      .map((h) => `host ${h.name} is ${h.state}${h.error ? `: ${h.error}` : ''}`);
  }

  /** Resolves when every SSH host is connected, or has reached a state only the operator can fix, or after `timeoutMs`. */
  async settle(timeoutMs: number): Promise<void> {
    await Promise.all([...this.byName.values()].map((h) => h.ssh?.connection.ready(timeoutMs).catch(() => undefined)));
  }

  /** The SSH host named `name`, or an error naming what is wrong. */
  sshHost(name: string): SshHost {
    const h = this.byName.get(name);
    if (!h) throw new Error(`No host named ${name} in the config (hosts: ${[...this.byName.keys()].join(', ') || 'none'}).`);
    if (!h.ssh) throw new Error(h.error ?? `Host ${name} is local: it has no host key to trust.`);
    return h.ssh;
  }
}
