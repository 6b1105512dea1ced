import type { PhaseFileKind } from './line-parser';

/** File name patterns inside a cycle folder; `{phase}` and `{stage}` are placeholders. */
export interface Layout {
  readonly status: string;
  readonly log: string;
  readonly rc: string;
}

/** A file of a cycle folder that belongs to a phase. */
export interface PhaseFile {
  readonly phase: string;
  readonly kind: PhaseFileKind;
  /** For rc files: the stage name taken from the file name. */
  readonly stage: string | null;
  readonly name: string;
}

const CYCLE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a folder name is a cycle's (`YYYY-MM-DD`). */
export function isCycleFolder(name: string): boolean {
  if (!CYCLE_DATE.test(name)) return false;
  // Date.parse takes 2026-02-30 (as 2 March): the day must survive the round trip.
  const t = Date.parse(`${name}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === name;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function patternRegex(pattern: string, phase: string): RegExp {
  const parts = pattern.split(/(\{phase\}|\{stage\})/);
  const body = parts
    .map((p) => (p === '{phase}' ? escapeRegex(phase) : p === '{stage}' ? '(?<stage>[^/]+?)' : escapeRegex(p)))
    .join('');
  return new RegExp(`^${body}$`);
}

/**
 * Sort a cycle folder's file names into phase files by the loop's layout. Names that match no
 * pattern are ignored: the runner keeps other things there too.
 */
export function classifyCycleFiles(names: readonly string[], phases: readonly string[], layout: Layout): PhaseFile[] {
  const out: PhaseFile[] = [];
  for (const phase of phases) {
    const status = patternRegex(layout.status, phase);
    const log = patternRegex(layout.log, phase);
    const rc = patternRegex(layout.rc, phase);
    for (const name of names) {
      if (status.test(name)) out.push({ phase, kind: 'status', stage: null, name });
      else if (log.test(name)) out.push({ phase, kind: 'log', stage: null, name });
      else {
        const m = rc.exec(name);
        const stage = m?.groups?.stage;
        // `audit.x.rc` must not be taken for a stage of phase `audit` when `audit.x` is itself a phase.
        if (stage !== undefined && !phases.some((p) => p !== phase && name.startsWith(`${p}.`) && p.startsWith(`${phase}.`))) {
          out.push({ phase, kind: 'rc', stage, name });
        }
      }
    }
  }
  return out;
}
