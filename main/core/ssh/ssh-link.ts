import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { AuthMethod, Client, ConnectConfig } from 'ssh2';
import { ssh2 } from './ssh2-module';
import { processConnectGate } from './connect-gate';
import { backoffDelay } from '../../../shared/backoff';
import type { HostConnState } from '../../../shared/domain';
import { NotConnectedError, type ConnectionStatus, type Fatal, type SshConnectionOptions, type SshEndpoint } from './connection-types';

/**
 * The life of one SSH link to a host, kept up: keepalive notices a dead link within interval ×
 * count, and it reconnects with exponential backoff and jitter, a new ssh2 Client each attempt
 * (one per jump host too). An untrusted or changed host key stops it until `retry()` (after the
 * operator trusts the key). It emits `status` on every change; channels are SshConnection's.
 */
export class SshLink extends EventEmitter {
  /** The connected client of the target host (null while not connected). */
  protected client: Client | null = null;
  private chain: Client[] = [];
  /** Ends the hop being set up, if any: a teardown takes its client's listeners, so it says so first. */
  private abortSetup: ((err: Error) => void) | null = null;
  private everConnected = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private current: ConnectionStatus;
  /** Counts attempts: one that waited at the connect gate while a newer began gives way. */
  private generation = 0;

  constructor(protected readonly options: SshConnectionOptions) {
    super();
    this.current = { state: 'connecting', since: new Date().toISOString(), attempt: 0, error: null, presentedKey: null };
  }

  /** The current state. */
  get status(): ConnectionStatus {
    return this.current;
  }

  /** Start connecting (and keep the link up until `close()`). */
  start(): void {
    this.closed = false;
    void this.attempt();
  }

  /** Try again now: after a host key was trusted, or to skip a backoff wait. */
  retry(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.teardown();
    this.setStatus({ state: 'connecting', since: new Date().toISOString(), attempt: 0, error: null, presentedKey: null });
    void this.attempt();
  }

  /** Resolves once connected; rejects when the state becomes one retrying cannot fix, or on timeout. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.current.state === 'connected') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('status', onStatus);
        reject(new NotConnectedError(`Host ${this.options.name}: not connected after ${timeoutMs} ms (${this.describe()}).`));
      }, timeoutMs);
      const onStatus = (s: ConnectionStatus): void => {
        if (s.state === 'connected' || s.state === 'untrusted' || s.state === 'hostkey-mismatch') {
          clearTimeout(timer);
          this.off('status', onStatus);
          if (s.state === 'connected') resolve();
          else reject(new NotConnectedError(this.describe()));
        }
      };
      this.on('status', onStatus);
      onStatus(this.current);
    });
  }

  /** A one-line description of the state, naming the host. */
  describe(): string {
    const s = this.current;
    return `host ${this.options.name} is ${s.state}${s.attempt ? ` (attempt ${s.attempt})` : ''}${s.error ? `: ${s.error}` : ''}`;
  }

  /** Close the link for good. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.teardown();
  }

  /** Called first when the link is dropped: subclasses close what runs over it. */
  protected onTeardown(): void {}

  private setStatus(next: ConnectionStatus): void {
    this.current = next;
    this.emit('status', next);
  }

  /** Drop the link: what rides on it goes first (`onTeardown`), then every client of the hop chain. */
  protected teardown(): void {
    const abort = this.abortSetup;
    this.abortSetup = null;
    abort?.(new Error('link dropped during setup'));
    this.onTeardown();
    for (const c of this.chain) {
      c.removeAllListeners();
      c.on('error', () => undefined);
      c.end();
      c.destroy();
    }
    this.chain = [];
    this.client = null;
  }

  private connectConfig(ep: SshEndpoint, fatal: { value: Fatal | null }, sock?: Duplex): ConnectConfig {
    return {
      host: ep.host,
      port: ep.port,
      username: ep.user,
      ...(sock ? { sock } : {}),
      keepaliveInterval: this.options.keepaliveIntervalMs ?? 10_000,
      keepaliveCountMax: this.options.keepaliveCountMax ?? 3,
      readyTimeout: this.options.readyTimeoutMs ?? 20_000,
      authHandler: this.options.auth(ep) as AuthMethod[],
      hostVerifier: (key: Buffer) => {
        const decision = this.options.checkHostKey(ep.host, ep.port, key);
        if (decision.kind === 'trusted') return true;
        fatal.value =
          decision.kind === 'unknown'
            ? {
                state: 'untrusted',
                key: decision.key,
                error: `Host ${this.options.name}: the host key of ${ep.host}:${ep.port} is not known (${decision.key.fingerprint}). Trust it in Loopdeck or run \`loopdeck trust ${this.options.name}\`.`,
              }
            : { state: 'hostkey-mismatch', key: decision.key, error: decision.message };
        return false;
      },
    };
  }

