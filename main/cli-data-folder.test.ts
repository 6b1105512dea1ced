import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotSchema } from '../shared/domain';
import { SUMMARY_CACHE_FILE } from './core/session/saved-summary';
import { Store } from './core/store/store';
import { LOOPDECK_BIN, loopdeck } from '../testing/cli-run';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';
import { mountTmpfs, type Tmpfs } from '../testing/tmpfs';
import { until } from '../testing/until';

const DAY = '2026-08-23';
const NOW = '2026-08-23T09:00:00Z';
const STEPS = 40;

/** A runner fixture whose data folder holds a real database with what a snapshot read (an rc file of STEPS steps). */
async function fixtureWithDatabase(): Promise<RunnerFixture & { db: string }> {
  const fx = createRunnerFixture();
  fx.write(DAY, 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41:12-04:00 OK\n');
  fx.write(DAY, 'audit.suite.rc', Array.from({ length: STEPS }, (_, i) => `step${i}_rc=0\n`).join(''));
  const first = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
  expect([first.code, first.stderr]).toEqual([0, '']);
  return { ...fx, db: join(fx.dataDir, 'loopdeck.db') };
}

/** The files a damaged database was moved to, beside it. */
const keptAside = (dataDir: string): string[] => readdirSync(dataDir).filter((f) => f.startsWith('loopdeck.db.corrupt-'));

/** The one line that says the damaged database was moved aside, with where it went. */
const MOVED_ASIDE = /^loopdeck: (\S+loopdeck\.db) was damaged \(database disk image is malformed\): it was moved to (\S+loopdeck\.db\.corrupt-[\dT-]+Z) \(with its -wal and -shm, if any\), and Loopdeck started a fresh database, reading the sources again\.\n$/;

/** The snapshot read everything again: the audit phase and every step of its stage. */
function expectReadAgain(stdout: string): void {
  const phase = SnapshotSchema.parse(JSON.parse(stdout)).loops[0]?.cycles[0]?.phases[0];
  expect(phase?.status).toBe('ok');
  expect(phase?.stages[0]?.steps).toHaveLength(STEPS);
}

/** Overwrite the root page of one table with bytes SQLite cannot read: the file opens, the first query of that table fails. */
function damageTable(file: string, table: string): void {
  const store = Store.open(file);
  const root = store.sql.prepare('SELECT rootpage FROM sqlite_schema WHERE name = ?').pluck().get(table) as number;
  const pageSize = store.sql.pragma('page_size', { simple: true }) as number;
  store.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize);
  closeSync(fd);
}

