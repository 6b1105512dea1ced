import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CATEGORIES = ['connectivity', 'state/persistence', 'resources', 'error handling', 'safety', 'observability'];
const FILES = ['scripts/exit_orders.py', 'web/lib/quotes.ts', 'daemon/state.py', 'cloud/services/scan.timer', 'gateway/shed.ts', 'scripts/nightly_deliver.py'];
const TEXTS = [
  'retry loop has no upper bound when the broker answers 503',
  'state file written without fsync before rename',
  'fallback `a \\| b` swallows the upstream error',
  'timer writes no service_health row and sits in neither catalog',
  'shed threshold read from env with no ceiling check',
  'order ack poll gives up silently after 3 tries',
];

/** Where finding R-`n` of a section numbered with `seed` is, its category and text. */
function findingPlace(n: number, seed: number): { where: string; category: string; text: string } {
  const k = (n + seed) % TEXTS.length;
  return { where: `${FILES[k]}:${10 + ((n * 37) % 400)}`, category: CATEGORIES[k] ?? '', text: TEXTS[k] ?? '' };
}

function findingRows(start: number, count: number, seed: number): string {
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    const sev = (n * 7 + seed) % 11 === 0 ? 'P0' : (n + seed) % 3 === 0 ? 'P1' : 'P2';
    const { where, category, text } = findingPlace(n, seed);
    return `| R-${String(n).padStart(3, '0')} | ${sev} | ${category} | ${where} | ${text} |`;
  }).join('\n');
}

function backlogRows(start: number, findingStart: number, count: number): string {
  return Array.from({ length: count }, (_, i) => {
    const rel = start + i;
    const r1 = findingStart + i * 2;
    return `| REL-${String(rel).padStart(3, '0')} | R-${String(r1).padStart(3, '0')}, R-${String(r1 + 1).padStart(3, '0')} | P1 | inject the fault (kill the writer mid-rename): the reader sees the old or the new file, never a torn one |`;
  }).join('\n');
}

/**
 * A delta-audit section with its findings and backlog tables, numbered on from `next`. Each
 * backlog row covers two findings; `uncovered` more findings follow that no backlog row names (the
 * contract requires every R-### covered: "Waiting on you" lists them).
 */
export function auditSection(date: string, next: { r: number; rel: number }, findings: number, label = '', uncovered: readonly { where: string; category: string; text: string }[] = []): string {
  const covered = 2 * Math.ceil(findings / 2);
  const extra = uncovered.map((u, i) => `| R-${String(next.r + covered + i).padStart(3, '0')} | P1 | ${u.category} | ${u.where} | ${u.text} |`);
  const body = [
    '',
    `## Delta audit ${date}${label}`,
    '',
    '| ID | Sev | Category | Where | Finding |',
    '|----|-----|----------|-------|---------|',
    findingRows(next.r, findings, next.rel),
    ...extra,
    '',
    '| ID | Findings | Sev | Fault-injection acceptance criteria |',
    '|----|----------|-----|-------------------------------------|',
    backlogRows(next.rel, next.r, Math.ceil(findings / 2)),
    '',
  ].join('\n');
  next.r += uncovered.length > 0 ? covered + uncovered.length : findings;
  next.rel += Math.ceil(findings / 2);
  return body;
}

