import { appendFileSync, mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileNames, writeNamed, type HostileName } from '../../../testing/hostile-names';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { loopdeck } from '../../../testing/cli-run';
import { createSession, type Session } from '../session/session';
import { databasePath } from '../config/paths';
import { Store } from '../store/store';

const DAY = '2026-11-29';
const NOW = (): Date => new Date('2026-11-29T12:00:00Z');
const STAMPS = 'remediate 2026-11-29T01:00:00+00:00 STARTED\n';
/** The name that once forged audit.status's stat line over SSH, and more bytes than audit.status has. */
const FORGED = Buffer.from('audit.status\n~1|1|1|0|regular file|zz');
const FIXED_TIME = new Date('2026-11-29T01:30:00Z');

interface Runs {
  readonly root: string;
  readonly runs: string;
  readonly day: string;
}

/**
 * A runs folder with a cycle whose remediate has a stage named by each name (`remediate.<name>.rc`)
 * and folders beside the cycles named by each; `hostile` adds the names Loopdeck does not follow
 * and the forging name, the other (the well-named copy) only those it follows.
 */
function makeRuns(names: readonly HostileName[], hostile: boolean): Runs {
  const root = mkdtempSync(join(tmpdir(), hostile ? 'loopdeck-names-hostile-' : 'loopdeck-names-clean-'));
  const runs = join(root, 'runs');
  const day = join(runs, DAY);
  mkdirSync(day, { recursive: true });
  writeFileSync(join(day, 'audit.status'), 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T00:41:12+00:00 OK\n');
  writeFileSync(join(day, 'remediate.status'), STAMPS);
  const files: Buffer[] = [];
  for (const n of names) {
    if (!n.followed && !hostile) continue;
    const file = Buffer.concat([Buffer.from('remediate.'), n.bytes, Buffer.from('.rc')]);
    writeNamed(day, file, 'build_rc=0\nsuite_rc=\n');
    files.push(file);
    writeNamed(runs, Buffer.concat([Buffer.from('x'), n.bytes]), null);
  }
  if (hostile) {
    writeNamed(day, FORGED, 'audit 2026-11-29T00:00:04+00:00 FAILED 1\n' + 'x'.repeat(4000) + '\n');
    // A folder whose name, cut at its newline, is a cycle date.
    writeNamed(runs, Buffer.from('junk\n2026-11-30'), null);
  }
  // The same times on both sides: phases without stamps take theirs from the files.
  for (const f of files) utimesSync(Buffer.concat([Buffer.from(`${day}/`), f]), FIXED_TIME, FIXED_TIME);
  return { root, runs, day };
}

function configFor(r: Runs, hostYaml: string): string {
  const path = join(r.root, 'config.yaml');
  writeFileSync(path, `hosts:\n  runner: ${hostYaml}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(r.runs)}\n    cap: 20h\n`);
  return path;
}

/**
 * The loops as the console shows them, with the runs folder's path taken out, and without the
 * runner's load sampled while a phase runs (each session samples its host at its own moments).
 */
function loopsOf(core: Session, r: Runs): string {
  // Left out: what is sampled over time (the runner's load), and a done stage's end — its rc file's
  // time: the two folders' files are appended to moments apart, and over SSH the watcher's frame
  // carries the time of the append it saw.
  return JSON.stringify(core.snapshot().loops, function (this: unknown, key, value: unknown) {
    if (key === 'contention') return undefined;
    if (key === 'endedAt' && typeof this === 'object' && this !== null && 'steps' in this) return undefined;
    return value;
  }).split(r.runs).join('RUNS');
}

describe('file names with every byte 1-255 in a runs folder', () => {
  let sshd: TestSshd;
  const names = hostileNames();
  beforeAll(async () => {
    sshd = await startSshd();
  }, 30_000);
  afterAll(() => sshd?.stop());

  it.each([
    ['over SSH with the Perl watcher', 'perl'],
    ['over SSH with the sh watcher', 'sh'],
    ['locally', 'local'],
  ] as const)('read %s equal a local reading of the well-named copies, live, across a restart, each refused name a problem of its folder', async (_label, how) => {
    const clean = makeRuns(names, false);
    const hostile = makeRuns(names, true);
    const ssh = { ...isolatedSshEnv(), ...(how === 'local' ? {} : { watcher: how }) };
    // A poll a minute: only the watchers can make an append show within the test's bounds.
    const open = (r: Runs, hostYaml: string): Session =>
      createSession({ configPath: configFor(r, hostYaml), dataDir: join(r.root, 'data'), shell: 'serve', pollMs: 60_000, now: NOW, ssh });
    const hostYaml = how === 'local' ? '{ local: true }' : sshHostYaml(sshd);
    const reference = open(clean, '{ local: true }');
    let core = open(hostile, hostYaml);
    await reference.start();
    await core.start();
    try {
      await reference.pollOnce();
      await until(() => core.snapshot().hosts[0]?.state === 'connected', 15_000, 'connected');
      await core.pollOnce();
      const expected = loopsOf(reference, clean);
      expect(JSON.parse(expected)[0].cycles[0].phases.map((p: { status: string }) => p.status)).toEqual(['ok', 'running', 'pending']);
      expect(loopsOf(core, hostile)).toBe(expected);
      expect(reference.snapshot().problems).toEqual([]);

      const problems = core.snapshot().problems;
      const dayProblem = problems.find((p) => p.source === hostile.day);
      const refusedHere = names.filter((n) => !n.followed).length + 1;
      expect(dayProblem?.message).toContain(`${hostile.day} holds ${refusedHere} names Loopdeck does not follow`);
      expect(dayProblem?.message).toContain('"remediate.f\\x01x.rc"');
      expect(problems.find((p) => p.source === hostile.runs)?.message).toContain(`${hostile.runs} holds ${refusedHere} names Loopdeck does not follow`);
      expect(problems.map((p) => p.source).sort()).toEqual([hostile.runs, hostile.day].sort());
      // Nothing else was taken for a file or a cycle: no 2026-11-30 from the folder cut at its newline.
      expect(core.snapshot().loops[0]?.cycles.map((c) => c.date)).toEqual([DAY]);

      // Live: appends to a plain name, to a followed name that is not ASCII (it travels in hex),
      // to the stamps, and to the forging file, woken by the watchers alone.
      for (const r of [clean, hostile]) {
        appendFileSync(join(r.day, 'remediate.fax.rc'), 'suite_rc=0\nDONE\n');
        appendFileSync(join(r.day, 'remediate.fé.rc'), 'suite_rc=1\nDONE\n');
        appendFileSync(join(r.day, 'remediate.status'), 'remediate 2026-11-29T02:00:00+00:00 OK\n');
      }
      appendFileSync(Buffer.concat([Buffer.from(`${hostile.day}/`), FORGED]), 'audit 2026-11-29T03:00:00+00:00 FAILED 2\n');
      await until(() => loopsOf(reference, clean).includes('"suite","rc":1'), 20_000, 'the reference to show the appends');
      const live = loopsOf(reference, clean);
      await until(() => loopsOf(core, hostile) === live, 20_000, 'the hostile folder to read as the well-named copy').catch((err: unknown) => {
        // Say where they differ: the first line of each that does not match.
        const a = JSON.stringify(JSON.parse(loopsOf(core, hostile)), null, 1).split('\n');
        const b = JSON.stringify(JSON.parse(live), null, 1).split('\n');
        const i = a.findIndex((line, k) => line !== b[k]);
        throw new Error(`${(err as Error).message}; first difference at line ${i}: ssh ${JSON.stringify(a.slice(Math.max(0, i - 3), i + 3))} local ${JSON.stringify(b.slice(Math.max(0, i - 3), i + 3))}`, { cause: err });
      });
      expect(core.snapshot().notices.map((n) => n.key)).toEqual(reference.snapshot().notices.map((n) => n.key));
    } finally {
      await core.close();
      await reference.close();
    }
    // The real audit.status kept its own identity in the store: no other file's inode or offset.
    const store = Store.open(databasePath(join(hostile.root, 'data')));
    try {
      const row = store.file('runner', join(hostile.day, 'audit.status'));
      const st = statSync(join(hostile.day, 'audit.status'), { bigint: true });
      expect({ ino: row.ino, offset: row.offset }).toEqual({ ino: st.ino.toString(), offset: Number(st.size) });
    } finally {
      store.close();
    }
    // And after a restart, with the files still there, it reads the same.
    core = open(hostile, hostYaml);
    const again = open(clean, '{ local: true }');
    await core.start();
    await again.start();
    try {
      await again.pollOnce();
      await until(() => core.snapshot().hosts[0]?.state === 'connected', 15_000, 'connected after the restart');
      await core.pollOnce();
      expect(loopsOf(core, hostile)).toBe(loopsOf(again, clean));
      expect(core.snapshot().problems.map((p) => p.source).sort()).toEqual([hostile.runs, hostile.day].sort());
    } finally {
      await core.close();
      await again.close();
    }
  }, 120_000);

  // It once polled a thousand times for bytes a forged stat promised, until killed: cli-run's 30 s bound fails it then.
  it('snapshot over SSH on a fresh data folder finishes, naming the bad entry, with audit.status read as itself', async () => {
    const hostile = makeRuns(names, true);
    const out = await loopdeck('snapshot', '--config', configFor(hostile, sshHostYaml(sshd)), '--data', join(hostile.root, 'fresh-data'), '--now', NOW().toISOString(), '--json');
    expect(out.code, out.stderr).toBe(0);
    const snap = JSON.parse(out.stdout) as { loops: { cycles: { phases: { name: string; status: string }[] }[] }[]; problems: { source: string; message: string }[] };
    expect(snap.loops[0]?.cycles[0]?.phases.find((p) => p.name === 'audit')?.status).toBe('ok');
    expect(snap.problems.find((p) => p.source === hostile.day)?.message).toContain('"audit.status\\x0a~1|1|1|0|regular file|zz"');
  }, 40_000);
});
