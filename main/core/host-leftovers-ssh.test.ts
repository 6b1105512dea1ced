import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { DRIVER, inBatches, killAndExpectNothingLeft, killLaunched, launch, processes, runner, type Proc } from '../../testing/host-leftovers';
import { startSshd, type TestSshd } from '../../testing/sshd';
import { sshHostYaml } from '../../testing/ssh-fixture';
import { holdsWithin } from '../../testing/until';

const ROUNDS = 20;
const SERVE_ROUNDS = 4;
const AT_ONCE = 4;

afterEach(killLaunched);

/** The last lines of a log file, or that there is none. */
function logTail(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8').slice(-3000) : `(none at ${path})`;
}

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
        const serve = i < SERVE_ROUNDS;
        const { app, exited, output } = serve ? await launch(r.args, { ...r.env, LOOPDECK_POLL_TRACE: join(r.dir, 'polls.jsonl') }, 'Loopdeck is serving at') : await launch(driver, r.env, 'connected');
        const onHost = (): Proc[] => processes().filter((p) => p.args.includes(r.dir) && p.pid !== app.pid);
        // The watcher (Perl here, the shell one where there is no perl) and its tail both name the
        // runs folder on their command lines.
        const began = Date.now();
        const started = (): boolean => {
          const ps = onHost();
          return ps.some((p) => /^((ba|da)?sh -c |perl -e )/.test(p.args)) && ps.some((p) => p.args.startsWith('tail -n0 -q -F -- '));
        };
        // A hang limit, not a measurement: alone, a serve round watches within 3 s (four at once, 6–8 s),
        // and CI runs this file beside three others on two cores.
        if (!(await holdsWithin(started, 45_000, 50))) {
          // Say what there was to see: what runs on the host for this round, and what the app logged.
          const seen = onHost().map((p) => p.args.slice(0, 160));
          throw new Error(
            `round ${i} (${serve ? 'loopdeck serve' : 'the watch driver'}): no watcher with its tail on the host ${Date.now() - began} ms after it started (${r.dir}).\n` +
              `on the host: ${seen.length ? seen.join(' | ') : 'nothing'}\nit printed: ${output().slice(-1500)}\nits log: ${logTail(join(r.dir, 'data', 'logs', 'loopdeck.log'))}\nits polls: ${logTail(join(r.dir, 'polls.jsonl'))}`,
          );
        }
        await killAndExpectNothingLeft(app, exited, signal, r.dir);
      });
    },
    300_000,
  );
});
