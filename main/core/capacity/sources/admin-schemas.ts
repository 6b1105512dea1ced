// zod schemas for the admin API answers Loopdeck reads (llama.cpp server, crossbar, gateway), and
// a lenient parse: a field of the wrong type is dropped and named (it then counts as missing),
// while the rest of the answer is still used. Proxies differ by version; one odd field must not
// hide a whole fleet. Bodies are at most 1 MiB and 32 levels deep before they get here (limits.ts).
import * as z from 'zod';
import { clip } from '../limits';

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A finite number, or a numeric string as some proxies send (`"16384"`). */
export const Num = z.union([z.number(), z.string().trim().regex(NUMERIC).transform(Number)], { error: 'expected a number' }).pipe(z.number());

/** A count: a non-negative number, rounded. */
export const Count = Num.pipe(z.number().nonnegative({ error: 'expected a count (0 or more)' })).transform(Math.round);

/** Absent or null: both mean the server did not say. */
const opt = <T extends z.ZodType>(schema: T) => schema.nullish();

/** llama.cpp `/health`: `{status: "ok"}`, or 503 `{error: {message: "Loading model"}}`. */
export const LlamaHealth = z.looseObject({ error: opt(z.looseObject({ message: opt(z.string()) })) });

/** llama.cpp `/props`: the figures Loopdeck reads. */
export const LlamaProps = z.looseObject({
  total_slots: opt(Count),
  default_generation_settings: opt(z.looseObject({ n_ctx: opt(Count) })),
  model_alias: opt(z.string()),
  model_path: opt(z.string()),
  build_info: opt(z.string()),
});

/** One entry of llama.cpp `/slots`; older servers say `state` (0 idle, 1 processing) instead of `is_processing`. */
export const LlamaSlot = z.looseObject({ is_processing: opt(z.boolean()), state: opt(Count), n_ctx: opt(Count) });

/** The `/slots` answer: an array (its entries are checked one by one, after the count limit). */
export const LlamaSlots = z.array(z.unknown());

const StatusCounts = z.record(z.string(), opt(Num));

/** A gateway's `/v1/ops/status` (`capacity` is required; the adapter says so when it is absent). */
export const GatewayStatus = z.looseObject({
  capacity: opt(
    z.looseObject({
      inflight_requests: opt(Count),
      inflight_high_water: opt(Num),
      total_shed: opt(Count),
      heap_size_limit_mb: opt(Num),
      heap_utilization_pct: opt(Num),
      // Where a gateway may state its shed threshold (often it does not: it is an env var).
      shed_threshold: opt(Num),
      max_inflight_requests: opt(Num),
      max_inflight: opt(Num),
      // Optional counters some gateways add.
      responses_by_status: opt(StatusCounts),
      status_counts: opt(StatusCounts),
      requests_total: opt(Num),
    }),
  ),
});

/** Whether a backend is up, in the shapes crossbar versions use: a boolean, a word, or an object holding one. */
export const UpValue = z.union([z.boolean(), z.string(), z.looseObject({})], { error: 'expected true/false, a word such as "ok", or an object' });

/** A crossbar `/_crossbar/hosts` answer: an array of host views, `{hosts: [...]}`, or an object keyed by name. */
export const CrossbarHosts = z.union([z.array(z.unknown()), z.looseObject({ hosts: z.array(z.unknown()) }), z.record(z.string(), z.unknown())]);

/** One crossbar `HostView` (field names of several crossbar versions). */
export const CrossbarHost = z.looseObject({
  name: opt(z.string()),
  host: opt(z.string()),
  id: opt(z.string()),
  up: opt(UpValue),
  healthy: opt(UpValue),
  health: opt(UpValue),
  status: opt(UpValue),
  n_ctx: opt(Count),
  nCtx: opt(Count),
  slots: opt(Count),
  total_slots: opt(Count),
  parallel: opt(Count),
  per_slot_ctx: opt(Count),
  inflight: opt(Count),
  in_flight: opt(Count),
  inFlight: opt(Count),
  queued: opt(Count),
  waiting: opt(Count),
  queue: opt(Count),
  error: opt(z.string()),
  models: opt(z.record(z.string(), z.unknown(), { error: 'expected an object keyed by model name' })),
});

