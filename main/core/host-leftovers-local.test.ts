import { afterEach, describe, it } from 'vitest';
import { inBatches, killAndExpectNothingLeft, killLaunched, launch, runner } from '../../testing/host-leftovers';

const ROUNDS = 20;

afterEach(killLaunched);

describe('nothing Loopdeck starts on a local host outlives the app', () => {
  // Most rounds kill the app while it is still starting (whatever it runs then, tsx's esbuild
  // included, must end with it); every fourth once it serves.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    `on a local host: after ${ROUNDS} rounds of %s of \`loopdeck serve\`, no process it started is left`,
    async (signal) => {
      await inBatches(ROUNDS, 5, async (i) => {
        const r = runner('{ local: true }');
        const { app, exited } = await launch(r.args, r.env, i % 4 === 0 ? 'Loopdeck is serving at' : '', (i * 397) % 1500);
        await killAndExpectNothingLeft(app, exited, signal, r.dir);
      });
    },
    180_000,
  );
});
