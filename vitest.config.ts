import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'main/**/*.test.ts', 'renderer/src/**/*.test.ts', 'tools/**/*.test.ts'],
    environment: 'node',
    // A limit for a hang, not a measurement: with 4 files at once on a busy 2-core machine, a 5-s
    // test can take 30.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The slow files wait on sshd, child processes and timers, not on the CPU (each has its own
    // ports, folders and sshd): twice as many at once as there are cores, 4 to 8.
    maxWorkers: Math.min(8, Math.max(4, 2 * availableParallelism())),
    // The CLI the tests start, bundled once from the sources (testing/test-cli.ts).
    globalSetup: ['testing/test-cli.ts'],
    // The database schema, installed as the app installs it (testing/schema.ts).
    setupFiles: ['testing/schema.ts'],
  },
});
