import { describe, expect, it } from 'vitest';
import { noRoleMessage, roleOf } from './roles';

describe('roleOf', () => {
  const roles = { admin: ['alice'], operator: ['group:ops', 'bob'], viewer: ['*'] };

  it('gives the strongest role a user is listed in, by name or through a group', () => {
    expect(roleOf(roles, 'alice', ['ops'])).toBe('admin');
    expect(roleOf(roles, 'bob', [])).toBe('operator');
    expect(roleOf(roles, 'carol', ['night', 'ops'])).toBe('operator');
    expect(roleOf(roles, 'dave', ['night'])).toBe('viewer');
  });

  it('never reads a group as a user, or a user as a group', () => {
    const strict = { admin: ['ops'], operator: ['group:alice'], viewer: [] };
    expect(roleOf(strict, 'alice', [])).toBeNull();
    expect(roleOf(strict, 'carol', ['ops'])).toBeNull();
    expect(roleOf(strict, 'ops', [])).toBe('admin');
  });

  it('keeps user names and groups apart: a user named group:admins is not in group admins', () => {
    const team = { admin: ['group:admins'], operator: ['group:ops'], viewer: [] };
    expect(roleOf(team, 'group:admins', [])).toBeNull();
    expect(roleOf(team, 'group:admins', ['ops'])).toBe('operator');
    expect(roleOf(team, 'group:ops', ['admins'])).toBe('admin');
    // An entry that is not `group:` or `*` names a user only, exactly.
    expect(roleOf({ admin: ['group:'], operator: [], viewer: [] }, 'x', [''])).toBeNull();
    expect(roleOf({ admin: ['Alice'], operator: [], viewer: [] }, 'alice', [])).toBeNull();
  });

  it('gives a user named * no more than * gives everyone signed in', () => {
    expect(roleOf({ admin: ['alice'], operator: ['group:*'], viewer: [] }, '*', [])).toBeNull();
    expect(roleOf({ admin: ['alice'], operator: [], viewer: ['*'] }, '*', [])).toBe('viewer');
  });

  it('tells how to give a role to a user whose name starts with group:', () => {
    expect(noRoleMessage('group:admins', [])).toBe('group:admins (no groups) is in none of serve.auth.roles\' admin, operator or viewer lists; a user name starting with "group:" cannot be listed by name, so give them a role through one of their groups.');
  });

  it('refuses someone in no list', () => {
    expect(roleOf({ admin: ['alice'], operator: [], viewer: [] }, 'eve', ['ops'])).toBeNull();
  });
});
