import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ERROR poll failed\nError: the store is locked\n\s+at failingStep /);
    expect(text).toContain('Caused by: Error: SQLITE_BUSY');
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
