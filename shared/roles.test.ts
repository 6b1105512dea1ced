import { describe, expect, it } from 'vitest';
import { commands } from './contract';
import { COMMAND_ROLES, mayRun, refusalOf, type ROLES } from './roles';

describe('roles', () => {
  it('give every command of the contract a role, reading to viewers and changes above them', () => {
    expect(Object.keys(COMMAND_ROLES).sort()).toEqual(Object.keys(commands).sort());
    const of = (role: (typeof ROLES)[number]): string[] => Object.keys(COMMAND_ROLES).filter((c) => COMMAND_ROLES[c as keyof typeof COMMAND_ROLES] === role).sort();
    expect(of('operator')).toEqual(['maintenance.add', 'maintenance.end', 'notices.ack', 'notices.snooze', 'prs.merge', 'prs.nextDone', 'review.mark']);
    expect(of('admin')).toEqual(['demo.start', 'drills.cancel', 'drills.run', 'hosts.trust', 'hosts.unlock', 'hosts.untrust']);
  });

  it('include the ones below them', () => {
    expect(mayRun('admin', 'notices.ack')).toBe(true);
    expect(mayRun('operator', 'notices.ack')).toBe(true);
    expect(mayRun('viewer', 'notices.ack')).toBe(false);
    expect(mayRun('operator', 'drills.run')).toBe(false);
    expect(mayRun('viewer', 'transcript.lines')).toBe(true);
  });

  it('say what a refused caller lacks', () => {
    expect(refusalOf({ user: 'vera', role: 'viewer', via: 'oidc' }, 'review.mark')).toBe('review.mark needs the operator role; vera is a viewer.');
    expect(refusalOf({ user: 'olive', role: 'operator', via: 'proxy' }, 'hosts.trust')).toBe('hosts.trust needs the admin role; olive is an operator.');
    expect(refusalOf({ user: 'olive', role: 'operator', via: 'proxy' }, 'notices.snooze')).toBeNull();
  });
});
