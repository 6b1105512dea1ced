/**
 * A generated local loop with months of history for figure 8: one cycle folder a day with the
 * wrapper's stamps, transcripts and rc files of finished cycles, today's cycle with a running
 * remediate phase, and the loop's clone with a large audit ledger and its log.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoopConfigSchema } from '../main/core/config/schema';
import { generateLedger } from './ledger-gen';
import { stamp, writeLocalConfig } from './lib';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIN = 60_000;

/** What figure 8 follows and appends to. */
export interface HistoryFixture {
  readonly dir: string;
  readonly configPath: string;
  readonly dataDir: string;
  readonly home: string;
  /** Cycle folders written (one a day, today's included). */
  readonly days: number;
  /** Cycles the loop follows: `days`, unless the config schema caps `cycles` lower. */
  readonly followed: number;
  readonly findings: number;
  /** Transcript lines written, all cycles together. */
  readonly transcriptLines: number;
  /** Bytes written under the runs folder. */
  readonly runsBytes: number;
  readonly auditPath: string;
  /** Today's remediate transcript (the running phase). */
  readonly hotLog: string;
  readonly today: string;
  /** The loop's cap is shorter than 20 h: today's remediate may read as past it (figure 8g). */
  readonly pastCap: boolean;
}

type Outcome = 'ok' | 'ready' | 'no-op' | 'incomplete' | 'failed' | 'deliver-incomplete';

/** A deterministic mix of the outcomes real nights have: mostly clean, a few PRs, some trouble. */
function outcomeOf(daysAgo: number): Outcome {
  if (daysAgo % 11 === 3) return 'no-op';
  if (daysAgo % 17 === 5) return 'incomplete';
  if (daysAgo % 23 === 7) return 'failed';
  if (daysAgo % 13 === 2) return 'deliver-incomplete';
  if (daysAgo % 4 === 0) return 'ready';
  return 'ok';
}

const AUDIT_LINES = [
  (k: number) => `tool_use Read web/lib/file-${k}.ts`,
  (k: number) => `tool_use Bash rg -n "writeFileSync|rename" daemon/state_${k % 40}.py`,
  (k: number) => `tool_result ok (${40 + (k % 300)} lines)`,
  (k: number) => `Checking R-${k}: the writer stamps scan_time before the write lands; still present`,
  (k: number) => `tool_use Grep "fsync" scripts/ (${k % 9} matches)`,
];
const REMEDIATE_LINES = [
  (k: number) => `REL-${k % 400}: writing the red test tests/test_rel_${k % 400}.py`,
  (k: number) => `tool_use Bash pytest -q tests/test_rel_${k % 400}.py`,
  (k: number) => `${1100 + (k % 200)} passed, 1 failed in ${(k % 50) / 10 + 2}s`,
  (k: number) => `tool_use Edit daemon/state.py (+${k % 30} -${k % 7})`,
  (k: number) => `REL-${k % 400}: red 1 / green 1`,
];
const DELIVER_LINES = [
  () => 'Pushed reliability branch',
  (k: number) => `Waiting for CI (attempt ${(k % 5) + 1})`,
  (k: number) => `ci/test: ${k % 3 === 0 ? 'pending' : 'success'}`,
];

/** `n` transcript lines from `templates`, stamped from `t0` a few seconds apart. */
function transcript(templates: readonly ((k: number) => string)[], n: number, t0: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const k = seed * 7919 + i;
    out.push(`[${stamp(new Date(t0 + i * 7000))}] ${templates[k % templates.length]?.(k) ?? ''}`);
  }
  return out;
}

/** The largest `cycles` the config schema accepts, at most `want`. */
function followedCycles(want: number): number {
  for (let n = want; n > 1; n -= 1) if (LoopConfigSchema.in.shape.cycles.safeParse(n).success) return n;
  return 1;
}

