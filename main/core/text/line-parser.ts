import type { Problem, Verdict } from '../../../shared/domain';
import type { SuiteLine } from '../../../shared/suite-summary';

/**
 * Records parsed from the runner's phase files, one per meaningful line. They are what the store
 * persists (with the file's offset, in one transaction) and what the phase model derives from.
 */
export type PhaseRecord =
  /** A wrapper stamp `PHASE STAMP STATUS` from `<phase>.status` (FORMATS.md §2.1). */
  | { readonly kind: 'stamp'; readonly line: number; readonly phase: string; readonly at: string; readonly status: string }
  /** A detail line under the previous stamp (indentation stripped). */
  | { readonly kind: 'detail'; readonly line: number; readonly text: string }
  /** A column-0 verdict line from `<phase>.log` (FORMATS.md §2.2), not yet filtered by loop/phase. */
  | { readonly kind: 'verdict'; readonly line: number; readonly verdict: Verdict }
  /** A column-0 `NIGHTLY ` line not in a verdict's exact shape (`why`, and the line quoted): a failed declaration only if it is the transcript's last line. */
  | { readonly kind: 'not-verdict'; readonly line: number; readonly why: string; readonly text: string }
  /** The first non-blank line after a verdict-shaped line: that line was not the last thing emitted, so it declares nothing. */
  | { readonly kind: 'after-verdict'; readonly line: number }
  /** `name_rc=` (rc null: planned, not run) or `name_rc=N` from an rc file (FORMATS.md §2.3). */
  | { readonly kind: 'rc'; readonly line: number; readonly name: string; readonly rc: number | null }
  /** The `DONE` sentinel of an rc file. */
  | { readonly kind: 'done'; readonly line: number }
  /** The first line of a transcript saying the disk is full (`No space left on device`, `ENOSPC`): the runner's fault, not the agent's. */
  | { readonly kind: 'disk-full'; readonly line: number; readonly text: string }
  /** A test runner's summary line or a gate battery's `NAME_RC=N` line in a transcript (FORMATS.md §2.8; shared/suite-summary.ts). */
  | { readonly kind: 'suite'; readonly line: number; readonly suite: SuiteLine };

/** What a line parser returns for one line: records, and problems naming the line. */
export interface LineParseResult<R = PhaseRecord> {
  readonly records: readonly R[];
  readonly problems: readonly Problem[];
}

/**
 * An incremental parser for one kind of line-oriented file. State is plain JSON so the store can
 * persist it with the file's offset: after a restart, parsing resumes exactly where it stopped.
 */
export interface LineParser<S, R = PhaseRecord> {
  /** The state before the first line of a file. */
  initial(): S;
  /** Parse one complete line (without its newline; a trailing `\r` and a leading BOM are the parser's to strip). */
  line(state: S, text: string, lineNo: number, source: string): { state: S; result: LineParseResult<R> };
}

/** Which parser a followed file gets, from its name. */
export type PhaseFileKind = 'status' | 'log' | 'rc';
