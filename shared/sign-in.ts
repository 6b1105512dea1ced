// Serve mode's sign-in, as both sides spell it: the routes and the close code of a socket whose
// sign-in ended.

/** Where a browser signs in; `?next=` is where it goes back to (a path of ours). */
export const SIGN_IN_PATH = '/auth/login';
/** Where a browser signs out (the provider's end-session endpoint follows, where it has one). */
export const SIGN_OUT_PATH = '/auth/logout';
/** The provider sends the browser back here with the code. */
export const SIGN_IN_CALLBACK_PATH = '/auth/callback';
/** The script of the page a browser without a sign-in gets: to sign in, back to the view it asked for. */
export const SIGN_IN_RETURN_SCRIPT = '/auth/return.js';
/** Shown once signed out. */
export const SIGNED_OUT_PATH = '/auth/signed-out';

/** Close code of a WebSocket whose sign-in ended (expired, signed out): the page signs in again (4000–4999 are the application's). */
export const SIGNED_OUT_CLOSE = 4401;

/** The sign-in URL that comes back to `hash` (the view the page was on). */
export function signInUrl(hash: string): string {
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(`/${hash}`)}`;
}
