import type { CommandName } from '../../../shared/contract';
import { COMMAND_ROLES, mayRun, type Caller, type Role } from '../../../shared/roles';
import type { DeckData } from './reducers';

// What the caller may do, as the views ask it: from `app.info`'s caller and the one table main
// refuses by (shared/roles.ts). Until `app.info` has answered nobody is known, so nothing
// privileged shows; main refuses regardless, this only keeps a viewer from meeting buttons that fail.

/** Who the console is talking for, or null before `app.info` answered. */
export const selectCaller = (s: Pick<DeckData, 'info'>): Caller | null => s.info?.caller ?? null;

/** Whether the caller may send `command`; false while nobody is known yet. */
export function selectMay(s: Pick<DeckData, 'info'>, command: CommandName): boolean {
  const caller = selectCaller(s);
  return caller !== null && mayRun(caller.role, command);
}

/**
 * The role `command` needs when the known caller lacks it (for a quiet "needs the operator role"
 * note); null when they have it or nobody is known yet (nothing is said before the role is).
 */
export function selectRoleNeeded(s: Pick<DeckData, 'info'>, command: CommandName): Role | null {
  const caller = selectCaller(s);
  if (caller === null || mayRun(caller.role, command)) return null;
  return COMMAND_ROLES[command];
}

/** Whether the header names the user: only when serve recognised a person (not the local account of the desktop or the token). */
export function showsIdentity(caller: Caller | null): caller is Caller {
  return caller !== null && (caller.via === 'oidc' || caller.via === 'proxy');
}
