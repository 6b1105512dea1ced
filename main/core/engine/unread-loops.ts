import type { HostEntry } from '../hosts/host-table';

/**
 * The loops whose first read after the start is still due. A loop is read once its follower's
 * poll of its runs folder and ledgers has ended (or failed on its own account, not the link's).
 * Until then, a loop whose host is still making its first connection, or is connected and about to
 * be read, holds the first read open: its state is not known yet, so neither a console (the
 * summary is `reading`) nor the dead-man nor the notices may take its emptiness for news. A host
 * that settled where it cannot be read (unreachable, untrusted, a refused key) ends the wait, and
 * the console shows why; its loops still get no dead-man until they are read (`never`).
 */
export class UnreadLoops {
  private readonly unread: Set<string>;

  constructor(loops: Iterable<string>) {
    this.unread = new Set(loops);
  }

  /** The loop's sources were read (or failed to be, on their own account). */
  read(loop: string): void {
    this.unread.delete(loop);
  }

  /** The loop was never read in this run: no cycles known is not no cycles run. */
  never(loop: string): boolean {
    return this.unread.has(loop);
  }

  /** The loop was never read and its host may yet be read: the first read is not over. */
  pending(loop: string, host: HostEntry | undefined): boolean {
    if (!this.unread.has(loop) || !host?.source) return false;
    const state = host.ssh?.connection.status.state ?? 'connected';
    return state === 'connecting' || state === 'connected';
  }
}
