import { ROLES, type Role } from '../../../shared/roles';
import type { ServeAuthConfig } from '../../core/config/serve-config';

/**
 * The strongest role `serve.auth.roles` gives a user: listed by name, through one of their groups
 * (`group:<name>`), or as anyone signed in (`*`). Null when no list has them: they are refused.
 */
export function roleOf(roles: ServeAuthConfig['roles'], user: string, groups: readonly string[]): Role | null {
  const names = new Set([user, '*', ...groups.map((g) => `group:${g}`)]);
  for (const role of [...ROLES].reverse()) {
    if (roles[role].some((m) => names.has(m))) return role;
  }
  return null;
}

/** Why someone in no role is refused, naming the config key. */
export function noRoleMessage(user: string, groups: readonly string[]): string {
  const of = groups.length ? ` (groups: ${groups.join(', ')})` : ' (no groups)';
  return `${user}${of} is in none of serve.auth.roles' admin, operator or viewer lists; ask an admin of this Loopdeck to add them.`;
}
