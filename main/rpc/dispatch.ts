import type { z } from 'zod';
import {
  commands,
  type CommandName,
  type Handlers,
  type RpcError,
  type RpcResult,
} from '../../shared/contract';

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
 * Validate and run one command. A pure function of (handlers, name, raw input): both transports
 * call it, and it never throws — every failure comes back as a typed error.
 */
export async function dispatch(handlers: Handlers, name: unknown, rawInput: unknown): Promise<RpcResult> {
  if (typeof name !== 'string' || !isCommandName(name)) {
    return { ok: false, error: { code: 'unknown-command', message: `Unknown command ${JSON.stringify(name)}.` } };
  }
  const parsed = commands[name].input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      error: { code: 'invalid-input', message: `Invalid input for ${name}.`, issues: issuesOf(parsed.error) },
    };
  }
  try {
    const handler = handlers[name] as (input: unknown) => unknown;
    const output = await handler(parsed.data);
    return { ok: true, output };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: { code: 'handler-failed', message: `${name} failed: ${message}` } };
  }
}
