import type { SshConnection } from '../main/core/ssh/connection';

/** Count every request made on an SSH connection from now on (a script run, an exec, a stream, a forward): what the host is asked. */
export function countRequests(conn: SshConnection): () => number {
  let requests = 0;
  for (const method of ['run', 'exec', 'stream', 'forwardOut'] as const) {
    const original = conn[method].bind(conn) as (...a: unknown[]) => Promise<unknown>;
    (conn as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      requests++;
      return original(...args);
    };
  }
  return () => requests;
}
