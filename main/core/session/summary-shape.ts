import {
  CapacitySchema,
  DeadmanStateSchema,
  DrillRunStatusSchema,
  HostConnStateSchema,
  HostStateSchema,
  PhaseStatusSchema,
  PullRequestSchema,
  VerdictKindSchema,
} from '../../../shared/domain';
import { CONTRACT_KINDS } from '../../../shared/contract-breach';
import { PreflightStateSchema } from '../../../shared/preflight';

// The shape of a saved summary, checked by hand: every top-level field, and the fields of each
// list's elements that name and place it (names, statuses, times, the nested lists). SummarySchema
// parses a year's summary (365 cycles, 500 notices) in 17-21 ms on the first call of a process, and
// 4-6 ms after; this check takes about 1 ms. The file is only ever written by this build's
// writeSummaryCache (the format hash says which build); the check is against a file damaged or
// edited since, so that the console waits for the first read instead of being answered it.

/**
 * A check of one value: null when it is right, else what is wrong with it and where, as the path
 * to it (innermost last) and what it is not. Built only on the way out of a failure: a path string
 * made for every field visited cost more than the checks.
 */
type Check = (value: unknown) => Fault | null;
interface Fault {
  readonly path: (string | number)[];
  readonly expected: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const is = (ok: (v: unknown) => boolean, expected: string): Check => (v) => (ok(v) ? null : { path: [], expected });
const str = is((v) => typeof v === 'string', 'a string');
const num = is((v) => typeof v === 'number' && Number.isFinite(v), 'a number');
const bool = is((v) => typeof v === 'boolean', 'true or false');
const nullable = (check: Check): Check => (v) => (v === null ? null : check(v));
const oneOf = (values: readonly unknown[]): Check => {
  const allowed = new Set(values);
  return is((v) => allowed.has(v), `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
};
const list =
  (item: Check): Check =>
  (v) => {
    if (!Array.isArray(v)) return { path: [], expected: 'a list' };
    for (let i = 0; i < v.length; i++) {
      const fault = item(v[i]);
      if (fault) return { path: [i, ...fault.path], expected: fault.expected };
    }
    return null;
  };
const record = (fields: Readonly<Record<string, Check>>): Check => {
  const entries = Object.entries(fields);
  return (v) => {
    if (!isObject(v)) return { path: [], expected: 'an object' };
    for (const [key, check] of entries) {
      const fault = check(v[key]);
      if (fault) return { path: [key, ...fault.path], expected: fault.expected };
    }
    return null;
  };
};

const step = record({ name: str, rc: nullable(num) });
const stage = record({ name: str, done: bool, stoppedAt: nullable(str), steps: list(step) });
const verdict = record({ kind: oneOf(VerdictKindSchema.options), loop: str, urls: list(str), line: str });
const phase = record({
  name: str,
  status: oneOf(PhaseStatusSchema.options),
  startedAt: nullable(str),
  endedAt: nullable(str),
  detail: list(str),
  stages: list(stage),
  verdict: nullable(verdict),
  reason: str,
});
const cycle = record({ date: str, status: oneOf(PhaseStatusSchema.options), phases: list(phase) });
const deadman = record({ state: oneOf(DeadmanStateSchema.options), expectedAt: nullable(str), lastFireAt: nullable(str), reason: str });
const optional = (check: Check): Check => (v) => (v === undefined ? null : check(v));
const count = is((v) => Number.isInteger(v) && (v as number) >= 0, 'a count');

const summary = record({
  schema: oneOf([1]),
  takenAt: str,
  hosts: list(record({ name: str, kind: oneOf(HostStateSchema.unwrap().shape.kind.options), state: oneOf(HostConnStateSchema.options), error: nullable(str), attempt: num })),
  loops: list(record({ name: str, host: str, cycles: list(cycle), deadman: nullable(deadman) })),
  problems: list(record({ source: str, line: nullable(num), message: str })),
  prs: list(record({ loop: str, url: str, number: nullable(num), status: oneOf(PullRequestSchema.unwrap().shape.status.options) })),
  capacity: list(record({ proxy: str, kind: oneOf(CapacitySchema.unwrap().shape.kind.options), host: str, up: bool, models: list(record({ id: str })) })),
  notices: list(record({ key: str, priority: oneOf([-2, -1, 0, 1, 2]), source: str, title: str, message: str, createdAt: str, acknowledgedAt: nullable(str), snoozedUntil: nullable(str) })),
  lastReviewedAt: nullable(str),
  drills: list(record({ name: str, host: str, timeoutMs: num, args: is(isObject, 'an object') })),
  drillRuns: list(record({ id: str, drill: str, host: str, startedAt: str, status: oneOf(DrillRunStatusSchema.options) })),
  ledgerRows: record({ findings: count, backlog: count, tasks: count, lessons: count, audits: count }),
  preflight: optional(list(record({ loop: str, fireAt: str, state: oneOf(PreflightStateSchema.options), checks: list(record({ name: str, ok: bool, status: str, detail: str })), checkedAt: str }))),
  contract: optional(list(record({ kind: oneOf(CONTRACT_KINDS), loop: str, date: nullable(str), phase: nullable(str), id: nullable(str), detail: str, since: nullable(str), evidence: record({ file: nullable(str), line: nullable(num), url: nullable(str) }) }))),
});

/** What is wrong with a saved summary's shape, naming the first wrong field (`summary.loops[0].cycles is not a list`), or null. */
export function savedSummaryFault(value: unknown): string | null {
  const fault = summary(value);
  if (!fault) return null;
  const where = fault.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
  return `summary${where} is not ${fault.expected}`;
}
