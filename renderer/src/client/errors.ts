import type { RpcError, RpcErrorCode } from '../../../shared/contract';
import { messageOf } from '../../../shared/errors';

/** Error codes the client adds to the contract's: transport failures and malformed answers. */
export type RpcClientErrorCode = RpcErrorCode | 'disconnected' | 'transport' | 'invalid-output';

/** Where in the input a validation issue is, and what was expected. */
export type RpcIssue = NonNullable<RpcError['issues']>[number];

/** A failed command call: the contract's typed error, or a transport failure, as one class. */
export class RpcClientError extends Error {
  override readonly name = 'RpcClientError';
  readonly code: RpcClientErrorCode;
  readonly issues: readonly RpcIssue[];

  constructor(code: RpcClientErrorCode, message: string, issues: readonly RpcIssue[] = []) {
    super(message);
    this.code = code;
    this.issues = issues;
  }
}

/** A person-readable one-liner for any error a command call can throw. */
export function describeError(err: unknown): string {
  if (err instanceof RpcClientError) {
    const where = err.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    return where ? `${err.message} (${where})` : err.message;
  }
  return messageOf(err);
}
