import { randomBytes } from 'node:crypto';
import type { Caller } from '../../../shared/roles';

/** A signed-in browser. */
export interface SignIn {
  readonly caller: Caller;
  /** When it ends (ms since the epoch). */
  readonly endsAt: number;
  /** The provider's ID token, for its end-session endpoint (RP-initiated logout). */
  readonly idToken: string | null;
}

/** Signed-in browsers kept at once; past it the one that ends first goes (bounded whatever a client does). */
const MAX_SIGN_INS = 10_000;

/**
 * The sign-ins of serve's OIDC access, by an opaque random id (the cookie's value): in memory, so
 * a restart signs everyone out, and nothing a browser holds can be forged or replayed after it
 * ends. Whoever holds a socket of one is told when it ends (expiry or sign-out).
 */
export class SignIns {
  private readonly byId = new Map<string, SignIn>();
  private readonly enders = new Map<string, Set<() => void>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Start a sign-in; its id. */
  add(signIn: SignIn): string {
    this.prune();
    if (this.byId.size >= MAX_SIGN_INS) {
      let first: [string, SignIn] | null = null;
      for (const e of this.byId) if (!first || e[1].endsAt < first[1].endsAt) first = e;
      if (first) this.end(first[0]);
    }
    const id = randomBytes(32).toString('base64url');
    this.byId.set(id, signIn);
    return id;
  }

  /** The live sign-in of `id`, or null (unknown, or ended: then it is dropped). */
  get(id: string): SignIn | null {
    const s = this.byId.get(id);
    if (!s) return null;
    if (s.endsAt <= this.now()) {
      this.end(id);
      return null;
    }
    return s;
  }

  /** End a sign-in (sign-out): its sockets are told. Returns what it was. */
  end(id: string): SignIn | null {
    const s = this.byId.get(id) ?? null;
    this.byId.delete(id);
    const enders = this.enders.get(id);
    this.enders.delete(id);
    for (const f of enders ?? []) f();
    return s;
  }

  /** Call `f` when sign-in `id` ends by sign-out; returns the unsubscribe. (Expiry is the holder's timer, from `endsAt`.) */
  onEnd(id: string, f: () => void): () => void {
    let set = this.enders.get(id);
    if (!set) this.enders.set(id, (set = new Set()));
    set.add(f);
    return () => set.delete(f);
  }

  /** How many are live. */
  get size(): number {
    this.prune();
    return this.byId.size;
  }

  private prune(): void {
    const t = this.now();
    for (const [id, s] of this.byId) if (s.endsAt <= t) this.end(id);
  }
}
