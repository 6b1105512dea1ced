import { posix } from 'node:path';
import type { BacklogItem, Cycle, LoopState, Phase } from '../../../shared/domain';
import type { ContractBreach } from '../../../shared/contract-breach';
import type { LoopConfig } from '../config/schema';
import type { PerCycle } from './per-cycle';

// The rules of the loop's manual that its own state shows broken: a phase's stamps, rc files and
// verdict, and its log's outcomes. Pure over what was read; the other kinds come from the
// ledgers' follower (rewrites, ids, anchors) and the branch's reflog.

/** Where a loop's files are: what a breach's evidence names. */
export interface LoopPaths {
  readonly runs: string;
  readonly layout: LoopConfig['layout'];
  /** RELIABILITY_LOG.md, or null when the loop has none configured. */
  readonly log: string | null;
}

/** The paths of a loop's config. */
export function loopPaths(config: Pick<LoopConfig, 'runs' | 'layout' | 'dir' | 'ledgers'>): LoopPaths {
  const rel = config.ledgers.log;
  const log = rel && config.dir ? (posix.isAbsolute(rel) ? rel : posix.join(config.dir, rel)) : rel && posix.isAbsolute(rel) ? rel : null;
  return { runs: config.runs, layout: config.layout, log };
}

const transcriptOf = (paths: LoopPaths, date: string, phase: string): string => posix.join(paths.runs, date, paths.layout.log.replaceAll('{phase}', phase));
const rcOf = (paths: LoopPaths, date: string, phase: string, stage: string): string =>
  posix.join(paths.runs, date, paths.layout.rc.replaceAll('{phase}', phase).replaceAll('{stage}', stage));

/** Stamped final, as the manual's completion marker: `OK` or `NO-OP`. */
const stampedFinal = (p: Phase): boolean => p.status === 'ok' || p.status === 'no-op';

/** One phase's breaches: hollow, unfinished-stage, no-verdict. */
export function phaseBreaches(loop: string, cycle: Cycle, phase: Phase, paths: LoopPaths): ContractBreach[] {
  const out: ContractBreach[] = [];
  const base = { loop, date: cycle.date, phase: phase.name, since: phase.endedAt };
  const transcript = { file: transcriptOf(paths, cycle.date, phase.name), line: null, url: null };
  if (phase.hollow) {
    out.push({
      ...base,
      kind: 'hollow',
      id: null,
      detail: `${phase.name} ended ${phase.status} while ${phase.hollow.items.join(', ')} of this cycle's audit or earlier had no DONE, BLOCKED or operator-only outcome`,
      evidence: { file: paths.log, line: null, url: null },
    });
  }
  if (stampedFinal(phase)) {
    for (const stage of phase.stages) {
      if (stage.done) continue;
      out.push({
        ...base,
        kind: 'unfinished-stage',
        id: stage.name,
        detail: `${phase.name} is stamped ${phase.status === 'ok' ? 'OK' : 'NO-OP'} while its ${stage.name} stage has no DONE${stage.stoppedAt ? ` (stopped at ${stage.stoppedAt})` : ''}`,
        evidence: { file: rcOf(paths, cycle.date, phase.name, stage.name), line: null, url: null },
      });
    }
  }
  if (phase.noVerdict) {
    out.push({
      ...base,
      kind: 'no-verdict',
      id: null,
      detail: `${phase.name} exited 0 (stamped OK) but its transcript does not end with a READY or INCOMPLETE verdict line: incomplete`,
      evidence: transcript,
    });
  }
  return out;
}

/** A log outcome naming DEFERRED (leading markup ignored, any case). */
const isDeferred = (outcome: string): boolean => /^deferred\b/i.test(outcome.replace(/^[^A-Za-z]+/, ''));

/** `deferred`: each log row whose outcome is DEFERRED ("not an allowed outcome"). */
export function deferredBreaches(loop: string, backlog: readonly BacklogItem[], paths: LoopPaths): ContractBreach[] {
  const out: ContractBreach[] = [];
  for (const item of backlog) {
    for (const o of item.outcomes) {
      if (!isDeferred(o.outcome)) continue;
      const day = o.date ? (/\d{4}-\d{2}-\d{2}/.exec(o.date)?.[0] ?? null) : null;
      out.push({
        kind: 'deferred',
        loop,
        date: day,
        phase: null,
        id: item.id,
        detail: `${item.id} has a DEFERRED outcome in the log${day ? ` (${day})` : ''}${o.note ? `: ${o.note}` : ''}`,
        // As "Waiting on you" dates a row: the day it carries when that is before Loopdeck first read it.
        since: day && (!o.firstSeenAt || day < o.firstSeenAt.slice(0, 10)) ? day : (o.firstSeenAt ?? day),
        evidence: { file: paths.log, line: o.line, url: null },
      });
    }
  }
  return out;
}

/** What a loop's list is made of. */
export interface LoopContractInput {
  readonly loop: LoopState;
  readonly paths: LoopPaths;
  readonly backlog: readonly BacklogItem[];
  /** Breaches found elsewhere (the ledgers' follower, the branch's reflog), already for this loop. */
  readonly more: readonly ContractBreach[];
}

/**
 * Every breach of one loop, over its followed cycles and its ledgers; `byCycle` keeps each cycle's
 * (renewed by the caller for the loop's paths).
 */
export function loopBreaches(input: LoopContractInput, byCycle?: PerCycle<readonly ContractBreach[]>): ContractBreach[] {
  const { loop, paths } = input;
  const derive = (cycle: Cycle): readonly ContractBreach[] => cycle.phases.flatMap((phase) => phaseBreaches(loop.name, cycle, phase, paths));
  const out: ContractBreach[] = [];
  for (const cycle of loop.cycles) out.push(...(byCycle ? byCycle.of(cycle, derive) : derive(cycle)));
  out.push(...deferredBreaches(loop.name, input.backlog, paths), ...input.more);
  return out;
}
