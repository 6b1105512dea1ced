import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useLogger } from '../core/logging/log';
import { createLogger, logFilePath } from '../core/logging/logger';
import { fakeHandlers } from '../../testing/fake-handlers';
import { dispatch } from './dispatch';
import { handlersForClient } from './rate-limit';
import { TEST_CALLER } from '../../testing/callers';

describe('handlersForClient', () => {
  let restore = (): void => undefined;
  afterEach(() => restore());

  it('passes 20 renderer errors a minute, drops the rest, and logs the drop and then how many', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-limit-'));
    restore = useLogger(createLogger({ dataDir: dir, level: 'info' }));
    let handled = 0;
    let t = 1_000_000;
    const handlers = handlersForClient(fakeHandlers({ 'log.error': () => ({ logged: (handled++, true) }) }), 'the window', () => t);
    const send = async (): Promise<unknown> => dispatch(handlers, 'log.error', { message: 'boom' }, TEST_CALLER);
    for (let i = 0; i < 20; i++) expect(await send()).toEqual({ ok: true, output: { logged: true } });
    for (let i = 0; i < 7; i++) expect(await send()).toEqual({ ok: true, output: { logged: false } });
    expect(handled).toBe(20);
    t += 59_999;
    expect(await send()).toEqual({ ok: true, output: { logged: false } });
    t += 1;
    expect(await send()).toEqual({ ok: true, output: { logged: true } });
    expect(handled).toBe(21);
    const text = readFileSync(logFilePath(dir), 'utf8');
    expect(text.match(/more than 20 calls in 60 s/g)).toHaveLength(1);
    expect(text).toContain('log.error from the window: 8 call(s) were dropped over the limit of 20 in 60 s.');
  });

  it('leaves every other command alone', async () => {
    const handlers = handlersForClient(fakeHandlers(), 'the window', () => 0);
    for (let i = 0; i < 50; i++) expect((await dispatch(handlers, 'hosts.untrust', { host: 'h' }, TEST_CALLER)).ok).toBe(true);
  });
});
