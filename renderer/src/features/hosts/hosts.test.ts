import { describe, expect, it } from 'vitest';
import { host } from '../../ui/test-fixtures';
import { retryText } from './hosts';

describe('retryText', () => {
  const UTC = 'UTC';

  it('says since when and which attempt while reconnecting', () => {
    const h = host('mac', { kind: 'ssh', state: 'reconnecting', since: '2026-08-24T06:12:30Z', attempt: 3 });
    expect(retryText(h, UTC)).toBe('since 06:12 · attempt 3');
  });

  it('leaves out attempt 0 and a missing since', () => {
    expect(retryText(host('mac', { state: 'reconnecting', since: '2026-08-24T06:12:30Z', attempt: 0 }), UTC)).toBe('since 06:12');
    expect(retryText(host('mac', { state: 'unreachable', since: null, attempt: 2 }), UTC)).toBe('attempt 2');
    expect(retryText(host('mac', { state: 'reconnecting', since: null, attempt: 0 }), UTC)).toBeNull();
  });

  it('is null for states that are not retrying', () => {
    expect(retryText(host('runner'), UTC)).toBeNull();
    expect(retryText(host('mac', { state: 'untrusted', attempt: 1 }), UTC)).toBeNull();
  });
});
