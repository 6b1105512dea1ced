import { mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMPLEMENTER_LOG_EXCERPT, LESSONS_EXCERPT } from './ledger-fixtures';

/** The moment a golden snapshot is taken (`--now`). */
export const GOLDEN_NOW = '2026-08-24T13:00:00Z';

/** Every file of the golden runner gets this time, so times taken from files are the same on every run. */
const FILE_TIME = new Date('2026-08-24T05:30:00Z');

/** A runner with every kind of evidence Loopdeck reads, at fixed times: the golden snapshot's input. */
export interface GoldenRunner {
  readonly root: string;
  readonly configPath: string;
  readonly dataDir: string;
}

const AUDIT = [
  '# Reliability audit',
  '',
  '## Audit ledger',
  '',
  'Audited through: 4be31d2 on 2026-08-22 — 3 new findings',
  'Audited through: 9ac0e11 on 2026-08-23 — 2 new findings',
  '',
  '## Delta audit 2026-08-22',
  '',
  '| ID | Sev | Category | Where | Finding |',
  '|----|-----|----------|-------|---------|',
  '| R-101 | P0 | safety | scripts/exit_orders.py:88 | exit order placed without the halt check |',
  '| R-102 | P1 | state | web/lib/cache.ts:41 | stale cache served after a failed refresh (`a \\| b`) |',
  '| R-103 | P2 | observability | cloud/scan.timer:1 | timer writes no health row |',
  '',
  '| ID | Covers | Sev | Acceptance |',
  '|----|--------|-----|------------|',
  '| REL-050 | R-101 | P0 | a fault-injected halt refuses the exit order |',
  '| REL-051 | R-102, R-103 | P1 | a failed refresh serves no stale row; the timer writes a health row |',
  '',
  '## Delta audit 2026-08-23',
  '',
  '| ID | Sev | Category | Where | Finding |',
  '|----|-----|----------|-------|---------|',
  '| R-104 | P1 | resources | scripts/daemon.py:210 | unbounded queue under a slow broker |',
  '| R-105 | P2 | error handling | web/api/orders.ts:77 | a 502 is reported as success |',
  '',
  '| ID | Covers | Sev | Acceptance |',
  '|----|--------|-----|------------|',
  '| REL-052 | R-104 | P1 | a stalled broker keeps the queue under 1000 |',
  '',
].join('\n');

const LOG = [
  '# Reliability log',
  '',
  '| ID | Date | Outcome | Red/Green | Notes |',
  '|----|------|---------|-----------|-------|',
  '| REL-050 | 2026-08-22 | DONE | 3/3 | gates 14/14 |',
  '| REL-051 | 2026-08-23 | BLOCKED | 1/0 | root cause: the broker mock cannot drop mid-frame |',
  '| REL-052 | 2026-08-23 | operator-only | 0/0 | rotate the broker credential |',
  '',
  ...LESSONS_EXCERPT,
  '',
].join('\n');

/** Write the golden runner: three cycles, the ledgers, an implementer log and a deliver record. */
export function writeGoldenRunner(): GoldenRunner {
  const root = mkdtempSync(join(tmpdir(), 'loopdeck-golden-'));
  const runs = join(root, 'runs');
  const clone = join(root, 'clone');
  mkdirSync(join(clone, 'docs'), { recursive: true });
  const cycle = (date: string, files: Record<string, string>): void => {
    mkdirSync(join(runs, date), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(runs, date, name), text);
  };
  cycle('2026-08-22', {
    'audit.status': 'audit 2026-08-22T00:00:04-04:00 STARTED\naudit 2026-08-22T00:41:12-04:00 OK\n',
    'remediate.status': 'remediate 2026-08-22T01:00:00-04:00 STARTED\nremediate 2026-08-22T06:48:00-04:00 FAILED 2\n  suite: 3 failed, 1204 passed\n',
    'deliver.log': 'pushing branch\n    NIGHTLY DELIVER READY: loop=reliability prs=1 https://github.com/acme/radon/pull/70\nNIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/test pr=https://github.com/acme/radon/pull/87\n',
  });
  cycle('2026-08-23', {
    'audit.status': 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T00:41:12-04:00 OK\n',
    'audit.log': '```\nNIGHTLY PHASE NO-OP: loop=reliability phase=audit quoted in a fence\n```\nreading the delta\n',
    'remediate.status': 'remediate 2026-08-23T01:00:00-04:00 STARTED\nremediate 2026-08-23T09:12:40-04:00 INCOMPLETE\nagent exited 0 without committing to the nightly branch\n',
    'remediate.gates.rc': 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n',
    'remediate.drills.rc': 'drill_rc=\ndrill_rc=3\nDONE\n',
  });
  cycle('2026-08-24', {
    'audit.status': 'audit 2026-08-24T00:00:04-04:00 STARTED\n',
    'audit.log': 'NIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range\n',
    'remediate.status': 'remediate 2026-08-24T00:21:00-04:00 STARTED\n',
    'remediate.suite.rc': 'SUITE_RC=\nLINT_RC=\nSUITE_RC=0\n',
  });
  writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), AUDIT);
  writeFileSync(join(clone, 'RELIABILITY_LOG.md'), LOG);
  writeFileSync(join(clone, 'docs', 'implementer-log.md'), `${IMPLEMENTER_LOG_EXCERPT.join('\n')}\n`);
  const deliverRecord = join(root, 'deliver.json');
  writeFileSync(
    deliverRecord,
    JSON.stringify({ loop: 'reliability', branch: 'reliability/2026-08-23', pr: 87, url: 'https://github.com/acme/radon/pull/87', status: 'incomplete', check: 'ci/test', updated_at: '2026-08-23T11:00:00-04:00' }),
  );
  const configPath = join(root, 'config.yaml');
  writeFileSync(
    configPath,
    [
      'hosts:',
      '  runner: { local: true }',
      'loops:',
      '  reliability:',
      '    host: runner',
      `    runs: ${JSON.stringify(runs)}`,
      `    dir: ${JSON.stringify(clone)}`,
      '    phases: [audit, remediate, deliver]',
      '    schedule: "0 0 * * *"',
      '    timezone: America/New_York',
      '    grace: 2h',
      '    cap: 20h',
      '    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md, implementer: docs/implementer-log.md }',
      `    deliverRecord: ${JSON.stringify(deliverRecord)}`,
      'drills:',
      '  drain: { host: runner, command: "./drills/drain.sh", cwd: /tmp, timeout: 30m, args: { mode: [graceful, abrupt] } }',
      '',
    ].join('\n'),
  );
  touchAll(root);
  return { root, configPath, dataDir: join(root, 'data') };
}

/** Give every file and folder under `dir` the same time. */
function touchAll(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) touchAll(path);
    utimesSync(path, FILE_TIME, FILE_TIME);
  }
}
