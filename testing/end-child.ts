import { rmSync } from 'node:fs';

/**
 * End a server a test started (by its PID, never by name): SIGTERM, SIGKILL if it has not gone
 * within 5 s, then remove its temporary folder. `gone` settles when it exited.
 */
export async function endChild(pid: number, gone: Promise<unknown>, exited: () => boolean, dir: string): Promise<void> {
  if (!exited()) {
    process.kill(pid, 'SIGTERM');
    const ended = await Promise.race([gone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
    if (!ended && !exited()) process.kill(pid, 'SIGKILL');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
}
