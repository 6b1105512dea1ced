import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs } from '../../../testing/tmpfs';
import { log, useLogger } from './log';
import { createLogger, logFilePath, logLevelFromEnv } from './logger';
import { archivePath } from './rotate';

const dataDir = (): string => mkdtempSync(join(tmpdir(), 'ld-log-'));

describe('createLogger', () => {
  it('creates logs/loopdeck.log in the data folder and writes an error with its stack and cause', () => {
    const dir = dataDir();
    const logger = createLogger({ dataDir: dir, level: 'info' });
    expect(logger.file).toBe(join(dir, 'logs', 'loopdeck.log'));
    function failingStep(): never {
      throw new Error('the store is locked', { cause: new Error('SQLITE_BUSY') });
    }
    try {
      failingStep();
    } catch (err) {
      logger.error('poll failed', err);
    }
    const text = readFileSync(logFilePath(dir), 'utf8');
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ERROR poll failed\n {4}Error: the store is locked\n {8}at failingStep /);
    // Every line after the first is indented: only an entry's first line starts with its time.
    expect(text).toContain('\n    Caused by: Error: SQLITE_BUSY');
  });

  it('writes each line before returning, so a crash right after still leaves it', () => {
    const dir = dataDir();
    const logger = createLogger({ dataDir: dir, level: 'info' });
    logger.warn('first');
    expect(readFileSync(logFilePath(dir), 'utf8')).toContain('WARN  first');
    logger.info('second');
    expect(readFileSync(logFilePath(dir), 'utf8')).toContain('INFO  second');
  });

  it('leaves out lines below its level', () => {
    const dir = dataDir();
    const logger = createLogger({ dataDir: dir, level: 'warn' });
    logger.info('routine');
    logger.debug('detail');
    logger.warn('worth a look');
    const text = readFileSync(logFilePath(dir), 'utf8');
    expect(text).not.toContain('routine');
    expect(text).not.toContain('detail');
    expect(text).toContain('worth a look');
  });

  it('rotates past the size limit into loopdeck.1.log, .2.log …, keeping the given number of files', () => {
    const dir = dataDir();
    const logger = createLogger({ dataDir: dir, level: 'info', maxBytes: 1000, files: 3 });
    for (let i = 0; i < 100; i++) logger.info(`line ${String(i).padStart(3, '0')} ${'x'.repeat(60)}`);
    const file = logFilePath(dir);
    expect(readdirSync(join(dir, 'logs')).sort()).toEqual(['loopdeck.1.log', 'loopdeck.2.log', 'loopdeck.log']);
    for (const f of [file, archivePath(file, 1), archivePath(file, 2)]) expect(statSync(f).size).toBeLessThan(1000 + 200);
    // Newest in the live file, older ones in .1 then .2; the oldest lines are gone.
    expect(readFileSync(file, 'utf8')).toContain('line 099');
    const last = (f: string): number => Number(/line (\d+)/.exec(readFileSync(f, 'utf8').trim().split('\n').at(-1) ?? '')?.[1]);
    expect(last(archivePath(file, 2))).toBeLessThan(last(archivePath(file, 1)));
    expect(last(archivePath(file, 1))).toBeLessThan(99);
    expect(readFileSync(archivePath(file, 2), 'utf8')).not.toContain('line 000');
    expect(existsSync(archivePath(file, 3))).toBe(false);
  });
});

describe('logLevelFromEnv', () => {
  it('takes LOOPDECK_LOG_LEVEL, whatever its case, and defaults to info', () => {
    expect(logLevelFromEnv({ LOOPDECK_LOG_LEVEL: 'DEBUG' })).toEqual({ level: 'debug' });
    expect(logLevelFromEnv({})).toEqual({ level: 'info' });
  });

  it('names the variable when it holds something else', () => {
    const r = logLevelFromEnv({ LOOPDECK_LOG_LEVEL: 'verbose' });
    expect(r.level).toBe('info');
    expect(r.problem).toMatch(/LOOPDECK_LOG_LEVEL="verbose" is not a level \(error, warn, info, debug\)/);
  });
});

