import { describe, expect, it } from 'vitest';
import { MAX_REPORTS_PER_PAGE, reportRendererErrors } from './error-reporter';

function recorder(fail = false) {
  const calls: { name: string; input: unknown }[] = [];
  return {
    calls,
    invoke: ((name: string, input: unknown) => {
      calls.push({ name, input });
      return fail ? Promise.reject(new Error('socket closed')) : Promise.resolve({ logged: true });
    }) as never,
  };
}

const errorEvent = (init: { message: string; error?: unknown; filename?: string; lineno?: number; colno?: number }): Event =>
  Object.assign(new Event('error'), init);
const rejectionEvent = (reason: unknown): Event => Object.assign(new Event('unhandledrejection'), { reason });

describe('reportRendererErrors', () => {
  it('sends an uncaught error with its stack and where it was thrown', () => {
    const target = new EventTarget();
    const client = recorder();
    reportRendererErrors(client, target);
    const error = new TypeError('cycles is undefined');
    target.dispatchEvent(errorEvent({ message: 'Uncaught TypeError: cycles is undefined', error, filename: 'http://x/assets/i.js', lineno: 3, colno: 9 }));
    expect(client.calls).toEqual([
      { name: 'log.error', input: { message: 'Uncaught TypeError: cycles is undefined', stack: error.stack, source: 'http://x/assets/i.js:3:9' } },
    ]);
  });

  it('sends an unhandled rejection, an Error or any other value', () => {
    const target = new EventTarget();
    const client = recorder();
    reportRendererErrors(client, target);
    target.dispatchEvent(rejectionEvent(new Error('ledgers.page failed')));
    target.dispatchEvent(rejectionEvent({ code: 42 }));
    expect(client.calls.map((c) => c.input)).toEqual([
      expect.objectContaining({ message: 'unhandled rejection: Error: ledgers.page failed', source: 'unhandledrejection', stack: expect.stringContaining('ledgers.page failed') }),
      { message: 'unhandled rejection: {"code":42}', source: 'unhandledrejection' },
    ]);
  });

  it('swallows a report that cannot be sent, so reporting raises no error of its own', async () => {
    const target = new EventTarget();
    const client = recorder(true);
    reportRendererErrors(client, target);
    target.dispatchEvent(rejectionEvent('x'));
    await new Promise((r) => setTimeout(r, 0));
    expect(client.calls).toHaveLength(1);
  });

  it('stops after MAX_REPORTS_PER_PAGE reports, and when told to', () => {
    const target = new EventTarget();
    const client = recorder();
    const stop = reportRendererErrors(client, target);
    for (let i = 0; i < MAX_REPORTS_PER_PAGE + 10; i++) target.dispatchEvent(errorEvent({ message: `e${i}` }));
    expect(client.calls).toHaveLength(MAX_REPORTS_PER_PAGE);
    const other = recorder();
    reportRendererErrors(other, target)();
    stop();
    target.dispatchEvent(errorEvent({ message: 'after' }));
    expect(other.calls).toHaveLength(0);
  });
});
