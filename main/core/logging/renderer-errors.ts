import type { CommandInput, CommandOutput } from '../../../shared/contract';
import { log } from './log';

/**
 * The core's `log.error` handler: an error the renderer caught, written to main's log with its
 * stack. The logger escapes what the page sent and indents its continuation lines (logSafe).
 */
export function logRendererError(report: CommandInput<'log.error'>): CommandOutput<'log.error'> {
  const where = report.source ? ` (${report.source})` : '';
  const stack = report.stack ? `\n${report.stack}` : '';
  log.error(`renderer: ${report.message}${where}${stack}`);
  return { logged: true };
}
