import { type Capacity, type Cycle, type DeadmanState, type DrillRun, type FailureCause, type Finding, type HostState, type LoopState, type Phase, type PhaseStatus, type PullRequest, type Severity, type Snapshot } from './domain';
import { fleetIncidents, INCIDENT_KINDS, INCIDENT_LABEL, type FleetIncident } from './fleet-incidents';
import { causeText } from './causes';
import { loopBaselineAt } from './night-suites';
import { phaseSuiteTotals, suiteSentence } from './suite-summary';
import { codeSpan, escapeMarkdown, markdownUrl } from './markdown-text';
import { WAITING_LABEL, waitingOnYou, type WaitingItem } from './waiting';
import { preflightMarkdown, type Preflight } from './preflight';
import { contractMarkdown, type ContractBreach } from './contract-breach';
import type { DeskMerge } from './pr-desk';
import { mergedFromConsole, mergedLine, mergeText, type SummaryMerged } from './review-merges';

// The morning summary to paste: one pure derivation shared by the Review screen's "Copy as Markdown"
// and `loopdeck review`, so the two print the same thing for the same state.

export { fleetIncidents, type FleetIncident } from './fleet-incidents';

/** Without a review mark (or a `--since`), the summary covers this much. */
export const REVIEW_DEFAULT_WINDOW_MS = 24 * 3600_000;
/** How many P0/P1 findings the summary lists before "and N more" (a first start sees every ledger row as new). */
export const REVIEW_FINDING_LIMIT = 50;
/** How many cycles per loop the summary lists (a `--since` months back would list them all). */
export const REVIEW_CYCLE_LIMIT = 31;

/** The parts of a snapshot the summary reads; the renderer's store holds the same fields. */
export type ReviewInput = Pick<Snapshot, 'hosts' | 'loops' | 'findings' | 'backlog' | 'tasks' | 'prs' | 'drillRuns' | 'capacity' | 'lastReviewedAt'> & Partial<Pick<Snapshot, 'drills' | 'preflight' | 'contract' | 'desk'>>;

/** What a host that cannot be read is doing, for a sentence. */
const HOST_PROBLEM: Readonly<Partial<Record<HostState['state'], string>>> = {
  unreachable: 'unreachable',
  reconnecting: 'reconnecting',
  untrusted: 'not trusted yet (its host key is unknown)',
  'hostkey-mismatch': 'presenting a changed host key',
  'auth-failed': 'refusing the key',
};

/**
 * Why a loop's host cannot be read now, or null (connected, or still making its first
 * connection): one rule for the Review screen and the summary. What is shown of its loops is
 * then what was read or stored before, and their dead-man cannot see a missed cycle, so the loop
 * needs a person.
 */
export function hostProblem(host: HostState | undefined): string | null {
  const what = host && HOST_PROBLEM[host.state];
  if (!host || !what) return null;
  const since = host.since ? ` since ${host.since.slice(0, 16).replace('T', ' ')} UTC` : '';
  return `Host ${host.name} is ${what}${since}: its loops cannot be read, so what is shown of them may be out of date, and a missed cycle cannot be seen.`;
}

/** Where a cycle stopped: its first failed, incomplete or running phase, else the last phase that ran. */
export interface SummaryStop {
  readonly phase: string;
  readonly status: PhaseStatus;
  readonly stage: string | null;
  readonly step: string | null;
  /** Why the phase has that status (which evidence decided it). */
  readonly reason: string;
  /** The transcript line it is about (see phaseStop), or null: its transcript then opens on its last screen. */
  readonly line: number | null;
  /** Who it is put down to, when it stopped badly or hung (see FailureCauseSchema), else null. */
  readonly cause: FailureCause | null;
  /** What its suites said against the loop's baseline (`40 failed — 3 beyond the baseline of 37`); absent when its transcript showed none. */
  readonly suites?: string;
}

/** One cycle that ran in the window. */
export interface SummaryCycle {
  readonly date: string;
  readonly status: PhaseStatus;
  readonly stop: SummaryStop | null;
}

/** One loop: its dead-man state and the cycles that ran in the window, newest first. */
export interface SummaryLoop {
  readonly loop: string;
  readonly host: string;
  readonly deadman: { readonly state: DeadmanState; readonly reason: string } | null;
  /** Why its host cannot be read now (see hostProblem), or null. */
  readonly hostProblem: string | null;
  readonly cycles: readonly SummaryCycle[];
  /** Cycles in the window beyond `REVIEW_CYCLE_LIMIT`. */
  readonly moreCycles: number;
}

