import type { z } from 'zod';
import {
  commands,
  type CommandName,
  type Handlers,
  type RpcError,
  type RpcResult,
} from '../../shared/contract';
import { refusalOf, type Caller } from '../../shared/roles';
import { messageOf } from '../../shared/errors';

/** The handler table belongs to the contract (the core implements it without importing main/rpc); re-exported for the transports. */
export type { Handlers };

/** An error a handler throws on purpose, with a message meant for a person. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
}

function isCommandName(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(commands, name);
}

function issuesOf(error: z.ZodError): NonNullable<RpcError['issues']> {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(input)', message: i.message }));
}

/**
 * Validate and run one command for `caller`. A pure function of (handlers, name, raw input,
 * caller): both transports call it, and it never throws — every failure comes back as a typed
 * error. A command the caller's role does not allow is refused (`forbidden`, 403, naming the role
 * needed) before its input is looked at.
 */
export async function dispatch(handlers: Handlers, name: unknown, rawInput: unknown, caller: Caller): Promise<RpcResult> {
  if (typeof name !== 'string' || !isCommandName(name)) {
    return { ok: false, error: { code: 'unknown-command', message: `Unknown command ${JSON.stringify(name)}.` } };
  }
  const refused = refusalOf(caller, name);
  if (refused !== null) return { ok: false, error: { code: 'forbidden', status: 403, message: refused } };
  const parsed = commands[name].input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      error: { code: 'invalid-input', message: `Invalid input for ${name}.`, issues: issuesOf(parsed.error) },
    };
  }
  try {
    const handler = handlers[name] as (input: unknown, caller: Caller) => unknown;
    const output = await handler(parsed.data, caller);
    return { ok: true, output };
  } catch (err) {
    const message = messageOf(err);
    return { ok: false, error: { code: 'handler-failed', message: `${name} failed: ${message}` } };
  }
}
