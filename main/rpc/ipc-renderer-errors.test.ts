import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RENDERER_ERRORS_PER_MINUTE } from '../../shared/contract';
import { createSession } from '../core/session/session';
import { useLogger } from '../core/logging/log';
import { createLogger, logFilePath } from '../core/logging/logger';
import { createInMemoryIpcPair } from '../../testing/in-memory-ipc';

describe('renderer errors over the Electron IPC transport', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ld-ipc-rerr-'));
  const restore = useLogger(createLogger({ dataDir, level: 'info' }));
  afterAll(() => restore());

  it('lands in the log, and the window is rate-limited like a serve client', async () => {
    const core = createSession({ configPath: join(dataDir, 'absent.yaml'), dataDir, shell: 'electron' });
    const pair = createInMemoryIpcPair(core.handlers);
    const answers = [];
    for (let i = 0; i < RENDERER_ERRORS_PER_MINUTE + 3; i++) {
      answers.push(await pair.bridge.invoke('log.error', { message: `render failed ${i}`, stack: `Error: render failed ${i}\n    at App`, source: 'unhandledrejection' }));
    }
    pair.close();
    expect(answers.filter((a) => a.ok && (a.output as { logged: boolean }).logged)).toHaveLength(RENDERER_ERRORS_PER_MINUTE);
    const text = readFileSync(logFilePath(dataDir), 'utf8');
    expect(text).toContain('ERROR renderer: render failed 0 (unhandledrejection)\n    Error: render failed 0\n        at App');
    expect(text).toContain('log.error from the window: more than 20 calls in 60 s');
  });
});
