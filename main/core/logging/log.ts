import { prepareDataFolder } from '../config/data-folder';
import { VERSION } from '../config/version';
import { createLogger, logLevelFromEnv, stderrLogger, type Logger, type LogLevel } from './logger';

let current: Logger = stderrLogger();

/**
 * The product's one logger: every module logs through it, and the shell that knows the data
 * folder (Electron's main, the CLI) installs the file logger with `useLogger`. Until then it
 * writes warnings and errors to stderr, so a test or a library caller loses nothing.
 */
export const log: Logger = {
  error: (message, err) => current.error(message, err),
  warn: (message, err) => current.warn(message, err),
  info: (message, err) => current.info(message, err),
  debug: (message, err) => current.debug(message, err),
  get file(): string | null {
    return current.file;
  },
  get level(): LogLevel {
    return current.level;
  },
};

/** Make `logger` the one `log` writes to; the returned function puts the previous one back. */
export function useLogger(logger: Logger): () => void {
  const previous = current;
  current = logger;
  return () => {
    if (current === logger) current = previous;
  };
}

/**
 * Open this process's log in its data folder (`<dataDir>/logs/loopdeck.log`, at the level
 * `LOOPDECK_LOG_LEVEL` gives) and make it the one `log` writes to. `what` names the process in
 * the first line ("electron", "serve", "snapshot"), so runs can be told apart in the file. Every
 * shell starts here, so a data folder that cannot be written is refused here, before anything is
 * written there: a DataFolderError naming it and saying what to do.
 */
export function startLogging(dataDir: string, what: string, options: { readonly stderrLevel?: LogLevel | false } = {}): Logger {
  prepareDataFolder(dataDir);
  const { level, problem } = logLevelFromEnv();
  const logger = createLogger({ dataDir, level, ...(options.stderrLevel !== undefined ? { stderrLevel: options.stderrLevel } : {}) });
  useLogger(logger);
  watchUncaught();
  if (problem) logger.warn(problem);
  logger.info(`Loopdeck ${VERSION} ${what} started (pid ${process.pid}, log level ${level})`);
  return logger;
}

let watchingUncaught = false;

/**
 * Log what is about to end the process (an uncaught exception, or a rejection Node treats as one)
 * with its stack. A monitor only: the process still ends (or Electron still shows its dialog) as
 * before; the line is written synchronously, so it is in the file when it does.
 */
function watchUncaught(): void {
  if (watchingUncaught) return;
  watchingUncaught = true;
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    log.error(origin === 'unhandledRejection' ? 'an unhandled rejection ends the process' : 'an uncaught exception ends the process', err);
  });
}
