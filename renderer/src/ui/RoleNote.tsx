import type { ReactNode } from 'react';
import type { Role } from '../../../shared/roles';

/**
 * Says once per view, quietly, why an action is missing: "{children} the operator role." `needed`
 * comes from `useRoleNeeded`: null when the caller may, or is not known yet (the role is not guessed).
 */
export function RoleNote({ needed, children, testId, className = '' }: { needed: Role | null; children: ReactNode; testId?: string; className?: string }) {
  if (needed === null) return null;
  return (
    <p className={`muted small role-note ${className}`.trimEnd()} data-testid={testId}>
      {children} the {needed} role.
    </p>
  );
}