/** One model of a crossbar host view. */
export const CrossbarModel = z.looseObject({
  n_ctx: opt(Count),
  nCtx: opt(Count),
  ctx: opt(Count),
  slots: opt(Count),
  total_slots: opt(Count),
  inflight: opt(Count),
  in_flight: opt(Count),
  inFlight: opt(Count),
  queued: opt(Count),
  waiting: opt(Count),
  queue: opt(Count),
});

/** Field problems named per answer; past this they are counted, so one broken proxy cannot fill the card. */
const MAX_FIELD_PROBLEMS = 3;

/** What a lenient parse gives: the value with bad fields dropped, and a line per dropped field. */
export type Lenient<T> = { readonly ok: true; readonly value: T; readonly problems: readonly string[] } | { readonly ok: false; readonly problem: string };

/** `capacity.total_shed`, `hosts[3].slots`: a field as a person would look for it in the JSON. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return clip(out || '(the answer itself)');
}

function describe(issue: z.core.$ZodIssue, input: unknown): string {
  let at: unknown = input;
  for (const p of issue.path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[p] : undefined;
  const got = at === null ? 'null' : Array.isArray(at) ? 'an array' : typeof at === 'string' ? JSON.stringify(clip(at, 40)) : typeof at === 'object' ? 'an object' : String(at);
  // zod says `Invalid input: expected object, received array`; the value itself is more use.
  const expected = issue.message.replace(/^Invalid input: /, '').replace(/, received [\w ]+$/, '');
  return `${fieldName(issue.path)}: ${expected}, got ${got}`;
}

function dropAt(root: unknown, path: readonly PropertyKey[]): void {
  let parent: unknown = root;
  for (const p of path.slice(0, -1)) parent = parent !== null && typeof parent === 'object' ? (parent as Record<PropertyKey, unknown>)[p] : undefined;
  const last = path[path.length - 1];
  if (parent === null || typeof parent !== 'object' || last === undefined) return;
  if (Array.isArray(parent) && typeof last === 'number') parent[last] = undefined;
  else delete (parent as Record<PropertyKey, unknown>)[last];
}

/**
 * Parse `input` with `schema`, dropping each field that does not fit (it then reads as absent)
 * and naming it in `problems`. Not ok only when the answer as a whole has the wrong shape.
 */
export function parseLenient<T>(schema: z.ZodType<T>, input: unknown): Lenient<T> {
  let result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data, problems: [] };
  const problems: string[] = [];
  let total = 0;
  // JSON values only (from JSON.parse), so a structured clone is exact; the caller's value stays whole.
  const copy: unknown = structuredClone(input);
  // Each round drops every field zod named; a field nested in a dropped one needs no second round,
  // but a union reports its members' issues one level up, so allow a few.
  for (let round = 0; round < 4 && !result.success; round++) {
    for (const issue of result.error.issues) {
      if (issue.path.length === 0) return { ok: false, problem: describe(issue, copy) };
      total++;
      if (problems.length < MAX_FIELD_PROBLEMS) problems.push(describe(issue, copy));
    }
    for (const issue of result.error.issues) dropAt(copy, issue.path);
    result = schema.safeParse(copy);
  }
  if (!result.success) return { ok: false, problem: describe(result.error.issues[0] as z.core.$ZodIssue, copy) };
  if (total > problems.length) problems.push(`and ${total - problems.length} more field(s) of the wrong type`);
  return { ok: true, value: result.data, problems };
}

/** The first of several alias fields the server set (crossbar versions name the same figure differently). */
export function first<T>(...values: readonly (T | null | undefined)[]): T | null {
  for (const v of values) if (v !== undefined && v !== null) return v;
  return null;
}
