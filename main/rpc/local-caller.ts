import { userInfo } from 'node:os';
import type { Caller } from '../../shared/roles';

/** The account Loopdeck runs as, or "local" where the OS cannot name it (no passwd entry in a container). */
export function localUser(): string {
  try {
    return userInfo().username || 'local';
  } catch {
    return 'local';
  }
}

/**
 * Whoever has the desktop window or serve's per-run token: the person at this account, an admin
 * (the token is as good as the account). Recorded under the account's name.
 */
export function localCaller(via: 'desktop' | 'token'): Caller {
  return { user: localUser(), role: 'admin', via };
}
