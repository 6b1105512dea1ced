import { randomBytes } from 'node:crypto';
import type { ClientChannel } from 'ssh2';
import type { ExecResult } from './connection-types';

/** A fresh, unguessable marker: it cannot occur in output produced before it was made. */
function newMarker(): string {
  return `LD${randomBytes(16).toString('hex')}`;
}

/**
 * What is sent for one request: the script runs in a subshell (an `exit` in it ends only the
 * subshell) with stdin from /dev/null (it must not eat the requests behind it); its stdout and
 * stderr flow straight back, each ended by a line carrying a marker made for this request (stdout's
 * also carries the exit code). Only the subshell is forked: no temp files, no `wc`, no `cat`.
 */
export function frameRequest(script: string, marker: string): string {
  return [
    '(',
    script,
    `) </dev/null; printf '\\n%s %s\\n' ${marker} "$?"; printf '\\n%s\\n' ${marker} >&2`,
    '',
  ].join('\n');
}

interface Pending {
  readonly marker: string;
  readonly resolve: (r: ExecResult) => void;
  readonly reject: (e: Error) => void;
}

/**
 * Bytes of one stream of the session, cut at the marker lines that end each request. Chunks are
 * kept as they come and joined once per request: an 8 MB read arrives in hundreds of chunks, and
 * joining on every chunk copied gigabytes (32 MB took 10 s). Each chunk is searched once, with
 * enough of the bytes before it for a marker split across two chunks.
 */
export class MarkedStream {
  private chunks: Buffer[] = [];
  private length = 0;
  /** No marker line starts before this offset (less the marker's length). */
  private scanned = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /**
   * If the line `\n<marker><suffix>` is complete, take what came before it and the rest of the
   * marker line (after the marker); otherwise null.
   */
  take(marker: string): { body: Buffer; rest: string } | null {
    const needle = `\n${marker}`;
    const from = Math.max(0, this.scanned - needle.length);
    const region = this.range(from);
    const at = region.indexOf(needle);
    if (at < 0) {
      this.scanned = this.length;
      return null;
    }
    const end = region.indexOf(0x0a, at + needle.length);
    if (end < 0) {
      this.scanned = from + at;
      return null;
    }
    const all = this.range(0);
    const body = all.subarray(0, from + at);
    const rest = region.toString('latin1', at + needle.length, end);
    // What follows is usually a few bytes: copied, so the request's output is not kept alive.
    const remaining = Buffer.from(all.subarray(from + end + 1));
    this.chunks = remaining.length ? [remaining] : [];
    this.length = remaining.length;
    this.scanned = 0;
    return { body, rest };
  }

  /** The bytes from `from` to the end, joined (copying only what lies past `from`). */
  private range(from: number): Buffer {
    let start = this.length;
    let i = this.chunks.length;
    while (i > 0 && start > from) start -= (this.chunks[--i] as Buffer).length;
    const parts = this.chunks.slice(i);
    if (parts.length === 0) return Buffer.alloc(0);
    parts[0] = (parts[0] as Buffer).subarray(from - start);
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }
}

/**
 * One long-lived `sh` on the host, fed scripts over its stdin: the user's login shell and its rc
 * files start once per connection instead of once per command (on a runner whose ~/.bashrc runs
 * pyenv that is 130 ms a command). Requests run one at a time, in order; a request costs one fork.
 */
export class ShellSession {
  private readonly out = new MarkedStream();
  private readonly err = new MarkedStream();
  /** The stdout part of the request in flight, once its marker line arrived. */
  private outDone: { body: Buffer; rest: string } | null = null;
  private readonly ready: { marker: string; out: boolean; err: boolean };
  private current: Pending | null = null;
  private dead: Error | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly channel: ClientChannel,
    private readonly onDead: () => void,
  ) {
    channel.on('data', (chunk: Buffer) => (this.out.push(chunk), this.settle()));
    channel.stderr.on('data', (chunk: Buffer) => (this.err.push(chunk), this.settle()));
    channel.on('close', () => this.fail(new Error('the shell session closed')));
    channel.on('error', (err: Error) => this.fail(err));
    // Whatever the login shell's rc files print comes before these marker lines and is skipped.
    this.ready = { marker: newMarker(), out: false, err: false };
    channel.write(`printf '\\n%s\\n' ${this.ready.marker}; printf '\\n%s\\n' ${this.ready.marker} >&2\n`);
  }

  /** Whether the session can take requests. */
  get alive(): boolean {
    return this.dead === null;
  }

  /** Run a script; resolves with its rc, stdout and stderr. One request at a time. */
  run(script: string, timeoutMs: number): Promise<ExecResult> {
    const result = this.chain.then(
      () =>
        new Promise<ExecResult>((resolve, reject) => {
          if (this.dead) return reject(this.dead);
          const timer = setTimeout(() => this.fail(new Error(`a command did not finish within ${timeoutMs} ms`)), timeoutMs);
          const marker = newMarker();
          this.current = {
            marker,
            resolve: (r) => (clearTimeout(timer), resolve(r)),
            reject: (e) => (clearTimeout(timer), reject(e)),
          };
          this.channel.write(frameRequest(script, marker));
          this.settle();
        }),
    );
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** End the session (the shell exits when its stdin closes). */
  close(): void {
    this.fail(new Error('the shell session was closed'));
  }

  private settle(): void {
    if (!this.ready.out) this.ready.out = this.out.take(this.ready.marker) !== null;
    if (!this.ready.err) this.ready.err = this.err.take(this.ready.marker) !== null;
    const p = this.current;
    if (!p || !this.ready.out || !this.ready.err) return;
    this.outDone ??= this.out.take(p.marker);
    if (!this.outDone) return;
    const errDone = this.err.take(p.marker);
    if (!errDone) return;
    const m = /^ (\d+)$/.exec(this.outDone.rest);
    if (!m) return this.fail(new Error('the shell session lost its framing'));
    const result = { code: Number(m[1]), stdout: this.outDone.body, stderr: errDone.body.toString('utf8') };
    this.outDone = null;
    this.current = null;
    p.resolve(result);
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    this.current?.reject(err);
    this.current = null;
    this.channel.removeAllListeners('data');
    this.channel.stderr.removeAllListeners('data');
    this.channel.end();
    this.channel.close();
    this.onDead();
  }
}
