import { execFile } from 'node:child_process';
import type { ExecResult } from '../ssh/connection';

/** Runs a shell script on a host. Only the drills module and the file sources use one. */
export interface HostShell {
  /**
   * Run `script`. `signal` cancels it: the script's input ends (a script that reads it, like the
   * transcript search, ends its children then) and the promise rejects with the signal's reason.
   */
  exec(script: string, timeoutMs?: number, signal?: AbortSignal): Promise<ExecResult>;
}

/** `sh -c` on this machine, for `local: true` hosts. */
export class LocalShell implements HostShell {
  exec(script: string, timeoutMs = 30_000, signal?: AbortSignal): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const child = execFile('/bin/sh', ['-c', script], { timeout: timeoutMs, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        signal?.removeEventListener('abort', cancel);
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        resolve({ code, stdout, stderr: stderr.toString('utf8') });
      });
      // The script's input ends (its reader ends what it started), and sh itself is stopped.
      const cancel = (): void => {
        child.stdin?.end();
        child.kill();
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', cancel, { once: true });
    });
  }
}
