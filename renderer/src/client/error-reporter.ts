import type { LoopdeckClient } from './client';

/** Reports sent per page load at most: past it a page in an error loop stops sending (main limits too). */
export const MAX_REPORTS_PER_PAGE = 200;

/** The part of `window` the reporter listens on. */
export type ErrorEventSource = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;

function textOf(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function stackOf(value: unknown): string | undefined {
  return value instanceof Error && typeof value.stack === 'string' ? value.stack : undefined;
}

/**
 * Send the page's uncaught errors (window `error`, which React's uncaught render errors reach too)
 * and unhandled promise rejections to main's log with `log.error`. A report that cannot be sent
 * is dropped silently: reporting must never raise an error of its own. Returns a function that
 * stops listening.
 */
export function reportRendererErrors(client: Pick<LoopdeckClient, 'invoke'>, target: ErrorEventSource = window): () => void {
  let sent = 0;
  const send = (message: string, stack: string | undefined, source: string): void => {
    if (sent >= MAX_REPORTS_PER_PAGE) return;
    sent += 1;
    try {
      client.invoke('log.error', { message, source, ...(stack ? { stack } : {}) }).catch(() => undefined);
    } catch {
      // The client itself threw: nothing more to do.
    }
  };
  const onError = (event: Event): void => {
    const e = event as Partial<ErrorEvent>;
    const where = e.filename ? `${e.filename}:${e.lineno ?? 0}:${e.colno ?? 0}` : 'window error';
    send(e.message || textOf(e.error), stackOf(e.error), where);
  };
  const onRejection = (event: Event): void => {
    const reason = (event as Partial<PromiseRejectionEvent>).reason;
    send(`unhandled rejection: ${textOf(reason)}`, stackOf(reason), 'unhandledrejection');
  };
  target.addEventListener('error', onError);
  target.addEventListener('unhandledrejection', onRejection);
  return () => {
    target.removeEventListener('error', onError);
    target.removeEventListener('unhandledrejection', onRejection);
  };
}