describe('log', () => {
  it('writes to the logger installed with useLogger, and to the previous one once that is undone', () => {
    const a = dataDir();
    const b = dataDir();
    const restoreA = useLogger(createLogger({ dataDir: a, level: 'info' }));
    const restoreB = useLogger(createLogger({ dataDir: b, level: 'info' }));
    log.info('to b');
    expect(log.file).toBe(logFilePath(b));
    restoreB();
    log.info('to a');
    restoreA();
    expect(readFileSync(logFilePath(b), 'utf8')).toContain('to b');
    expect(readFileSync(logFilePath(a), 'utf8')).toContain('to a');
    expect(readFileSync(logFilePath(a), 'utf8')).not.toContain('to b');
  });
});

const LOGGER_MODULE = fileURLToPath(new URL('./logger.ts', import.meta.url));

/** Run `body` in a child process with `createLogger` and `stderrLogger` in scope; its stderr. */
function runLogging(body: string): string {
  const script = join(dataDir(), 'log.ts');
  writeFileSync(script, `import { createLogger, stderrLogger } from ${JSON.stringify(LOGGER_MODULE)};\n${body}\n`);
  return spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 }).stderr;
}

// Raw control characters (but the newline that ends a line) and bidi controls.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('what is logged escapes control characters', () => {
  const hostile = 'host ev\x1b[2Jil\x00 says\rFAKE 2026-01-01T00:00:00.000Z ERROR forged\u202Eoh\u009b31m';

  it('in the file and on stderr, message and error alike, each line of an entry indented past its first', () => {
    const dir = dataDir();
    const stderr = runLogging(
      [
        `const logger = createLogger({ dataDir: ${JSON.stringify(dir)}, level: 'info', stderrLevel: 'warn' });`,
        `const err = new Error(${JSON.stringify(`read ${hostile}`)});`,
        `logger.warn(${JSON.stringify(hostile)});`,
        `logger.error('poll failed', err);`,
        `stderrLogger().error(${JSON.stringify(`before the log: ${hostile}`)});`,
      ].join('\n'),
    );
    const file = readFileSync(logFilePath(dir), 'utf8');
    for (const [where, text, entry] of [['file', file, /^\d{4}-\d\d-\d\dT[\d:.]+Z (WARN |ERROR|INFO ) /], ['stderr', stderr, /^loopdeck: /]] as const) {
      expect(text, where).not.toMatch(RAW_CONTROL);
      expect(text, where).toContain('ev\\x1b[2Jil\\x00 says\n    FAKE 2026-01-01T00:00:00.000Z ERROR forged\\u202eoh\\u009b31m');
      const lines = text.trimEnd().split('\n');
      // No line passes for an entry of its own: each is an entry's first line, or indented.
      expect(lines.filter((l) => !entry.test(l) && !l.startsWith('    ')), where).toEqual([]);
      expect(lines.filter((l) => entry.test(l)), where).toHaveLength(where === 'file' ? 2 : 3);
      expect(text, where).toMatch(/poll failed\n {4}Error: read host ev\\x1b\[2Jil\\x00 says\n {4}FAKE [^\n]*\n {8}at /);
    }
  });
});

describe('a log file that cannot be written', () => {
  let readOnly: Tmpfs;
  beforeAll(() => {
    readOnly = mountTmpfs(64 * 1024, { readOnly: true });
  });
  afterAll(() => readOnly?.unmount());

  it('is said once on stderr, without a stack, and warnings and errors go there meanwhile', () => {
    const stderr = runLogging(
      [
        `const logger = createLogger({ dataDir: ${JSON.stringify(readOnly.dir)}, level: 'info' });`,
        `for (let i = 0; i < 5; i++) logger.info('routine ' + i);`,
        `logger.warn('careful');`,
        `logger.error('broken');`,
      ].join('\n'),
    );
    const file = logFilePath(readOnly.dir);
    expect(stderr).toBe(
      [
        `loopdeck: log: cannot write ${file}: EROFS: read-only file system, mkdir '${join(readOnly.dir, 'logs')}'; logging warnings and errors to stderr only, and trying the file again every 60 s.`,
        'loopdeck: careful',
        'loopdeck: broken',
        '',
      ].join('\n'),
    );
  });
});
