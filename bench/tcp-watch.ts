/**
 * The client side of TCP connections to a set of loopback ports, read from /proc/net/tcp (no
 * `ss` process per look, so it can look every few milliseconds): for figure 6d, when each host's
 * first connection was made, and how many connections each host had at once and in all.
 */
import { readFileSync } from 'node:fs';

/** One client socket to a watched port. */
interface ClientSocket {
  readonly port: number;
  /** `local port/inode`: a connection's identity while it lives. */
  readonly id: string;
  /** Open (SYN_SENT or ESTABLISHED), as opposed to closing or TIME_WAIT. */
  readonly open: boolean;
}

const OPEN_STATES = new Set(['01', '02']);

function clientSockets(ports: ReadonlySet<number>): ClientSocket[] {
  let text: string;
  try {
    text = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return [];
  }
  const out: ClientSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    const local = f[1];
    const remote = f[2];
    const st = f[3];
    if (!local || !remote || !st) continue;
    const rport = Number.parseInt(remote.slice(remote.indexOf(':') + 1), 16);
    const lport = Number.parseInt(local.slice(local.indexOf(':') + 1), 16);
    // The sshd's side of the same connection has the watched port as its local one.
    if (!ports.has(rport) || ports.has(lport)) continue;
    const inode = f[9] ?? '0';
    if (inode === '0' && !OPEN_STATES.has(st)) continue; // TIME_WAIT: already counted while it lived
    out.push({ port: rport, id: `${lport}/${inode}`, open: OPEN_STATES.has(st) });
  }
  return out;
}

/** What the watch saw, per port. */
export interface TcpSeen {
  /** `performance.now()` when a connection to the port was first seen. */
  readonly firstAt: ReadonlyMap<number, number>;
  /** Most connections open to the port at one look. */
  readonly maxOpen: ReadonlyMap<number, number>;
  /** Distinct connections seen to the port (one that lived shorter than a look can be missed). */
  readonly distinct: ReadonlyMap<number, number>;
  readonly looks: number;
}

/** Watch connections to `ports` every `everyMs` until `stop()`. */
export function watchTcp(ports: readonly number[], everyMs: number): { seen: () => TcpSeen; every: (ms: number) => void; stop: () => TcpSeen } {
  const set = new Set(ports);
  const firstAt = new Map<number, number>();
  const maxOpen = new Map<number, number>();
  const ids = new Map<number, Set<string>>();
  let looks = 0;
  const look = (): void => {
    const at = performance.now();
    looks += 1;
    // /proc/net/tcp is read in several reads, and a table that changes between them can list a
    // socket twice: a look counts each connection once.
    const open = new Map<number, Set<string>>();
    for (const s of clientSockets(set)) {
      if (!firstAt.has(s.port)) firstAt.set(s.port, at);
      const known = ids.get(s.port) ?? new Set<string>();
      known.add(s.id);
      ids.set(s.port, known);
      if (s.open) open.set(s.port, (open.get(s.port) ?? new Set<string>()).add(s.id));
    }
    for (const [port, n] of open) maxOpen.set(port, Math.max(n.size, maxOpen.get(port) ?? 0));
  };
  let timer = setInterval(look, everyMs);
  look();
  const seen = (): TcpSeen => ({ firstAt, maxOpen, distinct: new Map([...ids].map(([p, s]) => [p, s.size])), looks });
  return {
    seen,
    every: (ms) => {
      clearInterval(timer);
      timer = setInterval(look, ms);
    },
    stop: () => {
      clearInterval(timer);
      look();
      return seen();
    },
  };
}