/** A new P0/P1 finding and where it is. */
export interface SummaryFinding {
  readonly id: string;
  readonly loop: string;
  readonly severity: 'P0' | 'P1';
  readonly where: string | null;
  readonly text: string;
  readonly firstSeenAt: string;
}

/** A pull request waiting to be merged. */
export interface SummaryPr {
  readonly loop: string;
  readonly url: string;
  readonly number: number | null;
  readonly branch: string | null;
  readonly since: string | null;
  /** The merge made from the console's merge desk (a ready PR the tracker has not read merged yet), or null. */
  readonly merged: DeskMerge | null;
}

/** A drill run started in the window (or still running). */
export interface SummaryDrill {
  readonly id: string;
  readonly drill: string;
  readonly host: string;
  readonly status: DrillRun['status'];
  readonly rc: number | null;
  readonly args: Readonly<Record<string, string>>;
  readonly user: string;
  readonly startedAt: string;
}

/** An inference host down or saturated, or another fleet incident, as last polled. */
export type SummaryIncident = Omit<FleetIncident, 'since'>;

/** The summary model: what `loopdeck review --json` prints and the Markdown is rendered from. */
export interface ReviewSummary {
  readonly schema: 1;
  /** Start of the window (ISO, UTC). */
  readonly since: string;
  /** Where `since` came from. */
  readonly sinceFrom: 'option' | 'last-review' | 'default-24h';
  /** Everything waiting on a person, whenever it started waiting (see shared/waiting.ts). */
  readonly waiting: readonly WaitingItem[];
  readonly loops: readonly SummaryLoop[];
  readonly findings: {
    /** New findings of every severity in the window. */
    readonly counts: Readonly<Record<Severity | 'none', number>>;
    /** New P0/P1 findings, P0 first then newest, at most `REVIEW_FINDING_LIMIT`. */
    readonly items: readonly SummaryFinding[];
    /** P0/P1 findings left off the list. */
    readonly more: number;
  };
  readonly prs: readonly SummaryPr[];
  /** PRs merged from the console in the window, no longer ready (see mergedFromConsole). */
  readonly merged: readonly SummaryMerged[];
  readonly drills: readonly SummaryDrill[];
  readonly incidents: readonly SummaryIncident[];
  /** Each loop's pre-flight before its next fire, while one has run (see shared/preflight.ts). */
  readonly preflight: readonly Preflight[];
  /** Where the loops broke their manual's rules (shared/contract-breach.ts), in the list's order. */
  readonly contract: readonly ContractBreach[];
}

/** Options of `buildReviewSummary`. */
export interface ReviewSummaryOptions {
  /** The current time (ms since the epoch), for the default window. */
  readonly now: number;
  /** Start of the window; defaults to the last review, else 24 hours before `now`. */
  readonly since?: string | null;
  readonly findingLimit?: number;
}

function ms(iso: string | null | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : NaN;
}

/** The window start the summary uses: an explicit time, else the last review, else 24 hours before `now`. */
export function reviewWindow(lastReviewedAt: string | null, now: number, since?: string | null): Pick<ReviewSummary, 'since' | 'sinceFrom'> {
  if (since != null) {
    const t = ms(since);
    if (Number.isNaN(t)) throw new Error(`since: expected an ISO time such as 2026-11-30T07:00:00Z, got ${JSON.stringify(since)}`);
    return { since: new Date(t).toISOString(), sinceFrom: 'option' };
  }
  const last = ms(lastReviewedAt);
  if (!Number.isNaN(last)) return { since: new Date(last).toISOString(), sinceFrom: 'last-review' };
  return { since: new Date(now - REVIEW_DEFAULT_WINDOW_MS).toISOString(), sinceFrom: 'default-24h' };
}

// The review's rules, one set for the Review screen (renderer/src/features/review) and the
// Markdown summary: which phases stopped, where in their rc stages, and which cycles the window holds.

/** A phase that stopped badly: it failed, or ended without finishing its stages. */
export function stoppedBadly(status: PhaseStatus): boolean {
  return status === 'failed' || status === 'incomplete';
}

/** Where a cycle is or stopped: its first phase that stopped badly or is running. */
export function stoppingPhase(cycle: Cycle): Phase | undefined {
  return cycle.phases.find((p) => stoppedBadly(p.status) || p.status === 'running');
}

/**
 * Where a phase stopped. In its rc stages: its first unfinished stage and the step it stopped at,
 * else its first stage with a failing step and that step. In its transcript: the line its signal
 * is about (hung, spinning, the watchdog's kill), else its verdict's line, else null.
 */