describe('a damaged database', () => {
  it('truncated: snapshot says in one line that it moved it aside, keeps it, and reads the sources again into a fresh one', async () => {
    const fx = await fixtureWithDatabase();
    truncateSync(fx.db, 4096);
    const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
    expect(r.stderr).toMatch(MOVED_ASIDE);
    expect(r.code).toBe(0);
    expectReadAgain(r.stdout);
    const [, file, kept] = MOVED_ASIDE.exec(r.stderr) ?? [];
    expect(file).toBe(fx.db);
    expect(keptAside(fx.dataDir).map((f) => join(fx.dataDir, f))).toEqual([kept]);
    expect(statSync(kept ?? '').size).toBe(4096);
    expect(readFileSync(join(fx.dataDir, 'logs', 'loopdeck.log'), 'utf8')).toMatch(/WARN {2}\S+loopdeck\.db was damaged/);
    // The next run finds a sound database: nothing more is moved.
    const again = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(keptAside(fx.dataDir)).toHaveLength(1);
  });

  it.each(['records', 'meta'])('found on the first queries after the open (%s unreadable): the same, in the same run', async (table) => {
    const fx = await fixtureWithDatabase();
    damageTable(fx.db, table);
    const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', fx.dataDir, '--now', NOW, '--json');
    expect(r.stderr).toMatch(MOVED_ASIDE);
    expect(r.code).toBe(0);
    expectReadAgain(r.stdout);
    expect(keptAside(fx.dataDir)).toHaveLength(1);
    expect(existsSync(`${fx.db}.damaged`)).toBe(false);
  });

  it.each([
    ['truncated', (db: string) => truncateSync(db, 4096)],
    ['found by the first poll', (db: string) => damageTable(db, 'records')],
  ])('serve, %s: says so once and goes on serving on a fresh database', async (_how, damage) => {
    const fx = await fixtureWithDatabase();
    damage(fx.db);
    const child = spawn(process.execPath, [LOOPDECK_BIN, 'serve', '--config', fx.configPath, '--data', fx.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
    try {
      await until(() => stdout.includes('Loopdeck is serving at'), 20_000, 'the URL');
      // The core opens within a second of the URL; then its first poll reads the sources into the fresh database.
      await until(() => MOVED_ASIDE.test(stderr), 20_000, 'the line saying the database was moved aside');
      // Once that read caught up, serve saves the summary of it: every step, read again.
      const summary = join(fx.dataDir, SUMMARY_CACHE_FILE);
      const steps = (): number => {
        if (!existsSync(summary)) return 0;
        const saved = JSON.parse(readFileSync(summary, 'utf8')) as { summary: { loops: { cycles: { phases: { stages: { steps: unknown[] }[] }[] }[] }[] } };
        return saved.summary.loops[0]?.cycles[0]?.phases[0]?.stages[0]?.steps.length ?? 0;
      };
      await until(() => steps() === STEPS, 20_000, 'the sources read into the fresh database');
      expect(child.exitCode).toBeNull();
      expect(stderr).toMatch(MOVED_ASIDE);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('a read-only data folder', () => {
  let readOnly: Tmpfs;
  let fx: RunnerFixture;
  beforeAll(() => {
    readOnly = mountTmpfs(64 * 1024, { readOnly: true });
    fx = createRunnerFixture();
    fx.write(DAY, 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\n');
  });
  afterAll(() => readOnly?.unmount());

  const message = (dir: string): string =>
    `loopdeck: The data folder ${dir} is on a read-only file system: Loopdeck keeps its database and log there. Choose a writable folder with --data DIR (or make this one writable).\n`;

  it.each([
    ['snapshot', ['--json']],
    ['serve', ['--port', '0']],
  ])('%s: one line naming the folder and what to do, no stack, exit 2', async (command, extra) => {
    const r = await loopdeck(command, '--config', fx.configPath, '--data', readOnly.dir, ...extra);
    expect(r.stderr).toBe(message(readOnly.dir));
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });

  it('also for a folder to be made inside it', async () => {
    const r = await loopdeck('snapshot', '--config', fx.configPath, '--data', join(readOnly.dir, 'loopdeck'), '--json');
    expect([r.code, r.stderr]).toEqual([2, message(join(readOnly.dir, 'loopdeck'))]);
  });
});

describe('a full data folder', () => {
  it('serve: keeps running, says the folder is full and how much room is left, and stores again, each record once, when there is room', async () => {
    const fx = createRunnerFixture();
    const disk = mountTmpfs(2 * 1024 * 1024, { dir: fx.dataDir });
    const rc = join(fx.runs, DAY, 'audit.suite.rc');
    const written: string[] = [];
    const feed = (n: number): void => {
      const names = Array.from({ length: n }, (_, i) => `step${written.length + i}`);
      written.push(...names);
      fx.append(DAY, 'audit.suite.rc', names.map((name) => `${name}_rc=0\n`).join(''));
      // Transcript lines make no record: their position is written by the store's timer.
      fx.append(DAY, 'audit.log', 'tool_use Read a\ntool_result ok\n'.repeat(20));
    };
    /** The steps the database holds for the rc file, read by another connection. */
    const stored = (): string[] | null => {
      const store = Store.open(join(fx.dataDir, 'loopdeck.db'));
      try {
        const row = store.sql.prepare('SELECT id FROM files WHERE path = ?').get(rc) as { id: number } | undefined;
        return row ? store.records<{ name: string }>(row.id).map((r) => r.name) : null;
      } finally {
        store.close();
      }
    };
    fx.write(DAY, 'audit.status', 'audit 2026-08-23T00:00:04-04:00 STARTED\n');
    feed(20);
    const child = spawn(process.execPath, [LOOPDECK_BIN, 'serve', '--config', fx.configPath, '--data', fx.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
    try {
      // The first read has caught up once the summary is saved.
      await until(() => existsSync(join(fx.dataDir, SUMMARY_CACHE_FILE)), 20_000, 'the first read');
      expect(stored()).toEqual(written);
      const unfill = disk.fill();
      const full = new RegExp(`loopdeck: data folder full: \\d+ bytes free in ${fx.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Free some space there`);
      for (let i = 0; i < 20 && !full.test(stderr); i++) {
        feed(500);
        await until(() => full.test(stderr) || child.exitCode !== null, 1500, 'a poll').catch(() => undefined);
      }
      expect(stderr).toMatch(full);
      expect(child.exitCode).toBeNull();
      unfill();
      feed(10);
      await until(() => stored()?.length === written.length, 20_000, 'every record stored once there is room');
      expect(stored()).toEqual(written);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
      await exited;
      disk.unmount();
    }
    expect(await exited).toBe(0);
  });
});
