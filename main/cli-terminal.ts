/** What the CLI asks and prints on the terminal (prompts, the plain snapshot). */
import { createInterface } from 'node:readline/promises';
import type { Snapshot } from '../shared/domain';
import { logSafe } from './core/logging/log-text';

/** Ask a question on the terminal; the answer, trimmed. */
export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** Ask a yes/no question on the terminal: true only for y or yes. */
export async function confirm(question: string): Promise<boolean> {
  return /^y(es)?$/i.test(await ask(question));
}

/** `loopdeck snapshot` without --json: each loop's cycles and phases, then the problems (escaped as the log escapes them). */
export function printSnapshot(snap: Snapshot): void {
  for (const loop of snap.loops) {
    console.log(`${loop.name} (host ${loop.host})`);
    for (const cycle of loop.cycles) {
      const phases = cycle.phases.map((p) => `${p.name}=${p.status}`).join('  ');
      console.log(`  ${cycle.date}  ${cycle.status.padEnd(10)}  ${phases}`);
    }
  }
  for (const p of snap.problems) console.log(logSafe(`problem: ${p.source}${p.line === null ? '' : `:${p.line}`}: ${p.message}`));
}
