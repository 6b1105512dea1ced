import { Semaphore } from './semaphore';

/** Handshakes at once, by default: below OpenSSH's MaxStartups (10:30:100), where sshd starts dropping. */
export const CONNECT_GATE_LIMIT = 8;
/** How long one handshake may keep its turn, by default, before it stops counting (ms). */
export const CONNECT_GATE_HOLD_MS = 2000;

/**
 * Spreads SSH handshakes out: at most `limit` at once in the process, the rest wait their turn in
 * order. A start with a hundred hosts (or a network coming back under all of them) would otherwise
 * open every connection in the same tick: sshd drops unauthenticated connections past MaxStartups
 * (many host entries behind one server or one jump host), and a hundred key exchanges at once hold
 * up the one thread. A turn is given back when the handshake ends, or after `holdMs`, whichever
 * comes first: a host whose handshake hangs (a port that accepts and never answers, a black hole)
 * keeps going on its own ready timeout without keeping anyone else waiting longer than that.
 */
export class ConnectGate {
  private readonly turns: Semaphore;

  constructor(
    readonly limit = CONNECT_GATE_LIMIT,
    readonly holdMs = CONNECT_GATE_HOLD_MS,
  ) {
    this.turns = new Semaphore(limit);
  }

  /** Handshakes holding a turn now. */
  get inUse(): number {
    return this.turns.inUse;
  }

  /** Wait for a turn; call the returned function when the handshake ends (more calls do nothing). */
  async enter(): Promise<() => void> {
    const release = await this.turns.acquire();
    const timer = setTimeout(release, this.holdMs);
    timer.unref();
    return () => {
      clearTimeout(timer);
      release();
    };
  }
}

/** The gate every SSH connection of the process goes through unless given its own. */
export const processConnectGate = new ConnectGate();
