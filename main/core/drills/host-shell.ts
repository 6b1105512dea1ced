import { execFile } from 'node:child_process';
import type { ExecResult } from '../ssh/connection';

/** Runs a shell script on a host. Only the drills module and the file sources use one. */
export interface HostShell {
  exec(script: string, timeoutMs?: number): Promise<ExecResult>;
}

/** `sh -c` on this machine, for `local: true` hosts. */
export class LocalShell implements HostShell {
  exec(script: string, timeoutMs = 30_000): Promise<ExecResult> {
    return new Promise((resolve) => {
      execFile('/bin/sh', ['-c', script], { timeout: timeoutMs, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        resolve({ code, stdout, stderr: stderr.toString('utf8') });
      });
    });
  }
}
