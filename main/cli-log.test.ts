import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SnapshotSchema } from '../shared/domain';
import { createRunnerFixture } from '../testing/runner-fixture';
import { LOOPDECK_BIN } from '../testing/cli-run';

const run = promisify(execFile);
const BIN = LOOPDECK_BIN;

describe('the CLI and the log file', () => {
  it('snapshot --json prints the snapshot alone on stdout, and logs to the data folder', async () => {
    const fx = createRunnerFixture();
    fx.write('2026-08-23', 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41:12-04:00 OK\n');
    const { stdout, stderr } = await run(process.execPath, [BIN, 'snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', '2026-08-23T09:00:00Z', '--json'], {
      timeout: 30_000,
      // debug: the most the log can say, and still none of it on stdout or stderr.
      env: { ...process.env, LOOPDECK_LOG_LEVEL: 'debug' },
    });
    expect(stderr).toBe('');
    // Exactly the snapshot, as JSON.stringify(snap, null, 2) prints it: no log line before or after.
    const snap = SnapshotSchema.parse(JSON.parse(stdout));
    expect(stdout).toBe(`${JSON.stringify(JSON.parse(stdout), null, 2)}\n`);
    expect(snap.loops[0]?.cycles[0]?.date).toBe('2026-08-23');
    const log = readFileSync(join(fx.dataDir, 'logs', 'loopdeck.log'), 'utf8');
    expect(log).toMatch(/INFO {2}Loopdeck \S+ snapshot started \(pid \d+, log level debug\)/);
  });

  it('a bad LOOPDECK_LOG_LEVEL is logged naming the variable, not printed', async () => {
    const fx = createRunnerFixture();
    const { stdout, stderr } = await run(process.execPath, [BIN, 'snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--json'], {
      timeout: 30_000,
      env: { ...process.env, LOOPDECK_LOG_LEVEL: 'loud' },
    });
    expect(stderr).toBe('');
    expect(() => JSON.parse(stdout)).not.toThrow();
    expect(readFileSync(join(fx.dataDir, 'logs', 'loopdeck.log'), 'utf8')).toContain('WARN  LOOPDECK_LOG_LEVEL="loud" is not a level');
  });
});
