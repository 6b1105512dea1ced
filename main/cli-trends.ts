import { nightsCostText, trendsReport, type LoopReport, type TrendsReport } from '../shared/loop-measures';
import { awaitingText, waitText } from '../shared/merge-measures';
import { createTrendsMemo } from '../shared/trends';
import { CliError, type Flags } from './cli-args';
import { withState } from './cli-common';
import { formatDuration } from './core/config/duration';
import { logSafe } from './core/logging/log-text';

// `loopdeck trends [LOOP] [--nights N] [--json]`: what the Trends view shows, from the same
// derivation (shared/loop-measures.ts trendsReport over shared/trends.ts), on the followed cycles
// and the nights the store keeps.

/** The most nights `--nights` takes (the `history` setting's maximum; a series stops at 1,000 points). */
const MAX_NIGHTS = 1000;

function nightsOf(flags: Flags): number {
  if (flags.nights === undefined) return 30;
  const n = Number(flags.nights);
  if (!Number.isInteger(n) || n < 1 || n > MAX_NIGHTS) throw new CliError(`--nights: expected a whole number of nights from 1 to ${MAX_NIGHTS}, got ${JSON.stringify(flags.nights)}`);
  return n;
}

const pct = (v: number | null): string => (v === null ? '—' : `${Math.round(v * 100)}%`);
const dur = (ms: number | null | undefined): string => (ms == null ? '—' : formatDuration(ms));

/** A night's time from its remediate start to CI green, naming the next fire's night when the green came then (`28.0 h on 08-31`). */
const greenCell = (g: LoopReport['nights'][number]['remediateToGreen'], date: string): string => (g === null ? '—' : `${waitText(g.ms)}${g.on === date ? '' : ` on ${g.on.slice(5)}`}`);
/** A night's suites as `passed/failed` (`—` when no transcript showed one). */
const suitesCell = (s: LoopReport['nights'][number]['suites']): string => (s === null ? '—' : `${s.passed}/${s.failed}`);
/** The PRs awaiting merge named in the text output; the JSON has them all. */
const NAMED_PRS = 10;

function printLoop(l: LoopReport): void {
  const lines: string[] = [`${l.loop}`, `  success: last 7 nights ${pct(l.successRate.thisWeek)}, the 7 before ${pct(l.successRate.lastWeek)}`];
  lines.push(`  failures by cause: fleet ${l.failures.fleet}, runner ${l.failures.runner}, agent ${l.failures.agent}, unknown ${l.failures.unknown}`);
  lines.push(l.flags.length === 0 ? '  regressions: none' : '  regressions:', ...l.flags.map((f) => `    ${f.date}  ${f.kind}  ${f.text}`));
  const waiting = (l.awaitingMerge?.prs ?? []).map((p) => `${p.number === null ? p.url : `#${p.number}`} ${waitText(p.ageMs)}`);
  const named = waiting.length > NAMED_PRS ? [...waiting.slice(0, NAMED_PRS), `and ${waiting.length - NAMED_PRS} more`] : waiting;
  lines.push(`  awaiting merge: ${awaitingText(l.awaitingMerge)}${named.length > 0 ? ` (${named.join(', ')})` : ''}`);
  if (l.baseline) lines.push(`  known failures: ${l.baseline.failed} (${l.baseline.from === 'declared' ? 'knownFailures in the config' : `learned from ${l.baseline.nights} green nights`})`);
  const phases = l.phases.map((p) => p.phase);
  lines.push(`  ${['night     ', 'outcome   ', ...phases.map((p) => p.padEnd(10)), 'new', 'done', 'backlog', 'prs', 'suites       ', 'to green        ', 'awaiting merge  ', 'flags'].join(' ')}`);
  for (const n of l.nights) {
    const cells = [n.date, (n.outcome ?? '—').padEnd(10), ...phases.map((p) => dur(n.durations[p]).padEnd(10)), String(Object.values(n.opened).reduce((a, b) => a + b, 0)).padStart(3), String(Object.values(n.closed).reduce((a, b) => a + b, 0)).padStart(4), String(n.backlog).padStart(7), String(n.prs).padStart(3), suitesCell(n.suites).padEnd(13), greenCell(n.remediateToGreen, n.date).padEnd(16), awaitingText(n.awaitingMerge === null ? null : { count: n.awaitingMerge, oldestMs: n.oldestAwaitingMs }).padEnd(16), n.flags.join(',')];
    lines.push(`  ${cells.join(' ')}`);
  }
  lines.push(l.churn.length === 0 ? '  churn: none' : `  churn (${l.churn.length}):`, ...l.churn.map((c) => `    ${c.date ?? 'undated'}  ${c.kind}  ${c.text}`));
  lines.push('  measures:');
  for (const m of l.measures) {
    lines.push(
      `    ${String(m.nights).padStart(2)} nights: implemented ${m.implemented}/${m.found} (${pct(m.implementedShare)}), PRs ${m.prs} (${m.prsPerNight === null ? '—' : m.prsPerNight.toFixed(2)} a night), audit → READY ${m.medianReadyHours === null ? '—' : `${m.medianReadyHours.toFixed(1)} h`} (median), remediate → green ${m.medianGreenHours === null ? '—' : `${m.medianGreenHours.toFixed(1)} h`} (median of ${m.greenNights}), reopened ${m.reopened}, tokens ${m.tokens ?? '—'} (${m.tokensPerPr === null ? '—' : Math.round(m.tokensPerPr)} a PR), cost ${nightsCostText(m.cost)}`,
    );
  }
  console.log(logSafe(lines.join('\n')));
}

/** Print the Trends report of every loop, or of LOOP; exit 1 when a source failed, as `snapshot` does. */
export function trends(flags: Flags, words: readonly string[]): Promise<number> {
  const [loop] = words;
  const days = nightsOf(flags);
  return withState(
    flags,
    'trends',
    (snap, engine) => {
      if (loop !== undefined && !snap.loops.some((l) => l.name === loop)) throw new CliError(`Unknown loop ${JSON.stringify(loop)}: the config's loops are ${snap.loops.map((l) => l.name).join(', ') || 'none'}.`);
      const pick = <T extends { readonly loop: string }>(rows: readonly T[]): readonly T[] => (loop === undefined ? rows : rows.filter((r) => r.loop === loop));
      const report: TrendsReport = trendsReport(createTrendsMemo(), {
        loops: loop === undefined ? snap.loops : snap.loops.filter((l) => l.name === loop),
        findings: pick(snap.findings),
        backlog: pick(snap.backlog),
        history: engine.nights.list(loop),
        days,
        now: snap.takenAt,
        prs: pick(snap.prs),
      });
      if (flags.json) return console.log(JSON.stringify(report, null, 2));
      console.log(`Trends ${report.from} → ${report.to} (${report.days} nights)`);
      for (const l of report.loops) printLoop(l);
    },
    { history: true },
  );
}
