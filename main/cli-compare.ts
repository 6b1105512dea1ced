import { NightDateSchema, type FleetWindow, type NightComparison, type NightFindings, type PhaseSide, type SuiteDelta } from '../shared/night-compare';
import { stripEscapes } from '../shared/transcript-text';
import { escapeUnsafe } from '../shared/unsafe-text';
import { CliError, type Flags } from './cli-args';
import { withState } from './cli-common';
import { NightCompareError } from './core/compare/compare-nights';
import { formatDuration } from './core/config/duration';

// `loopdeck compare LOOP DATE [DATE] [--json]`: night against night, as the console's compare view
// has it (the same service, `nights.compare`), after one read of the runner (the followed nights,
// the ledgers, the fleet).

const USAGE = 'Usage: loopdeck compare LOOP DATE [DATE] [--config FILE] [--data DIR] [--now ISO] [--json]';

/** Width of a night's column in the text output. */
const COLUMN = 44;

const dur = (ms: number | null): string => (ms === null ? '—' : formatDuration(ms));
const cell = (text: string): string => (text.length > COLUMN - 2 ? `${text.slice(0, COLUMN - 3)}…` : text).padEnd(COLUMN);

function phaseCells(p: PhaseSide | null): string[] {
  if (p === null) return ['(no such phase)'];
  const rounds = p.rounds > 1 ? `, ${p.rounds} rounds` : '';
  const lines = [`${p.status} ${dur(p.durationMs)}${rounds}`];
  if (p.cause) lines.push(`cause: ${p.cause.kind}`);
  lines.push(`commits: ${p.commits.count}`, ...p.commits.first.map((c) => `  ${c.sha.slice(0, 10)} ${c.message}`));
  lines.push(p.transcriptBytes === null ? 'no transcript' : `transcript ${p.transcriptBytes} bytes`);
  return lines;
}

function findingsText(f: NightFindings): string[] {
  const ids = (list: readonly string[], total: number): string => (total === 0 ? '' : ` (${list.join(', ')}${total > list.length ? `, and ${total - list.length} more` : ''})`);
  return [`opened ${f.openedTotal}${ids(f.opened, f.openedTotal)}`, `closed ${f.closedTotal}${ids(f.closed, f.closedTotal)}`];
}

function fleetText(w: FleetWindow | null): string[] {
  if (w === null) return ['no history kept for its window'];
  const rate = w.tokensPerSecond === null ? '—' : w.tokensPerSecond.toFixed(1);
  return [`${rate} tokens/s, queue peak ${w.queuedPeak ?? '—'}`, `${w.errors} failed request(s)`, `models: ${w.modelsServed.join(', ') || '—'}`];
}

const signed = (n: number | null): string => (n === null || n === 0 ? '' : ` (${n > 0 ? '+' : ''}${n})`);

/** One runner's suite on both nights: `failed 9 (+1), passed 32820 (-1) against failed 8, passed 32821`. */
function suiteText(d: SuiteDelta): string {
  const side = (t: SuiteDelta['a']): string => (t === null ? 'not run' : `failed ${t.failed}, passed ${t.passed}`);
  if (d.a === null || d.b === null) return `${side(d.a)} against ${side(d.b)}`;
  return `failed ${d.a.failed}${signed(d.failed)}, passed ${d.a.passed}${signed(d.passed)} against failed ${d.b.failed}, passed ${d.b.passed}`;
}

/** Rows of two columns under a label. */
function rows(label: string, a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) out.push(`${(i === 0 ? label : '').padEnd(11)}${cell(a[i] ?? '')}${b[i] ?? ''}`.trimEnd());
  return out;
}

/** The comparison as text, the two nights side by side. */
export function renderComparison(c: NightComparison): string {
  const picked = c.picked === 'last-good' ? ', the last good night before it' : '';
  const lines = [`${c.loop} on ${c.host}: ${c.a.date} (${c.a.status}) against ${c.b.date} (${c.b.status}${picked})`, ''];
  lines.push(...rows('', [c.a.date], [c.b.date]));
  for (const p of c.phases) {
    lines.push(...rows(p.name, phaseCells(p.a), phaseCells(p.b)));
    for (const d of p.suites ?? []) lines.push(`  ${d.runner}: ${suiteText(d)}`);
    const rc = p.firstRcDivergence;
    if (rc) lines.push(`  first rc step apart: ${rc.stage} › ${rc.step}: ${rc.a ?? 'not run'} against ${rc.b ?? 'not run'}`);
    const line = p.firstLineDivergence;
    if (line) {
      lines.push(`  first line apart: line ${line.lineA}`);
      const shown = (text: string | null): string => (text === null ? '(the transcript ended)' : stripEscapes(text));
      lines.push(`    ${c.a.date}: ${shown(line.a)}`, `    ${c.b.date}: ${shown(line.b)}`);
    } else if (p.transcript.stopped === null && p.transcript.lines > 0) lines.push(`  the transcripts agree (${p.transcript.lines} lines, once times and numbers are masked)`);
  }
  lines.push('');
  if (c.findings) lines.push(...rows('findings', findingsText(c.findings.a), findingsText(c.findings.b)));
  else lines.push('findings   not known (the loop has no ledgers, or they are not read)');
  lines.push(...rows('prs', c.prs.a.length > 0 ? [...c.prs.a] : ['none'], c.prs.b.length > 0 ? [...c.prs.b] : ['none']));
  lines.push(...rows('fleet', fleetText(c.fleet.a), fleetText(c.fleet.b)));
  if (c.notes.length > 0) lines.push('', 'notes:', ...c.notes.map((n) => `  ${n}`));
  // One line each: what the host wrote (a name, a transcript line) can neither drive the terminal nor pass for a line of its own.
  return `${lines.map((l) => escapeUnsafe(l)).join('\n')}\n`;
}

/** `loopdeck compare LOOP DATE [DATE]`: night DATE against the second DATE, or the last good night before it; exit 1 when a source failed, as `snapshot` does. */
export function compare(flags: Flags, words: readonly string[]): Promise<number> {
  const [loop, a, b, ...rest] = words;
  if (loop === undefined || a === undefined || rest.length > 0) throw new CliError(USAGE);
  for (const date of [a, b]) {
    if (date !== undefined && !NightDateSchema.safeParse(date).success) throw new CliError(`${JSON.stringify(date)} is not a night's date (YYYY-MM-DD).\n${USAGE}`);
  }
  return withState(flags, 'compare', async (snap, services) => {
    if (!snap.loops.some((l) => l.name === loop)) throw new CliError(`Unknown loop ${JSON.stringify(loop)}: the config's loops are ${snap.loops.map((l) => l.name).join(', ') || 'none'}.`);
    let result: NightComparison;
    try {
      result = await services.compare.compare({ loop, a, ...(b !== undefined ? { b } : {}) });
    } catch (err) {
      if (err instanceof NightCompareError) throw new CliError(err.message);
      throw err;
    }
    if (flags.json) console.log(JSON.stringify(result, null, 2));
    else process.stdout.write(renderComparison(result));
  });
}
