import { describe, expect, it } from 'vitest';
import type { Caller, Role } from '../../../shared/roles';
import { emptyDeckData, type AppInfo } from './reducers';
import { selectCaller, selectMay, selectRoleNeeded, showsIdentity } from './roles';

const info = (role: Role, via: Caller['via'] = 'proxy', user = 'vera'): AppInfo => ({
  version: '0.1.0',
  shell: 'serve',
  config: { state: 'loaded', path: '/etc/loopdeck/config.yaml' },
  dataDir: '/tmp/d',
  demo: false,
  caller: { user, role, via },
});

const as = (role: Role) => ({ ...emptyDeckData, info: info(role) });

describe('selectMay', () => {
  it('allows nothing before app.info answered, reading included (nothing privileged shows, nothing is said)', () => {
    expect(selectCaller(emptyDeckData)).toBeNull();
    expect(selectMay(emptyDeckData, 'notices.ack')).toBe(false);
    expect(selectMay(emptyDeckData, 'state.snapshot')).toBe(false);
    expect(selectRoleNeeded(emptyDeckData, 'drills.run')).toBeNull();
  });

  it('a viewer reads, and may not acknowledge, snooze, mark reviewed, run or cancel drills, trust, untrust or unlock', () => {
    const s = as('viewer');
    for (const c of ['state.summary', 'ledgers.page', 'drills.output', 'transcript.open', 'log.error'] as const) expect(selectMay(s, c)).toBe(true);
    for (const c of ['notices.ack', 'notices.snooze', 'review.mark', 'drills.run', 'drills.cancel', 'hosts.trust', 'hosts.untrust', 'hosts.unlock', 'demo.start'] as const) {
      expect(selectMay(s, c)).toBe(false);
    }
    expect(selectRoleNeeded(s, 'notices.ack')).toBe('operator');
    expect(selectRoleNeeded(s, 'drills.run')).toBe('admin');
  });

  it('an operator acknowledges, snoozes and marks reviewed, and needs admin for drills and host keys', () => {
    const s = as('operator');
    for (const c of ['notices.ack', 'notices.snooze', 'review.mark'] as const) expect(selectMay(s, c)).toBe(true);
    for (const c of ['drills.run', 'drills.cancel', 'hosts.trust', 'hosts.untrust', 'hosts.unlock'] as const) expect(selectMay(s, c)).toBe(false);
    expect(selectRoleNeeded(s, 'review.mark')).toBeNull();
    expect(selectRoleNeeded(s, 'hosts.trust')).toBe('admin');
  });

  it('an admin may do everything', () => {
    const s = as('admin');
    for (const c of ['notices.ack', 'review.mark', 'drills.run', 'drills.cancel', 'hosts.trust', 'hosts.unlock', 'demo.start'] as const) {
      expect(selectMay(s, c)).toBe(true);
      expect(selectRoleNeeded(s, c)).toBeNull();
    }
  });
});

describe('showsIdentity', () => {
  it('names a person serve recognised (OIDC, a proxy), not the local account of the desktop or the token', () => {
    expect(showsIdentity(info('viewer', 'proxy').caller)).toBe(true);
    expect(showsIdentity(info('admin', 'oidc').caller)).toBe(true);
    expect(showsIdentity(info('admin', 'token').caller)).toBe(false);
    expect(showsIdentity(info('admin', 'desktop').caller)).toBe(false);
    expect(showsIdentity(null)).toBe(false);
  });
});
