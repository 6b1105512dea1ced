import * as z from 'zod';
import type { CommandName } from './contract';

// Who may do what: one table, read by main (dispatch refuses) and the renderer (hides). A role
// includes the ones below it.

/** The roles, weakest first: a viewer reads; an operator also acknowledges, snoozes and marks reviewed; an admin also runs drills and trusts host keys. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
/** A role. */
export const RoleSchema = z.enum(ROLES);
/** A role. */
export type Role = z.infer<typeof RoleSchema>;

/** How a caller was recognised: the desktop window, serve's token, an OIDC sign-in, a trusted proxy's header. */
export const CallerViaSchema = z.enum(['desktop', 'token', 'oidc', 'proxy']);

/** Who sends a command: recorded on what they do (acknowledgements, snoozes, review marks, drills, trust). */
export const CallerSchema = z
  .object({
    user: z.string().min(1),
    role: RoleSchema,
    via: CallerViaSchema,
  })
  .readonly();
/** Who sends a command. */
export type Caller = z.infer<typeof CallerSchema>;

/** The weakest role that may send each command. Reading is a viewer's; changing state is not. */
export const COMMAND_ROLES: Readonly<Record<CommandName, Role>> = {
  'app.info': 'viewer',
  'state.snapshot': 'viewer',
  'state.summary': 'viewer',
  'ledgers.page': 'viewer',
  'capacity.history': 'viewer',
  'trends.nights': 'viewer',
  'nights.compare': 'viewer',
  'drills.output': 'viewer',
  'transcript.open': 'viewer',
  'transcript.lines': 'viewer',
  'transcript.search': 'viewer',
  // A page's own error reports: every signed-in page sends them, and they are rate-limited.
  'log.error': 'viewer',
  'review.mark': 'operator',
  'prs.nextDone': 'operator',
  // The merge is the deploy trigger: the operator's, as the review is.
  'prs.merge': 'operator',
  'notices.ack': 'operator',
  'notices.snooze': 'operator',
  // Planned quiet: what an operator does before a fleet upgrade (the "operator or admin").
  'maintenance.add': 'operator',
  'maintenance.end': 'operator',
  'drills.run': 'admin',
  'drills.cancel': 'admin',
  'hosts.trust': 'admin',
  'hosts.untrust': 'admin',
  // A passphrase unlocks a key that reaches a host: as much as trusting its key.
  'hosts.unlock': 'admin',
  // Switches the whole console's config (only from the first-run screen).
  'demo.start': 'admin',
};

/** Whether `role` includes `needed`. */
export function roleIncludes(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** Whether a caller with `role` may send `command`. */
export function mayRun(role: Role, command: CommandName): boolean {
  return roleIncludes(role, COMMAND_ROLES[command]);
}

/** Why `caller` may not send `command`, or null when they may: the message names the role needed. */
export function refusalOf(caller: Caller, command: CommandName): string | null {
  const needed = COMMAND_ROLES[command];
  if (roleIncludes(caller.role, needed)) return null;
  return `${command} needs the ${needed} role; ${caller.user} is ${caller.role === 'admin' || caller.role === 'operator' ? 'an' : 'a'} ${caller.role}.`;
}
