import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../../../shared/roles';
import type { Refusal } from '../http-guard';

/** A request let in: who sent it, and what to answer with it. */
export interface Admitted {
  readonly caller: Caller;
  /** A cookie to set with the answer (the token's, after `?token=`). */
  readonly setCookie?: string;
  /** When the sign-in ends (ms since the epoch): a socket opened with it is closed then. */
  readonly endsAt?: number;
  /** Call `f` if the sign-in is ended sooner (signed out); returns the unsubscribe. */
  readonly onEnd?: (f: () => void) => () => void;
  /**
   * Authenticated by something the browser adds on its own (a cookie, a proxy's sign-in), so a
   * WebSocket upgrade must come from our own Origin.
   */
  readonly ambient: boolean;
}

/**
 * A page asked for without a sign-in: answered with a page that goes to sign in and comes back to
 * the view asked for (its `#/…` never reaches the server: the page's script adds it). `href` is
 * the sign-in URL without the view, for the link shown meanwhile.
 */
export interface SignInFirst {
  readonly signIn: string;
}

/** What an access check answers. */
export type AccessVerdict = Admitted | Refusal | SignInFirst;

/** How serve knows who is there: the per-run token, an OIDC sign-in, or a trusted proxy's header. */
export interface Access {
  readonly kind: 'token' | 'oidc' | 'proxy';
  /** Check a request (`upgrade`: the WebSocket's). */
  check(req: IncomingMessage, url: URL, upgrade: boolean): AccessVerdict;
  /** Answer a request of its own (sign-in, callback, sign-out); false when `url` is not one. */
  route(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

/** Whether a verdict lets the request in. */
export function isAdmitted(v: AccessVerdict): v is Admitted {
  return 'caller' in v;
}

/** Whether a verdict asks to sign in first. */
export function isSignInFirst(v: AccessVerdict): v is SignInFirst {
  return 'signIn' in v;
}
