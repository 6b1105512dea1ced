import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, type Session } from '../main/core/session/session';
import { createRunnerFixture, type RunnerFixture } from './runner-fixture';

/** A status stamp line as the runner writes it (`<phase> <ISO time> <STATUS>`). */
export const stamp = (phase: string, at: string, status: string): string => `${phase} ${at} ${status}\n`;

/**
 * The night the maintenance tests run on (2026-11-29, one local host): the reliability loop, a
 * testing loop beside it (the fence a window's scope leaves out), and a nightly loop that fires at
 * 01:30 with a 1-h grace whose cycle for that night never comes (missed, unless a window covers
 * the fire). `extra` is the rest of the config (`notify:`, `maintenance:`).
 */
export function maintenanceNight(extra: string): { fx: RunnerFixture; testing: (name: string, text: string) => void } {
  const fx = createRunnerFixture();
  const testingRuns = join(fx.dir, 'testing-runs');
  mkdirSync(join(testingRuns, '2026-11-29'), { recursive: true });
  const nightlyRuns = join(fx.dir, 'nightly-runs');
  mkdirSync(join(nightlyRuns, '2026-11-28'), { recursive: true });
  writeFileSync(join(nightlyRuns, '2026-11-28', 'audit.status'), stamp('audit', '2026-11-28T01:30:00+00:00', 'STARTED') + stamp('audit', '2026-11-28T02:00:00+00:00', 'OK'));
  writeFileSync(
    fx.configPath,
    `hosts:\n  runner: { local: true }\nloops:\n  reliability: { host: runner, runs: ${JSON.stringify(fx.runs)}, cap: 20h }\n  testing: { host: runner, runs: ${JSON.stringify(testingRuns)}, cap: 20h }\n` +
      `  nightly: { host: runner, runs: ${JSON.stringify(nightlyRuns)}, phases: [audit], schedule: "30 1 * * *", grace: 1h }\n${extra}`,
  );
  return { fx, testing: (name, text) => writeFileSync(join(testingRuns, '2026-11-29', name), text) };
}

/** The app core as serve runs it over `fx`'s config and data folder, on the clock `now`: started, and read once. */
export async function openServeSession(fx: RunnerFixture, now?: () => Date): Promise<Session> {
  const s = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, ...(now ? { now } : {}) });
  await s.start();
  await s.pollOnce();
  return s;
}
