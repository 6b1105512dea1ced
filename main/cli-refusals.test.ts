import { beforeAll, describe, expect, it } from 'vitest';
import { loopdeck } from '../testing/cli-run';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';

const DAY = '2026-08-23';

// Input the CLI once misread: a loop named like what every object has, a --grep of two lines, a
// drill argument named __proto__. Each is refused, naming what was wrong, and prints nothing.
describe('the CLI refuses names and patterns it would misread', () => {
  let fx: RunnerFixture;
  let flags: string[];
  beforeAll(() => {
    fx = createRunnerFixture('drills:\n  hello: { host: runner, command: "echo hello $LOOPDECK_ARG_MODE", timeout: 30s, args: { mode: [fast] } }\n');
    fx.write(DAY, 'audit.log', 'alpha\nbeta\n');
    flags = ['--config', fx.configPath, '--data', fx.dataDir];
  });

  it('loopdeck log answers "no loop named" for __proto__, constructor and toString, with the config\'s loops', async () => {
    const runs = [
      ['__proto__', DAY, 'audit'],
      ['__proto__', 'audit'],
      ['constructor', DAY, 'audit'],
      ['toString', DAY, 'audit'],
    ];
    const results = await Promise.all(runs.map((words) => loopdeck('log', ...words, ...flags)));
    for (const [i, r] of results.entries()) {
      const loop = runs[i]?.[0] ?? '';
      expect(r.stderr, runs[i]?.join(' ')).toContain(`No loop named ${loop} in the config (loops: reliability).`);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    }
  }, 60_000);

  it('loopdeck log --grep with a newline is refused naming --grep, as the WebSocket refuses it, and prints no line', async () => {
    const r = await loopdeck('log', 'reliability', DAY, 'audit', '--grep', 'alpha\nbeta', ...flags);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--grep: a query is one line, without NUL, got "alpha\\nbeta"');
    expect(r.stdout).toBe('');
  });

  it('loopdeck drill run refuses --arg __proto__=x as an argument the drill does not have, instead of dropping it', async () => {
    const r = await loopdeck('drill', 'run', 'hello', '--arg', '__proto__=x', '--yes', ...flags);
    expect(r.stderr).toContain('Drill hello has no argument "__proto__" (drills.hello.args).');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });
});
