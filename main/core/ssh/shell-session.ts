import type { ClientChannel } from 'ssh2';
import type { ExecResult } from './connection';

const READY = 'LD_SESSION_READY';
const HEADER = /^LDHDR (\d+) (\d+) (\d+)$/;

/**
 * What is sent for one request: the script runs in a subshell (an `exit` in it ends only the
 * subshell) with stdin from /dev/null (it must not eat the requests behind it), its output goes to
 * temp files, and the reply is a header with the rc and both lengths, then the bytes: binary-safe
 * and exactly framed. The temp files are removed at once.
 */
export function frameRequest(script: string): string {
  return [
    'f=$(mktemp) || exit 1',
    '(',
    script,
    ') </dev/null >"$f" 2>"$f.e"; rc=$?',
    `printf 'LDHDR %s %s %s\\n' "$rc" "$(wc -c <"$f" | tr -d ' ')" "$(wc -c <"$f.e" | tr -d ' ')"`,
    'cat "$f" "$f.e"; rm -f "$f" "$f.e"',
    '',
  ].join('\n');
}

interface Pending {
  readonly resolve: (r: ExecResult) => void;
  readonly reject: (e: Error) => void;
}

/**
 * One long-lived `sh` on the host, fed scripts over its stdin: the user's login shell and its rc
 * files start once per connection instead of once per command (on a runner whose ~/.bashrc runs
 * pyenv that is 130 ms a command). Requests run one at a time, in order.
 */
export class ShellSession {
  private buffer: Buffer = Buffer.alloc(0);
  private ready = false;
  private readonly queue: Pending[] = [];
  private dead: Error | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly channel: ClientChannel,
    private readonly onDead: () => void,
  ) {
    channel.on('data', (chunk: Buffer) => this.onData(chunk));
    channel.stderr.on('data', () => undefined);
    channel.on('close', () => this.fail(new Error('the shell session closed')));
    channel.on('error', (err: Error) => this.fail(err));
    // Whatever the login shell's rc files print comes before this marker and is skipped.
    channel.write(`printf '\\n${READY}\\n'\n`);
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
          this.queue.push({
            resolve: (r) => (clearTimeout(timer), resolve(r)),
            reject: (e) => (clearTimeout(timer), reject(e)),
          });
          this.channel.write(frameRequest(script));
        }),
    );
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** End the session (the shell exits when its stdin closes). */
  close(): void {
    this.fail(new Error('the shell session was closed'));
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    if (!this.ready) {
      const at = this.buffer.indexOf(`${READY}\n`);
      if (at < 0) return;
      this.buffer = this.buffer.subarray(at + READY.length + 1);
      this.ready = true;
    }
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl < 0) return;
      const m = HEADER.exec(this.buffer.toString('latin1', 0, nl));
      if (!m) return this.fail(new Error('the shell session lost its framing'));
      const [code, out, err] = [Number(m[1]), Number(m[2]), Number(m[3])];
      if (this.buffer.length < nl + 1 + out + err) return;
      const stdout = Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + out));
      const stderr = this.buffer.toString('utf8', nl + 1 + out, nl + 1 + out + err);
      this.buffer = this.buffer.subarray(nl + 1 + out + err);
      this.queue.shift()?.resolve({ code, stdout, stderr });
    }
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    for (const p of this.queue.splice(0)) p.reject(err);
    this.channel.removeAllListeners('data');
    this.channel.end();
    this.channel.close();
    this.onDead();
  }
}