export function phaseStop(phase: Phase): { readonly stage: string | null; readonly step: string | null; readonly line: number | null } {
  const line = phase.signal?.line ?? phase.verdict?.lineNumber ?? null;
  const failingStep = (s: Phase['stages'][number]) => s.steps.find((st) => st.rc !== null && st.rc !== 0);
  const open = phase.stages.find((s) => !s.done);
  if (open) return { stage: open.name, step: open.stoppedAt, line };
  const failing = phase.stages.find((s) => failingStep(s) !== undefined);
  return failing ? { stage: failing.name, step: failingStep(failing)?.name ?? null, line } : { stage: null, step: null, line };
}

/** Whether a time (ISO) falls in the window starting at `since` (ms): strictly after it. */
export function inWindow(iso: string | null | undefined, since: number): boolean {
  return ms(iso) > since;
}

/** Whether a cycle ran in the window: a phase of it started or ended after `since` (ms). */
export function ranInWindow(cycle: Cycle, since: number): boolean {
  return cycle.phases.some((p) => inWindow(p.startedAt, since) || inWindow(p.endedAt, since));
}

/** Whether a drill run belongs to the window: still running, or started in it. */
export function drillRunInWindow(run: Pick<DrillRun, 'status' | 'startedAt'>, since: number): boolean {
  return run.status === 'running' || inWindow(run.startedAt, since);
}

function stopOf(cycle: Cycle, loop: Pick<LoopState, 'cycles' | 'knownFailures'>): SummaryStop | null {
  const stopping = stoppingPhase(cycle);
  const phase: Phase | undefined = stopping ?? [...cycle.phases].reverse().find((p) => p.status !== 'pending');
  if (!phase) return null;
  const { stage, step, line } = stopping ? phaseStop(phase) : { stage: null, step: null, line: null };
  const totals = phase.suites ? phaseSuiteTotals(phase.suites) : null;
  const suites = totals ? { suites: suiteSentence(totals, loopBaselineAt(loop, cycle.date)?.failed ?? null) } : {};
  return { phase: phase.name, status: phase.status, stage, step, reason: phase.reason, line, cause: stopping ? (phase.cause ?? null) : null, ...suites };
}

const byDesc = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);
const byAsc = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function incidents(capacity: readonly Capacity[]): SummaryIncident[] {
  const out = fleetIncidents(capacity).map(({ since: _since, ...incident }): SummaryIncident => incident);
  const rank = (i: SummaryIncident): number => INCIDENT_KINDS.indexOf(i.kind);
  return out.sort((a, b) => rank(a) - rank(b) || byAsc(a.proxy, b.proxy) || byAsc(a.host, b.host));
}

