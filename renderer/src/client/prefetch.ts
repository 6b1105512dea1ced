import type { CommandName, RpcResult } from '../../../shared/contract';
import type { Transport } from './types';

/** The commands of the store's first load, none with input: what the entry asks for before the app has loaded. */
export const FIRST_LOAD_COMMANDS = ['app.info', 'state.summary'] as const satisfies readonly CommandName[];

/** Answers asked for ahead of time, each handed out once (unvalidated: the client checks them like any answer). */
export interface Prefetch {
  /** The raw answer to `name` asked for ahead, once; undefined when there is none (any more). */
  take(name: string): Promise<RpcResult> | undefined;
}

/**
 * Ask for the first load's answers now, so the server works on them while the page evaluates
 * zod, the contract, React and the views. Only answers of the connection they were asked on are
 * handed out: once it closes they are forgotten (the load after the reconnect asks again).
 */
export function prefetchFirstLoad(transport: Transport): Prefetch {
  const answers = new Map<string, Promise<RpcResult>>();
  for (const name of FIRST_LOAD_COMMANDS) {
    const answer = transport.invoke(name, {});
    // Whoever takes it sees a failure; one nobody takes must not surface as an unhandled rejection.
    answer.catch(() => undefined);
    answers.set(name, answer);
  }
  const off = transport.onConnection((state) => {
    if (state === 'closed') {
      answers.clear();
      off();
    }
  });
  return {
    take(name) {
      const answer = answers.get(name);
      answers.delete(name);
      if (answers.size === 0) off();
      return answer;
    },
  };
}