function writeCycle(runs: string, day: number, daysAgo: number, linesPerCycle: number): { lines: number; bytes: number } {
  const date = new Date(day).toISOString().slice(0, 10);
  const dir = join(runs, date);
  mkdirSync(dir);
  let bytes = 0;
  const w = (name: string, text: string): void => {
    writeFileSync(join(dir, name), text);
    bytes += text.length;
  };
  const at = (h: number, m: number): string => stamp(new Date(day + h * HOUR + m * MIN));
  const outcome = outcomeOf(daysAgo);
  const pr = 1000 + daysAgo * 2;
  const urls = [`https://github.com/acme/radon/pull/${pr}`, `https://github.com/acme/radon/pull/${pr + 1}`];
  const nAudit = Math.round(linesPerCycle * 0.35);
  const nRem = Math.round(linesPerCycle * 0.5);
  const nDel = linesPerCycle - nAudit - nRem;
  if (outcome === 'no-op') {
    w('audit.status', `audit ${at(0, 0)} STARTED\naudit ${at(0, 22)} NO-OP\n`);
    w('audit.log', `${transcript(AUDIT_LINES, nAudit, day + 5000, daysAgo).join('\n')}\nNIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range\n`);
    w('remediate.status', `remediate ${at(0, 23)} STARTED\nremediate ${at(0, 31)} NO-OP\n`);
    w('remediate.log', 'NIGHTLY PHASE NO-OP: loop=reliability phase=remediate 0 source-actionable P0/P1 items\n');
    w('deliver.status', `deliver ${at(0, 32)} STARTED\ndeliver ${at(0, 40)} 0 PR(s), nothing to merge\n`);
    return { lines: nAudit + 2, bytes };
  }
  const audit = transcript(AUDIT_LINES, nAudit, day + 5000, daysAgo);
  audit.splice(Math.min(3, audit.length), 0, '  NIGHTLY PHASE NO-OP: loop=reliability phase=audit (quoted from the manual, not a verdict)');
  audit.push(`Appended ${4 + (daysAgo % 5)} findings to RELIABILITY_AUDIT.md`);
  w('audit.status', `audit ${at(0, 0)} STARTED\naudit ${at(0, 41)} OK\n`);
  w('audit.log', `${audit.join('\n')}\n`);
  w('audit.gates.rc', 'ast_refresh_rc=\nast_refresh_rc=0\nDONE\n');
  w('remediate.log', `${transcript(REMEDIATE_LINES, nRem, day + HOUR, daysAgo).join('\n')}\n`);
  const stageDone = outcome !== 'incomplete';
  w('remediate.gates.rc', `ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n${stageDone ? `suite_rc=${outcome === 'failed' ? 2 : 0}\nDONE\n` : ''}`);
  if (outcome === 'incomplete') {
    w('remediate.status', `remediate ${at(1, 0)} STARTED\nremediate ${at(9, 12)} INCOMPLETE\nagent exited 0 without committing to the nightly branch\n`);
    return { lines: nAudit + nRem + 2, bytes };
  }
  if (outcome === 'failed') {
    w('remediate.status', `remediate ${at(1, 0)} STARTED\nremediate ${at(6, 48)} FAILED 2\n  suite: 3 failed, 1204 passed\n`);
    return { lines: nAudit + nRem + 2, bytes };
  }
  w('remediate.status', `remediate ${at(1, 0)} STARTED\nremediate ${at(7, 30)} OK\n`);
  const deliver = transcript(DELIVER_LINES, nDel, day + 7.5 * HOUR, daysAgo);
  if (outcome === 'deliver-incomplete') {
    deliver.push(`NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/test pr=${urls[0]}`);
    w('deliver.status', `deliver ${at(7, 31)} STARTED\ndeliver ${at(10, 31)} INCOMPLETE: ci/test\n`);
  } else if (outcome === 'ready') {
    deliver.push(`NIGHTLY DELIVER READY: loop=reliability prs=2 ${urls.join(' ')}`);
    w('deliver.status', `deliver ${at(7, 31)} STARTED\ndeliver ${at(8, 2)} 2 PR(s) green, ready to merge: ${urls.join(' ')}\n`);
  } else {
    w('deliver.status', `deliver ${at(7, 31)} STARTED\ndeliver ${at(7, 40)} 0 PR(s), nothing to merge\n`);
  }
  w('deliver.log', `${deliver.join('\n')}\n`);
  return { lines: nAudit + nRem + deliver.length + 1, bytes };
}

