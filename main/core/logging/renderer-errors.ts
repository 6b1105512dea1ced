import type { CommandInput, CommandOutput } from '../../../shared/contract';
import { log } from './log';

// Continuation lines are indented, so text a page sends cannot pass for a line of its own.
const indented = (text: string): string => text.replace(/\r\n?|\n/g, '\n    ');

/** The core's `log.error` handler: an error the renderer caught, written to main's log with its stack. */
export function logRendererError(report: CommandInput<'log.error'>): CommandOutput<'log.error'> {
  const where = report.source ? ` (${indented(report.source)})` : '';
  const stack = report.stack ? `\n    ${indented(report.stack)}` : '';
  log.error(`renderer: ${indented(report.message)}${where}${stack}`);
  return { logged: true };
}
