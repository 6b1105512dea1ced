import { ROLES, type Role } from '../../../shared/roles';
import type { ServeAuthConfig } from '../../core/config/serve-config';

/** The prefix of a `serve.auth.roles` entry naming a group rather than a user. */
const GROUP = 'group:';

/**
 * Whether one `serve.auth.roles` entry takes this person in: `*` anyone signed in, `group:<g>` a
 * member of group `g` only, and any other entry exactly that user name only. Names and groups are
 * separate namespaces: a user who names themselves `group:admins` (many providers let people pick
 * `preferred_username`) is no member of `admins`.
 */
function takes(entry: string, user: string, groups: ReadonlySet<string>): boolean {
  if (entry === '*') return true;
  if (entry.startsWith(GROUP)) return entry.length > GROUP.length && groups.has(entry.slice(GROUP.length));
  return entry === user;
}

/**
 * The strongest role `serve.auth.roles` gives a user: listed by name, through one of their groups
 * (`group:<name>`), or as anyone signed in (`*`). Null when no list has them: they are refused.
 */
export function roleOf(roles: ServeAuthConfig['roles'], user: string, groups: readonly string[]): Role | null {
  const member = new Set(groups);
  for (const role of [...ROLES].reverse()) {
    if (roles[role].some((entry) => takes(entry, user, member))) return role;
  }
  return null;
}

/** Why someone in no role is refused, naming the config key. */
export function noRoleMessage(user: string, groups: readonly string[]): string {
  const of = groups.length ? ` (groups: ${groups.join(', ')})` : ' (no groups)';
  // No entry can list such a user by name: `group:x` entries match groups only.
  const how = user.startsWith(GROUP) ? `a user name starting with "${GROUP}" cannot be listed by name, so give them a role through one of their groups` : 'ask an admin of this Loopdeck to add them';
  return `${user}${of} is in none of serve.auth.roles' admin, operator or viewer lists; ${how}.`;
}
