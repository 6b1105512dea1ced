import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../../shared/roles';
import { describeError, RpcClientError } from './errors';

describe('describeError', () => {
  it('shows a forbidden refusal as the server words it: the command, the role it needs, and who asked', () => {
    const message = refusalOf({ user: 'vera', role: 'viewer', via: 'proxy' }, 'notices.ack') ?? '';
    expect(describeError(new RpcClientError('forbidden', message))).toBe('notices.ack needs the operator role; vera is a viewer.');
    const admin = refusalOf({ user: 'olive', role: 'operator', via: 'oidc' }, 'drills.run') ?? '';
    expect(describeError(new RpcClientError('forbidden', admin))).toBe('drills.run needs the admin role; olive is an operator.');
  });
});
