import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the copy of the reliability loop's manual (shared/reference/reliability-loop-skill.txt, verbatim) is kept for tests. */
export const MANUAL_PATH = join(import.meta.dirname, 'fixtures', 'reliability-loop-skill.txt');

/**
 * The reliability loop's manual, verbatim: the agent `cat`s it into its own transcript, so it is
 * the hostile prose a transcript reader meets (column-0 example declarations, a sentence about a
 * subagent killed by the stream watchdog, a 20 KB line).
 */
export function referenceManual(): string {
  return readFileSync(MANUAL_PATH, 'utf8');
}
