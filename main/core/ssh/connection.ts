import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import ssh2, { type AuthMethod, type Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { backoffDelay } from '../../../shared/backoff';
import type { HostConnState } from '../../../shared/domain';
import { LineSplitter, MAX_STREAM_LINE_BYTES } from './line-splitter';
import { Semaphore } from './semaphore';
import { ShellSession } from './shell-session';

export * from './connection-types';
import { NotConnectedError, type ConnectionStatus, type ExecResult, type Fatal, type SshConnectionOptions, type SshEndpoint } from './connection-types';

/**
 * One SSH connection per host, kept up: keepalive notices a dead link within interval × count,
 * and it reconnects with exponential backoff and jitter, a new ssh2 Client each attempt. An
 * untrusted or changed host key stops it until `retry()` (after the operator trusts the key).
 */
export class SshConnection extends EventEmitter {
  private client: Client | null = null;
  private chain: Client[] = [];
  private everConnected = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly sessions: Semaphore;
  private readonly inflight = new Set<(err: Error) => void>();
  private current: ConnectionStatus;
  private session: ShellSession | null = null;
  private sessionOpening: Promise<ShellSession> | null = null;

  constructor(private readonly options: SshConnectionOptions) {
    super();
    this.sessions = new Semaphore(options.maxSessions ?? 8);
    this.current = { state: 'connecting', since: new Date().toISOString(), attempt: 0, error: null, presentedKey: null };
  }

  /** The current state. */
  get status(): ConnectionStatus {
    return this.current;
  }

  /** Channels open right now (never above maxSessions). */
  get openChannels(): number {
    return this.sessions.inUse;
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

  /** Run a command; its stdout is collected as bytes. Fails fast when the link is down. */
  async exec(command: string, timeoutMs = 30_000): Promise<ExecResult> {
    return this.withChannel(
      (client, done) =>
        client.exec(command, (err, stream) => {
          if (err) return done(err);
          this.collect(stream, timeoutMs, done);
        }),
      timeoutMs,
    );
  }

  /**
   * Run a script through the connection's long-lived shell session: one `sh` started once, so
   * the host's login shell and rc files do not run again for every stat, listing and read.
   */
  async run(script: string, timeoutMs = 30_000): Promise<ExecResult> {
    const session = await this.shellSession();
    try {
      return await session.run(script, timeoutMs);
    } catch (err) {
      if (this.current.state !== 'connected') throw new NotConnectedError(this.describe());
      throw new Error(`Host ${this.options.name}: ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * Open an exec channel that stays open (the shell session, the watcher): it holds one of the
   * connection's session slots until the caller calls `release`, once the channel has closed.
   */
  private async holdChannel(command: string): Promise<{ channel: ClientChannel; release: () => void }> {
    const release = await this.sessions.acquire();
    try {
      const client = this.client;
      if (!client || this.current.state !== 'connected') throw new NotConnectedError(this.describe());
      const channel = await new Promise<ClientChannel>((resolve, reject) => client.exec(command, (err, ch) => (err ? reject(err) : resolve(ch))));
      return { channel, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  private shellSession(): Promise<ShellSession> {
    if (this.session?.alive) return Promise.resolve(this.session);
    this.sessionOpening ??= (async () => {
      const { channel, release } = await this.holdChannel('exec sh');
      const session: ShellSession = new ShellSession(channel, () => {
        release();
        if (this.session === session) this.session = null;
      });
      this.session = session;
      return session;
    })().finally(() => {
      this.sessionOpening = null;
    });
    return this.sessionOpening;
  }

  /**
   * Run a long-lived script and call `onLine` for each line it prints, until the returned
   * function is called or the link drops (then `onEnd`). It holds one channel while it runs.
   */
  async stream(script: string, onLine: (line: string) => void, onEnd: () => void): Promise<() => void> {
    const { channel, release } = await this.holdChannel(script);
    const lines = new LineSplitter(MAX_STREAM_LINE_BYTES, onLine);
    channel.on('data', (chunk: Buffer) => lines.push(chunk));
    channel.stderr.on('data', () => undefined);
    channel.once('close', () => {
      release();
      onEnd();
    });
    return () => channel.close();
  }

  /** Open a TCP channel from the host to `host:port` (e.g. the proxy's admin API on its loopback). */
  async forwardOut(host: string, port: number): Promise<{ stream: Duplex; release: () => void }> {
    const release = await this.sessions.acquire();
    const client = this.client;
    if (!client || this.current.state !== 'connected') {
      release();
      throw new NotConnectedError(this.describe());
    }
    try {
      const stream = await new Promise<ClientChannel>((resolve, reject) =>
        client.forwardOut('127.0.0.1', 0, host, port, (err, ch) => (err ? reject(err) : resolve(ch))),
      );
      stream.once('close', release);
      return { stream, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Close the link for good. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.teardown();
  }

  private async withChannel<T>(open: (client: Client, done: (err: Error | null, value?: T) => void) => void, timeoutMs: number): Promise<T> {
    // sshd refuses a channel while its MaxSessions are taken: by sessions whose close we have
    // already seen (it frees a slot only once the session's child exits), by a server cap below
    // ours, and for as long as a slow login shell (pyenv, nvm, conda in an rc file) keeps each
    // session's child alive. A refusal is retried, backing off, until the command's own time is up.
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.openChannel(open);
      } catch (err) {
        const wait = backoffDelay(attempt - 1, { baseMs: 50, maxMs: 500 });
        if (!/Channel open failure/i.test((err as Error).message) || Date.now() + wait > deadline) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private async openChannel<T>(open: (client: Client, done: (err: Error | null, value?: T) => void) => void): Promise<T> {
    const release = await this.sessions.acquire();
    try {
      const client = this.client;
      if (!client || this.current.state !== 'connected') throw new NotConnectedError(this.describe());
      return await new Promise<T>((resolve, reject) => {
        const fail = (err: Error): void => reject(err);
        this.inflight.add(fail);
        open(client, (err, value) => {
          this.inflight.delete(fail);
          if (err) reject(err);
          else resolve(value as T);
        });
      });
    } finally {
      release();
    }
  }

  private collect(stream: ClientChannel, timeoutMs: number, done: (err: Error | null, value?: ExecResult) => void): void {
    const out: Buffer[] = [];
    let err = '';
    let code: number | null = null;
    const timer = setTimeout(() => {
      stream.close();
      done(new Error(`Host ${this.options.name}: a command did not finish within ${timeoutMs} ms.`));
    }, timeoutMs);
    stream.on('data', (c: Buffer) => out.push(c));
    stream.stderr.on('data', (c: Buffer) => (err += c.toString()));
    stream.on('exit', (c: number | null) => (code = c));
    stream.on('close', () => {
      clearTimeout(timer);
      done(null, { code, stdout: Buffer.concat(out), stderr: err });
    });
  }

  private setStatus(next: ConnectionStatus): void {
    this.current = next;
    this.emit('status', next);
  }

  private teardown(): void {
    this.session?.close();
    this.session = null;
    for (const fail of this.inflight) fail(new NotConnectedError(`Host ${this.options.name}: the connection closed.`));
    this.inflight.clear();
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
    const client = new ssh2.Client();
    this.chain.push(client);
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', reject);
      client.once('close', () => reject(new Error('connection closed during setup')));
      client.connect(this.connectConfig(ep, fatal, sock));
    });
    client.removeAllListeners('error');
    client.removeAllListeners('close');
    return client;
  }

  private async attempt(): Promise<void> {
    if (this.closed) return;
    this.teardown();
    const fatal: { value: Fatal | null } = { value: null };
    const ep = this.options.endpoint;
    try {
      let sock: Duplex | undefined;
      for (const hop of [...ep.jumps, ep]) {
        const client = await this.connectHop(hop, fatal, sock);
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
      return this.failed(err as Error & { level?: string }, fatal.value);
    }
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
