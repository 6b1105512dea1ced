/**
 * The one rule for an error as a line of text, on both sides (main and renderer): an Error's
 * message, a string as it is, a plain object as JSON (when it can be written), anything else as
 * String(err). Not for the log: main/core/logging/log-text's describeError keeps stacks and causes.
 */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  if (err !== null && typeof err === 'object' && Object.getPrototypeOf(err) === Object.prototype) {
    try {
      const json = JSON.stringify(err);
      if (json !== undefined) return json;
    } catch {
      // a cycle or a BigInt: String below
    }
  }
  return String(err);
}
