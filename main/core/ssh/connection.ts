import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { backoffDelay } from '../../../shared/backoff';
import { LineSplitter, MAX_STREAM_LINE_BYTES } from './line-splitter';
import { Semaphore } from './semaphore';
import { ShellSession } from './shell-session';
import { SshLink } from './ssh-link';
import { messageOf } from '../../../shared/errors';

export * from './connection-types';
import { NotConnectedError, type ExecResult, type SshConnectionOptions } from './connection-types';

/**
 * One SSH connection per host: the kept-up link (SshLink: connect, reconnect, host keys, status)
 * and the channels over it — commands, the long-lived shell session, streams and TCP forwards —
 * never more at once than `maxSessions`, each failing fast with NotConnectedError when the link is down.
 */
export class SshConnection extends SshLink {
  private readonly sessions: Semaphore;
  private readonly inflight = new Set<(err: Error) => void>();
  private session: ShellSession | null = null;
  private sessionOpening: Promise<ShellSession> | null = null;

  constructor(options: SshConnectionOptions) {
    super(options);
    this.sessions = new Semaphore(options.maxSessions ?? 8);
  }

  /** Channels open right now (never above maxSessions). */
  get openChannels(): number {
    return this.sessions.inUse;
  }

  /**
   * Run a command; its stdout is collected as bytes. Fails fast when the link is down. `signal`
   * cancels it: the channel is ended and closed (the command's input ends) and the promise
   * rejects with the signal's reason at once, even while it waits for a channel.
   */
  async exec(command: string, timeoutMs = 30_000, signal?: AbortSignal): Promise<ExecResult> {
    signal?.throwIfAborted();
    const run = this.withChannel<ExecResult>(
      (client, done) =>
        client.exec(command, (err, stream) => {
          if (err) return done(err);
          this.collect(stream, timeoutMs, done, signal);
        }),
      timeoutMs,
    );
    if (!signal) return run;
    let cancel = (): void => undefined;
    const cancelled = new Promise<never>((_, reject) => {
      cancel = () => reject(signal.reason as Error);
      signal.addEventListener('abort', cancel, { once: true });
    });
    return Promise.race([run, cancelled]).finally(() => signal.removeEventListener('abort', cancel));
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
      if (this.status.state !== 'connected') throw new NotConnectedError(this.describe());
      throw new Error(`Host ${this.options.name}: ${messageOf(err)}`, { cause: err });
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
      if (!client || this.status.state !== 'connected') throw new NotConnectedError(this.describe());
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
    if (!client || this.status.state !== 'connected') {
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
        if (!/Channel open failure/i.test(messageOf(err)) || Date.now() + wait > deadline) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private async openChannel<T>(open: (client: Client, done: (err: Error | null, value?: T) => void) => void): Promise<T> {
    const release = await this.sessions.acquire();
    try {
      const client = this.client;
      if (!client || this.status.state !== 'connected') throw new NotConnectedError(this.describe());
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

  private collect(stream: ClientChannel, timeoutMs: number, done: (err: Error | null, value?: ExecResult) => void, signal?: AbortSignal): void {
    const out: Buffer[] = [];
    let err = '';
    let code: number | null = null;
    const timer = setTimeout(() => {
      stream.close();
      done(new Error(`Host ${this.options.name}: a command did not finish within ${timeoutMs} ms.`));
    }, timeoutMs);
    // Cancelled: EOF first (sshd then closes the command's input), then the channel.
    const cancel = (): void => {
      clearTimeout(timer);
      stream.end();
      stream.close();
      done(signal?.reason as Error);
    };
    stream.on('data', (c: Buffer) => out.push(c));
    stream.stderr.on('data', (c: Buffer) => (err += c.toString()));
    stream.on('exit', (c: number | null) => (code = c));
    stream.on('close', () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      done(null, { code, stdout: Buffer.concat(out), stderr: err });
    });
    if (signal?.aborted) cancel();
    else signal?.addEventListener('abort', cancel, { once: true });
  }

  /** The link dropped: the shell session closes and calls waiting on a channel fail. */
  protected override onTeardown(): void {
    this.session?.close();
    this.session = null;
    for (const fail of this.inflight) fail(new NotConnectedError(`Host ${this.options.name}: the connection closed.`));
    this.inflight.clear();
  }
}
