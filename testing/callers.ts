import type { Caller } from '../shared/roles';

/** Who the core tests' commands come from: the desktop's local user, an admin (every command allowed). */
export const TEST_CALLER: Caller = { user: 'tester', role: 'admin', via: 'desktop' };