  private async connectHop(ep: SshEndpoint, fatal: { value: Fatal | null }, sock?: Duplex): Promise<Client> {
    const client = new (ssh2().Client)();
    this.chain.push(client);
    let abort: ((err: Error) => void) | null = null;
    try {
      await new Promise<void>((resolve, reject) => {
        this.abortSetup = abort = reject;
        client.once('ready', () => resolve());
        client.once('error', reject);
        client.once('close', () => reject(new Error('connection closed during setup')));
        client.connect(this.connectConfig(ep, fatal, sock));
      });
    } finally {
      if (this.abortSetup === abort) this.abortSetup = null; // (a newer attempt's hop may be in setup by now)
    }
    client.removeAllListeners('error');
    client.removeAllListeners('close');
    return client;
  }

  private async attempt(): Promise<void> {
    if (this.closed) return;
    const generation = ++this.generation;
    this.teardown();
    // Every host's handshake takes a turn at the process's connect gate (see ConnectGate): a
    // start with a hundred hosts is spread out, and a turn lasts at most the gate's hold time.
    const leave = await (this.options.connectGate ?? processConnectGate).enter();
    try {
      if (this.closed || generation !== this.generation) return;
      await this.handshake(generation);
    } finally {
      leave();
    }
  }

  /**
   * One attempt's handshake, hop by hop. A newer attempt (`retry()`) tears this one's chain down:
   * its hop in setup is ended (`abortSetup`) so the attempt gives its gate turn back at once, and
   * nothing it learns after that (a failure, a late `ready`) touches the link's state.
   */
  private async handshake(generation: number): Promise<void> {
    const fatal: { value: Fatal | null } = { value: null };
    const ep = this.options.endpoint;
    const superseded = (): boolean => generation !== this.generation;
    try {
      let sock: Duplex | undefined;
      for (const hop of [...ep.jumps, ep]) {
        const client = await this.connectHop(hop, fatal, sock);
        if (superseded()) return;
        if (hop === ep) {
          this.client = client;
          break;
        }
        const next = ep.jumps[ep.jumps.indexOf(hop) + 1] ?? ep;
        sock = await new Promise<Duplex>((resolve, reject) =>
          client.forwardOut('127.0.0.1', 0, next.host, next.port, (err, ch) => (err ? reject(err) : resolve(ch))),
        );
      }
    } catch (err) {
      if (superseded()) return;
      return this.failed(err as Error & { level?: string }, fatal.value);
    }
    if (superseded()) return;
    if (this.closed) return this.teardown();
    this.everConnected = true;
    for (const c of this.chain) {
      c.on('error', (e: Error) => this.lost(e));
      c.on('close', () => this.lost(new Error('connection closed')));
    }
    this.setStatus({ state: 'connected', since: new Date().toISOString(), attempt: 0, error: null, presentedKey: null });
  }

  private lost(err: Error): void {
    if (this.closed || this.current.state !== 'connected') return;
    this.teardown();
    this.setStatus({
      state: 'reconnecting',
      since: new Date().toISOString(),
      attempt: 0,
      error: `Host ${this.options.name}: ${err.message}`,
      presentedKey: null,
    });
    this.schedule();
  }

  private failed(err: Error & { level?: string }, fatal: Fatal | null): void {
    this.teardown();
    if (this.closed) return;
    if (fatal) {
      this.setStatus({ state: fatal.state, since: new Date().toISOString(), attempt: 0, error: fatal.error, presentedKey: fatal.key });
      return; // retrying cannot fix a key: wait for retry() after the operator acts
    }
    const auth = err.level === 'client-authentication';
    const prev = this.current;
    const state: HostConnState = auth ? 'auth-failed' : this.everConnected ? 'reconnecting' : 'unreachable';
    this.setStatus({
      state,
      since: prev.state === state ? prev.since : new Date().toISOString(),
      attempt: prev.attempt + 1,
      error: auth
        ? `Host ${this.options.name}: authentication failed for ${this.options.endpoint.user}@${this.options.endpoint.host} (tried ssh-agent and the identity files).`
        : `Host ${this.options.name}: ${err.message}`,
      presentedKey: null,
    });
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    // attempt counts failed attempts since the last connection (0 when it was just lost): both a
    // lost connection and the first failure wait about the base, doubling from there.
    const delay = backoffDelay(this.current.attempt - 1, { baseMs: this.options.backoffBaseMs ?? 500, maxMs: this.options.backoffMaxMs ?? 30_000 });
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.attempt();
    }, delay);
  }
}
