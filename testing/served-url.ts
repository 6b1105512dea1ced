import type { ChildProcess } from 'node:child_process';

/** What `loopdeck serve` and `loopdeck demo` print once they listen (main/cli-serve.ts). */
export const SERVING_AT = /serving at (http:\/\/\S+)/;

/** Output kept once the URL is found: the pipes stay drained, and an error can quote the end. */
const KEEP_CHARS = 20_000;

/** The URL a `loopdeck serve` child printed, what else was asked for, and its output so far. */
export interface ServedUrl {
  readonly url: string;
  /** The first group of each `also` pattern, in order. */
  readonly also: readonly string[];
  /** Everything printed until the URL, then the last KEEP_CHARS characters. */
  readonly output: () => string;
}

/**
 * Wait until a `loopdeck serve` (or `demo`) child has printed the URL it serves at, and every
 * `also` pattern: rejects when it exits first or after `timeoutMs`, quoting what it printed. Its
 * stdout and stderr are read until it exits, so neither pipe fills.
 */
export function servedUrl(child: ChildProcess, options: { readonly timeoutMs?: number; readonly also?: readonly RegExp[]; readonly name?: string } = {}): Promise<ServedUrl> {
  const { timeoutMs = 30_000, also = [], name = 'loopdeck serve' } = options;
  let output = '';
  let found = false;
  return new Promise<ServedUrl>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} printed no URL within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      if (found) {
        output = (output + chunk.toString()).slice(-KEEP_CHARS);
        return;
      }
      output += chunk.toString();
      const url = SERVING_AT.exec(output)?.[1];
      const more = also.map((p) => p.exec(output)?.[1]);
      if (!url || more.some((m) => m === undefined)) return;
      found = true;
      clearTimeout(timer);
      resolve({ url, also: more as string[], output: () => output });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`${name} exited (${code ?? signal}) before it printed its URL:\n${output}`));
    });
  });
}
