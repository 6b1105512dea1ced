import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { DRIVER, inBatches, killAndExpectNothingLeft, killLaunched, launch, processes, runner, type Proc } from '../../testing/host-leftovers';
import { startSshd, type TestSshd } from '../../testing/sshd';
import { sshHostYaml } from '../../testing/ssh-fixture';
import { until } from '../../testing/until';

const ROUNDS = 20;
const SERVE_ROUNDS = 4;
const AT_ONCE = 4;

afterEach(killLaunched);

describe('nothing Loopdeck starts on an SSH host outlives the app', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 50 });
  }, 30_000);
  afterAll(async () => {
    await sshd?.stop();
  });

  // The first rounds run the real `loopdeck serve`; the rest a stand-in holding only the link
  // and its watcher (watch-driver.ts), which starts in a fraction of the time.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    `over SSH: after ${ROUNDS} rounds of %s of the app (${SERVE_ROUNDS} of \`loopdeck serve\`), no watcher, tail or shell is left on the host`,
    async (signal) => {
      await inBatches(ROUNDS, AT_ONCE, async (i) => {
        const r = runner(sshHostYaml(sshd));
        const driver = [
          '--import',
          'tsx',
          DRIVER,
          JSON.stringify({ port: sshd.port, user: sshd.user, key: sshd.clientKey, knownHosts: sshd.knownHosts, dirs: [r.runs, r.cycle] }),
        ];
        const { app, exited } = i < SERVE_ROUNDS ? await launch(r.args, r.env, 'Loopdeck is serving at') : await launch(driver, r.env, 'connected');
        const onHost = (): Proc[] => processes().filter((p) => p.args.includes(r.dir) && p.pid !== app.pid);
        // The watcher (Perl here, the shell one where there is no perl) and its tail both name the
        // runs folder on their command lines.
        await until(
          () => {
            const ps = onHost();
            return ps.some((p) => /^((ba|da)?sh -c |perl -e )/.test(p.args)) && ps.some((p) => p.args.startsWith('tail -n0 -q -F -- '));
          },
          20_000,
          `the watcher and its tail on the host (${r.dir})`,
        );
        await killAndExpectNothingLeft(app, exited, signal, r.dir);
      });
    },
    180_000,
  );
});
