import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway runner folder with a config pointing at it, for integration tests. */
export interface RunnerFixture {
  readonly dir: string;
  readonly runs: string;
  readonly configPath: string;
  readonly dataDir: string;
  /** Write (replace) a file of a cycle. */
  write(date: string, name: string, text: string): void;
  /** Append to a file of a cycle. */
  append(date: string, name: string, text: string): void;
}

/** Create a runner folder and a config with one local host and one loop (`reliability`). */
export function createRunnerFixture(extraConfig = ''): RunnerFixture {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-fixture-'));
  const runs = join(dir, 'runs');
  mkdirSync(runs);
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    phases: [audit, remediate, deliver]\n    cap: 20h\n${extraConfig}`,
  );
  const cycle = (date: string): string => {
    const d = join(runs, date);
    mkdirSync(d, { recursive: true });
    return d;
  };
  return {
    dir,
    runs,
    configPath,
    dataDir: join(dir, 'data'),
    write: (date, name, text) => writeFileSync(join(cycle(date), name), text),
    append: (date, name, text) => appendFileSync(join(cycle(date), name), text),
  };
}