/** Write the demo loop's clone: an audit ledger with a week of sections, its log and lessons. */
export function writeDemoClone(clone: string, days: readonly string[]): { r: number; rel: number } {
  mkdirSync(clone, { recursive: true });
  const next = { r: 101, rel: 41 };
  let audit = '# Reliability audit\n\n## Audit ledger\n';
  audit += days.map((d, i) => `Audited through: ${(0x3f2a9c1 + i * 977).toString(16)} on ${d} — ${4 + (i % 3)} new findings`).join('\n') + '\n';
  // The last section before today leaves one finding without a backlog item: R-103 found again (the
  // same file:line and category, five nights after REL-042 was DONE), churn the Trends list.
  const twin = findingPlace(103, 41);
  const refound = { ...twin, text: `${twin.text} (again, after the REL-042 fix)` };
  for (const [i, d] of days.entries()) audit += auditSection(d, next, 4 + (i % 3), i === 3 ? ' (second pass)' : '', i === days.length - 1 ? [refound] : []);
  writeFileSync(join(clone, 'RELIABILITY_AUDIT.md'), audit);
  const outcomes = ['DONE', 'DONE', 'BLOCKED', 'DONE', 'operator-only'];
  const log = [
    '# Reliability log',
    '',
    '| ID | Date | Outcome | Red/Green | Notes |',
    '|----|------|---------|-----------|-------|',
    ...Array.from({ length: next.rel - 41 - 3 }, (_, i) => {
      const o = outcomes[i % outcomes.length] ?? 'DONE';
      const note = o === 'BLOCKED' ? 'root cause: the broker mock cannot drop mid-frame' : o === 'operator-only' ? 'rotate the broker credential' : '';
      return `| REL-${String(41 + i).padStart(3, '0')} | ${days[Math.min(days.length - 1, Math.floor(i / 3))]} | ${o} | ${1 + (i % 3)}/${o === 'DONE' ? 1 + (i % 3) : 0} | ${note} |`;
    }),
    // REL-041 was DONE on the first night; a later night's row puts it off again: reopened, churn.
    `| REL-041 | ${days[4]} | DEFERRED | 1/0 | the retry cap regressed under load; out of time |`,
    '',
    '## Lessons',
    `- ${days[1]} (audit): check for a remote nightly branch BEFORE numbering anything.`,
    `- ${days[3]} (remediate): run the full gate BEFORE the drills, not after; roughly one existing`,
    '  test per finding pinned the buggy behaviour.',
    '',
  ].join('\n');
  writeFileSync(join(clone, 'RELIABILITY_LOG.md'), log);
  writeImplementerLog(clone, days);
  return next;
}

/**
 * The implementer log (as `reference/proxy-implementer-log.md`, newest first): tasks done, and one
 * the implementer stopped on with its notes ("Waiting on you" lists it until a later `done` row).
 */
function writeImplementerLog(clone: string, days: readonly string[]): void {
  const day = (i: number): string => days[Math.max(0, days.length - 1 - i)] ?? '';
  const rows = [
    ['v2/03-route-listeners', day(0), 'stopped', '2', 'fail', '`cmd/crossbar/main.go` shares one identity checker', 'make gate fails on two GIVEN v1 proxy tests; the owner must hand over a scaffold that registers /props'],
    ['v2/02-affinity-queue', day(1), 'done', '1', 'pass', 'none', 'slot path releases on flush, not after forward()'],
    ['v2/01-control-plane', day(2), 'done', '1', 'pass', 'none', 'control calls take no slot'],
    ['v1/08-smoke-readme', day(3), 'done', '2', 'fail', 'owner-directed fix to `Free` in `proxy.Chooser`', 'per-model free slots, floored at 0'],
  ];
  const table = rows.map((r) => `| ${r.join(' | ')} | ? |`);
  const text = ['# Implementer log', '', '| Task | Date | Status | Gate runs | First gate | Deviations | Notes | Model |', '|---|---|---|---|---|---|---|---|', ...table, ''];
  mkdirSync(join(clone, 'docs'), { recursive: true });
  writeFileSync(join(clone, 'docs', 'implementer-log.md'), text.join('\n'));
}

/** Append today's audit section, as the audit phase does. */
export function appendAudit(clone: string, date: string, next: { r: number; rel: number }): void {
  appendFileSync(join(clone, 'RELIABILITY_AUDIT.md'), auditSection(date, next, 3));
}

/** Replace the deliver record atomically (temp file + rename), as the runner does. */
export function writeDeliverRecord(file: string, record: Record<string, unknown>): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(record, null, 2));
  renameSync(`${file}.tmp`, file);
}

/**
 * Make the demo's clone a git repository with its ledgers committed and a local bare repository as
 * its `origin` (so the pre-flight's origin check answers as on a real runner). Without git on the
 * machine the clone stays a plain folder, and the pre-flight says so.
 */
export function initDemoGit(clone: string, origin: string): void {
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'loop', GIT_AUTHOR_EMAIL: 'loop@demo-runner', GIT_COMMITTER_NAME: 'loop', GIT_COMMITTER_EMAIL: 'loop@demo-runner' } });
  };
  try {
    mkdirSync(origin, { recursive: true });
    git(origin, 'init', '-q', '--bare');
    git(clone, 'init', '-q', '-b', 'main');
    git(clone, 'add', '-A');
    git(clone, 'commit', '-q', '-m', 'ledgers');
    git(clone, 'remote', 'add', 'origin', origin);
    git(clone, 'push', '-q', 'origin', 'main');
  } catch {
    // No git here: the demo runs on, and its pre-flight says the clone is not a repository.
  }
}
