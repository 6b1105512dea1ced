import { createRequire } from 'node:module';
import type * as Ssh2Module from 'ssh2';

type Ssh2 = typeof Ssh2Module;

let loaded: Ssh2 | null = null;

/**
 * ssh2, loaded on first use rather than at import: loading it (and its crypto) is ~60–100 ms
 * that a start would otherwise pay before the console is served, whether or not any host is
 * reached over SSH.
 */
export function ssh2(): Ssh2 {
  loaded ??= createRequire(import.meta.url)('ssh2') as Ssh2;
  return loaded;
}
