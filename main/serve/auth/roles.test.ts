import { describe, expect, it } from 'vitest';
import { roleOf } from './roles';

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

  it('refuses someone in no list', () => {
    expect(roleOf({ admin: ['alice'], operator: [], viewer: [] }, 'eve', ['ops'])).toBeNull();
  });
});