/** Today's cycle: audit done, remediate STARTED and still running (its stage half way). */
function writeToday(runs: string, now: number, linesPerCycle: number): { hotLog: string; lines: number } {
  const midnight = Math.floor(now / DAY) * DAY;
  const start = Math.max(midnight, now - 3 * HOUR);
  const span = now - start;
  const dir = join(runs, new Date(midnight).toISOString().slice(0, 10));
  mkdirSync(dir);
  const auditEnd = start + span * 0.3;
  const remStart = start + span * 0.4;
  const nAudit = Math.round(linesPerCycle * 0.35);
  const nRem = Math.round(linesPerCycle * 0.25);
  writeFileSync(join(dir, 'audit.status'), `audit ${stamp(new Date(start))} STARTED\naudit ${stamp(new Date(auditEnd))} OK\n`);
  writeFileSync(join(dir, 'audit.log'), `${transcript(AUDIT_LINES, nAudit, start, 0).map((l) => l.replace(/^\[[^\]]+\]/, `[${stamp(new Date(start))}]`)).join('\n')}\n`);
  writeFileSync(join(dir, 'remediate.status'), `remediate ${stamp(new Date(remStart))} STARTED\n`);
  writeFileSync(join(dir, 'remediate.gates.rc'), 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\n');
  const hotLog = join(dir, 'remediate.log');
  writeFileSync(hotLog, `${transcript(REMEDIATE_LINES, nRem, remStart, 0).map((l) => l.replace(/^\[[^\]]+\]/, `[${stamp(new Date(remStart))}]`)).join('\n')}\n`);
  return { hotLog, lines: nAudit + nRem };
}

/** RELIABILITY_LOG.md: an outcome row for each backlog item of the generated ledger, and lessons. */
function reliabilityLog(sections: number, today: string): string {
  const outcomes = ['DONE', 'DONE', 'BLOCKED', 'DONE', 'operator-only'];
  const rows = Array.from({ length: sections }, (_, i) => {
    const o = outcomes[i % outcomes.length] ?? 'DONE';
    const note = o === 'BLOCKED' ? 'root cause: the broker mock cannot drop mid-frame' : o === 'operator-only' ? 'rotate the broker credential' : 'gates 14/14';
    return `| REL-${i} | ${today} | ${o} | ${1 + (i % 3)}/${o === 'DONE' ? 1 + (i % 3) : 0} | ${note} |`;
  });
  return [
    '# Reliability log',
    '',
    '| ID | Date | Outcome | Red/Green | Notes |',
    '|----|------|---------|-----------|-------|',
    ...rows,
    '',
    '## Lessons',
    `- ${today} (audit): check for a remote nightly branch BEFORE numbering anything.`,
    '',
  ].join('\n');
}

/**
 * Write a local loop with `days` cycle folders (`linesPerCycle` transcript lines in each finished
 * cycle) and a ledger of `findings` findings under `dir`, and a config following all of it. `cap` is
 * the loop's (20h; a minute puts today's running remediate past it).
 */
export function generateHistory(dir: string, days: number, findings: number, linesPerCycle: number, now = Date.now(), cap = '20h'): HistoryFixture {
  const runs = join(dir, 'runs');
  const clone = join(dir, 'clone');
  const home = join(dir, 'home');
  mkdirSync(clone, { recursive: true });
  mkdirSync(home, { recursive: true });
  const followed = followedCycles(days);
  const configPath = writeLocalConfig(dir, [
    `    dir: ${JSON.stringify(clone)}`,
    '    phases: [audit, remediate, deliver]',
    '    schedule: "0 0 * * *"',
    '    timezone: UTC',
    '    grace: 2h',
    `    cap: ${cap}`,
    '    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }',
    `    cycles: ${followed}`,
  ]);
  const midnight = Math.floor(now / DAY) * DAY;
  const today = new Date(midnight).toISOString().slice(0, 10);
  const hot = writeToday(runs, now, linesPerCycle);
  let lines = hot.lines;
  let bytes = 0;
  for (let d = 1; d < days; d += 1) {
    const c = writeCycle(runs, midnight - d * DAY, d, linesPerCycle);
    lines += c.lines;
    bytes += c.bytes;
  }
  const auditPath = join(clone, 'RELIABILITY_AUDIT.md');
  writeFileSync(auditPath, generateLedger(findings));
  writeFileSync(join(clone, 'RELIABILITY_LOG.md'), reliabilityLog(Math.ceil(findings / 1000), today));
  return { dir, configPath, dataDir: join(dir, 'data'), home, days, followed, findings, transcriptLines: lines, runsBytes: bytes, auditPath, hotLog: hot.hotLog, today, pastCap: cap !== '20h' };
}

/** What figure 8 reads of a snapshot. */
export interface SnapshotLike {
  readonly loops: readonly { name: string; cycles: readonly { date: string; phases: readonly { name: string; status: string }[] }[] }[];
  readonly findings: readonly { id: string }[];
}

/** Serve has read everything: every finding, every followed cycle, today's remediate running. */
export function loaded(s: SnapshotLike, fx: HistoryFixture, findings: number): boolean {
  const loop = s.loops.find((l) => l.name === 'reliability');
  if (!loop || s.findings.length !== findings || loop.cycles.length !== fx.followed) return false;
  const newest = loop.cycles.find((c) => c.date === fx.today);
  const oldest = loop.cycles[loop.cycles.length - 1];
  // Today's remediate is running (or, with a cap shorter than its age, already past it).
  const status = newest?.phases.find((p) => p.name === 'remediate')?.status;
  const running = status === 'running' || (fx.pastCap && status === 'incomplete');
  return running && (oldest?.phases.every((p) => p.status !== 'pending') ?? false);
}