/** Build the summary model from the state; sorted so the renderer's store and a snapshot give the same result. */
export function buildReviewSummary(input: ReviewInput, options: ReviewSummaryOptions): ReviewSummary {
  const window = reviewWindow(input.lastReviewedAt, options.now, options.since);
  const t = ms(window.since);
  const limit = options.findingLimit ?? REVIEW_FINDING_LIMIT;

  const hosts = new Map(input.hosts.map((h) => [h.name, h]));
  const loops = input.loops.map((loop): SummaryLoop => {
    const ran = [...loop.cycles].filter((c) => ranInWindow(c, t)).sort((a, b) => byDesc(a.date, b.date));
    return {
      loop: loop.name,
      host: loop.host,
      deadman: loop.deadman ? { state: loop.deadman.state, reason: loop.deadman.reason } : null,
      hostProblem: hostProblem(hosts.get(loop.host)),
      cycles: ran.slice(0, REVIEW_CYCLE_LIMIT).map((c) => ({ date: c.date, status: c.status, stop: stopOf(c, loop) })),
      moreCycles: Math.max(0, ran.length - REVIEW_CYCLE_LIMIT),
    };
  });

  const counts = { P0: 0, P1: 0, P2: 0, P3: 0, none: 0 };
  const urgent: Finding[] = [];
  for (const f of input.findings) {
    if (!inWindow(f.firstSeenAt, t)) continue;
    counts[f.severity ?? 'none'] += 1;
    if (f.severity === 'P0' || f.severity === 'P1') urgent.push(f);
  }
  urgent.sort((a, b) => byAsc(a.severity ?? '', b.severity ?? '') || byDesc(a.firstSeenAt, b.firstSeenAt) || byAsc(a.loop, b.loop) || byAsc(a.id, b.id));
  const items = urgent.slice(0, limit).map(
    (f): SummaryFinding => ({ id: f.id, loop: f.loop, severity: f.severity as 'P0' | 'P1', where: f.where, text: f.text, firstSeenAt: f.firstSeenAt }),
  );

  const desk = input.desk ?? [];
  const ready = input.prs.filter((p: PullRequest) => p.status === 'ready');
  const prs = ready
    .map((p): SummaryPr => ({ loop: p.loop, url: p.url, number: p.number, branch: p.branch, since: p.since, merged: desk.find((d) => d.loop === p.loop && d.number === p.number)?.merged ?? null }))
    .sort((a, b) => byAsc(a.loop, b.loop) || byAsc(a.url, b.url));
  const merged = mergedFromConsole(desk, ready, t)
    .map((d): SummaryMerged => ({ loop: d.loop, url: d.url, number: d.number, head: d.head, merged: d.merged }))
    .sort((a, b) => byAsc(a.merged.at, b.merged.at) || byAsc(a.loop, b.loop) || a.number - b.number);

  const drills = input.drillRuns
    .filter((r) => drillRunInWindow(r, t))
    .map((r): SummaryDrill => ({ id: r.id, drill: r.drill, host: r.host, status: r.status, rc: r.rc, args: r.args, user: r.user, startedAt: r.startedAt }))
    .sort((a, b) => byDesc(a.startedAt, b.startedAt) || byAsc(a.id, b.id));

  const waiting = waitingOnYou(input, options.now);
  return { schema: 1, ...window, waiting, loops, findings: { counts, items, more: urgent.length - items.length }, prs, merged, drills, incidents: incidents(input.capacity), preflight: input.preflight ?? [], contract: input.contract ?? [] };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function stopText(stop: SummaryStop): string {
  const where = [stop.phase, stop.stage, stop.step].filter((x): x is string => !!x).map(escapeMarkdown).join(' › ');
  const verb = stop.status === 'running' ? 'running' : stoppedBadly(stop.status) ? 'stopped at' : 'finished at';
  const line = stop.line !== null ? ` (transcript line ${stop.line})` : '';
  const cause = stop.cause ? ` · cause ${escapeMarkdown(causeText(stop.cause))}` : '';
  const suites = stop.suites ? ` · suites ${escapeMarkdown(stop.suites)}` : '';
  return `${verb} ${where}${stop.reason ? ` — ${escapeMarkdown(stop.reason)}` : ''}${line}${cause}${suites}`;
}

function loopLines(l: SummaryLoop, since: string): string[] {
  const dead = l.deadman && l.deadman.state !== 'ok' ? ` — dead-man **${l.deadman.state}**: ${escapeMarkdown(l.deadman.reason)}` : '';
  const lines = [`- **${escapeMarkdown(l.loop)}** on ${escapeMarkdown(l.host)}${dead}`];
  if (l.hostProblem) lines.push(`  - ${escapeMarkdown(l.hostProblem)}`);
  if (l.cycles.length === 0) lines.push(`  - no cycle ran since ${since}`);
  for (const c of l.cycles) lines.push(`  - ${escapeMarkdown(c.date)} · **${c.status}**${c.stop ? ` · ${stopText(c.stop)}` : ''}`);
  if (l.moreCycles > 0) lines.push(`  - and ${plural(l.moreCycles, 'earlier cycle', 'earlier cycles')}`);
  return lines;
}

function findingLine(f: SummaryFinding): string {
  const where = f.where ? ` ${codeSpan(f.where)}` : '';
  return `- **${f.severity}** ${codeSpan(f.id)}${where} — ${escapeMarkdown(f.text)} (${escapeMarkdown(f.loop)})`;
}

function prLine(p: SummaryPr): string {
  const name = p.number !== null ? `#${p.number}` : 'PR';
  const branch = p.branch ? ` ${codeSpan(p.branch)}` : '';
  return `- ${escapeMarkdown(p.loop)} ${name}${branch} — ${markdownUrl(p.url)}${p.merged ? ` — ${mergeText(p.merged)}` : ''}`;
}

function drillLine(d: SummaryDrill): string {
  const args = Object.entries(d.args).map(([k, v]) => `${k}=${v}`);
  const rc = d.rc !== null ? ` (rc ${d.rc})` : '';
  const detail = [args.length ? escapeMarkdown(args.join(' ')) : null, `by ${escapeMarkdown(d.user)}`, `started ${d.startedAt}`].filter(Boolean).join(', ');
  return `- **${escapeMarkdown(d.drill)}** on ${escapeMarkdown(d.host)} — ${d.status}${rc}; ${detail}`;
}

function incidentLine(i: SummaryIncident): string {
  const planned = i.planned ? ` (planned: ${escapeMarkdown(i.planned.reason)}, until ${i.planned.until})` : '';
  return `- **${escapeMarkdown(i.host)}** via ${escapeMarkdown(i.proxy)} — ${INCIDENT_LABEL[i.kind]}${planned}: ${escapeMarkdown(i.detail)}`;
}

function waitingLines(w: WaitingItem): string[] {
  const since = w.since ? ` (waiting since ${escapeMarkdown(w.since)})` : '';
  const lines = [`- **${WAITING_LABEL[w.kind]}** ${escapeMarkdown(w.loop)} ${codeSpan(w.id)} — ${escapeMarkdown(w.action)}${since}`];
  if (w.kind === 'stopped' && w.detail) lines.push(`  - notes: ${escapeMarkdown(w.detail)}`);
  if (w.kind === 'pr' && w.detail) lines.push(`  - ${markdownUrl(w.detail)}`);
  for (const b of w.before) lines.push(`  - before the merge: ${escapeMarkdown(b)}`);
  return lines;
}

/** The waiting items listed (at most REVIEW_FINDING_LIMIT), then how many more. */
export function waitingList(items: readonly WaitingItem[]): string[] {
  const lines = items.slice(0, REVIEW_FINDING_LIMIT).flatMap(waitingLines);
  const more = items.length - REVIEW_FINDING_LIMIT;
  if (more > 0) lines.push(`- and ${more} more waiting`);
  return lines;
}

export function section(title: string, lines: readonly string[], none: string): string[] {
  return ['', `## ${title}`, '', ...(lines.length ? lines : [none])];
}

/** The loops that need a person: a dead-man not ok, a host problem, a failed or incomplete cycle. */
export function needyLoops(s: ReviewSummary): number {
  return s.loops.filter((l) => (l.deadman && l.deadman.state !== 'ok') || l.hostProblem !== null || l.cycles.some((x) => x.status === 'failed' || x.status === 'incomplete')).length;
}

/** The summary's one-line headline: loops needing attention, new findings, PRs, drills, incidents. */
export function reviewHeadline(s: ReviewSummary): string {
  const c = s.findings.counts;
  const newTotal = c.P0 + c.P1 + c.P2 + c.P3 + c.none;
  const bySev = (['P0', 'P1', 'P2', 'P3'] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return [
    `${needyLoops(s)} of ${plural(s.loops.length, 'loop', 'loops')} need attention`,
    `${plural(newTotal, 'new finding', 'new findings')}${bySev.length ? ` (${bySev.join(', ')})` : ''}`,
    `${plural(s.prs.length, 'PR', 'PRs')} ready to merge`,
    ...(s.merged.length ? [`${s.merged.length} merged from the console`] : []),
    plural(s.drills.length, 'drill run', 'drill runs'),
    plural(s.incidents.length, 'fleet incident', 'fleet incidents'),
  ].join(' · ');
}

/** Render the summary as Markdown to paste into an issue or a chat; every piece of outside text is escaped. */
export function renderReviewMarkdown(s: ReviewSummary): string {
  const headline = reviewHeadline(s);
  const findings = s.findings.items.map(findingLine);
  if (s.findings.more > 0) findings.push(`- and ${s.findings.more} more P0/P1 ${s.findings.more === 1 ? 'finding' : 'findings'}`);
  return [
    `# Loopdeck review since ${s.since}`,
    '',
    headline,
    // Only once a pre-flight has run (inside a loop's lead before its fire).
    ...(s.preflight.length ? section('Tonight', preflightMarkdown(s.preflight), '') : []),
    ...section('Waiting on you', waitingList(s.waiting), 'Nothing.'),
    ...section('Broken contract', contractMarkdown(s.contract), 'None.'),
    ...section('What ran', s.loops.flatMap((l) => loopLines(l, s.since)), 'No loops are configured.'),
    ...section('New P0/P1 findings', findings, 'None.'),
    ...section('Ready to merge', [...s.prs.map(prLine), ...s.merged.map(mergedLine)], 'None.'),
    ...section('Drills run', s.drills.map(drillLine), 'None.'),
    ...section('Fleet incidents', s.incidents.map(incidentLine), 'None.'),
    '',
  ].join('\n');
}

/** The summary as Markdown, straight from the state: what the UI copies and `loopdeck review --markdown` prints. */
export function reviewMarkdown(input: ReviewInput, options: ReviewSummaryOptions): string {
  return renderReviewMarkdown(buildReviewSummary(input, options));
}
