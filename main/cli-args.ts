import type { parseArgs } from 'node:util';

// The CLI's flags and the errors meant for the operator: all that `serve` needs of the CLI before
// it listens (cli-common.ts, which opens a core, is loaded only by the verbs that read the runner).

export const OPTIONS = {
  config: { type: 'string' },
  data: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  now: { type: 'string' },
  since: { type: 'string' },
  markdown: { type: 'boolean', default: false },
  speed: { type: 'string' },
  yes: { type: 'boolean', default: false },
  arg: { type: 'string', multiple: true },
  override: { type: 'boolean', default: false },
  lines: { type: 'string' },
  nights: { type: 'string' },
  from: { type: 'string' },
  grep: { type: 'string' },
  follow: { type: 'boolean', default: false },
  raw: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The merge desk's flags (`prs`, `merge`). */
export const DESK_OPTIONS = {
  sha: { type: 'string' },
  method: { type: 'string' },
} as const;

export type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** How long `snapshot` and `trust` wait for SSH hosts to connect. */
export const CONNECT_TIMEOUT_MS = 15_000;

/** A failure meant for the operator: printed without a stack, with this exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** `--port`, or 0 (a free one). */
export function portOf(flags: Flags): number {
  if (flags.port === undefined) return 0;
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port: expected a port number, got ${JSON.stringify(flags.port)}`);
  return port;
}

