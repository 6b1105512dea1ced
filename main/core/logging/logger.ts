import { join } from 'node:path';
import { LogFile } from './log-file';
import { formatEntry, logSafe } from './log-text';

/** The levels Loopdeck logs at, most severe first; a logger at `info` writes error, warn and info. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level when neither the caller nor `LOOPDECK_LOG_LEVEL` says otherwise. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
/** A log file past this size is rotated: 5 MB. */
export const DEFAULT_LOG_MAX_BYTES = 5 * 1024 * 1024;
/** How many files a log keeps, the live one included: 5 (at most 25 MB in all). */
export const DEFAULT_LOG_FILES = 5;
/** The environment variable that sets the level (error, warn, info, debug). */
export const LOG_LEVEL_ENV = 'LOOPDECK_LOG_LEVEL';

/** What the product logs through; `err`, when given, is written with its stack (and its causes'). */
export interface Logger {
  error(message: string, err?: unknown): void;
  warn(message: string, err?: unknown): void;
  info(message: string, err?: unknown): void;
  debug(message: string, err?: unknown): void;
  /** The live log file, or null for a logger that writes no file. */
  readonly file: string | null;
  readonly level: LogLevel;
}

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** The data folder: the log is `<dataDir>/logs/loopdeck.log`. */
  readonly dataDir: string;
  /** Lowest level written; `LOOPDECK_LOG_LEVEL`, else info, by default. */
  readonly level?: LogLevel;
  /** Rotate past this many bytes (DEFAULT_LOG_MAX_BYTES). */
  readonly maxBytes?: number;
  /** Files kept, the live one included (DEFAULT_LOG_FILES). */
  readonly files?: number;
  /**
   * Also copy lines at this level or more severe to stderr (serve mode's terminal). Never stdout:
   * the CLI's stdout is its output (`snapshot --json`). Off by default.
   */
  readonly stderrLevel?: LogLevel | false;
}

/** The log file inside a data folder. */
export function logFilePath(dataDir: string): string {
  return join(dataDir, 'logs', 'loopdeck.log');
}

/** Whether a string names a level. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * The level `LOOPDECK_LOG_LEVEL` asks for, or the default with a problem naming the variable when
 * it holds something else (the caller logs it once the log is open).
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): { readonly level: LogLevel; readonly problem?: string } {
  const raw = env[LOG_LEVEL_ENV]?.trim().toLowerCase();
  if (!raw) return { level: DEFAULT_LOG_LEVEL };
  if (isLogLevel(raw)) return { level: raw };
  return {
    level: DEFAULT_LOG_LEVEL,
    problem: `${LOG_LEVEL_ENV}=${JSON.stringify(env[LOG_LEVEL_ENV])} is not a level (${LOG_LEVELS.join(', ')}); logging at ${DEFAULT_LOG_LEVEL}.`,
  };
}

const severity = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

/**
 * A logger writing `<dataDir>/logs/loopdeck.log`: each line is written synchronously, so a crash
 * still leaves the lines before it, and past `maxBytes` the file rotates to loopdeck.1.log …
 * keeping `files` files. A file that cannot be written (a read-only or full data folder) is said
 * once on stderr, its warnings and errors go to stderr meanwhile, and it is tried again every
 * LOG_RETRY_MS (see LogFile); writing it never throws.
 */
export function createLogger(options: LoggerOptions): Logger {
  const file = logFilePath(options.dataDir);
  const level = options.level ?? logLevelFromEnv().level;
  const stderrLevel = options.stderrLevel ?? false;
  const logFile = new LogFile(file, {
    maxBytes: options.maxBytes ?? DEFAULT_LOG_MAX_BYTES,
    files: Math.max(1, options.files ?? DEFAULT_LOG_FILES),
    report: (line) => process.stderr.write(`loopdeck: log: ${logSafe(line)}\n`),
  });
  const write = (at: LogLevel) => (message: string, err?: unknown): void => {
    const text = formatEntry(message, err);
    const written = severity(at) > severity(level) || logFile.append(`${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${text}\n`);
    // Serve mode's terminal gets warnings and errors anyway; while the file cannot be written, so does any command's.
    const copied = stderrLevel !== false && severity(at) <= severity(stderrLevel);
    if (copied || (!written && severity(at) <= severity('warn'))) process.stderr.write(`loopdeck: ${text}\n`);
  };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug'), file, level };
}

/**
 * A logger for before a data folder is known (and for tests that install none): warnings and
 * errors go to stderr, as `console.error` did; nothing goes to stdout.
 */
export function stderrLogger(level: LogLevel = 'warn'): Logger {
  const write = (at: LogLevel) => (message: string, err?: unknown): void => {
    if (severity(at) <= severity(level)) process.stderr.write(`loopdeck: ${formatEntry(message, err)}\n`);
  };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug'), file: null, level };
}
