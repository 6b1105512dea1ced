import { createHash } from 'node:crypto';
import * as z from 'zod';
import { Count, first, Num, parseLenient } from './admin-schemas';
import { clip, MAX_ERROR_TEXT, MAX_USAGE_ROWS_PER_POLL } from '../limits';
import type { UsageRow } from './poll-types';

/** A time as epoch seconds or ms (a number, or numeric text), or ISO text. */
export const UsageTime = z.union(
  [Num.transform((n) => (n < 1e11 ? Math.round(n * 1000) : Math.round(n))), z.string().transform((s) => Date.parse(s)).pipe(z.number())],
  { error: 'expected a time (ISO text or epoch seconds/ms)' },
);

/** A name or status: text, or a number said as text (`"status": 200`). */
const Text = z.union([z.string(), z.number().transform(String)], { error: 'expected text or a number' });

const opt = <T extends z.ZodType>(schema: T) => schema.nullish();

/** One accounting row of a usage answer, in the field names crossbar versions use. */
export const UsageRowSchema = z.looseObject({
  id: opt(Text),
  time: opt(UsageTime),
  ts: opt(UsageTime),
  t: opt(UsageTime),
  at: opt(UsageTime),
  start: opt(UsageTime),
  route: opt(Text),
  host: opt(Text),
  model: opt(Text),
  status: opt(Text),
  ttfb_ms: opt(Num),
  ttfb: opt(Num),
  ttfbMs: opt(Num),
  tokens: opt(Count),
  total_tokens: opt(Count),
  prompt_tokens: opt(Count),
  completion_tokens: opt(Count),
  error: opt(Text),
  err: opt(Text),
});

/** A usage answer: an array, `{rows: [...]}`, or `null` (old crossbars, meaning none yet). Rows are checked one by one. */
export const UsageAnswer = z.union([z.null(), z.array(z.unknown()), z.looseObject({ rows: z.array(z.unknown()) })]);

const text = (v: string | null | undefined, max?: number): string | null => (v == null ? null : clip(v, max));

/**
 * Accounting rows from a usage answer (a JSON array; `null` from old crossbars counts as empty).
 * The key is the row's `id` when it has one, else a hash of its fields plus the occurrence index
 * among identical rows of the same answer: overlapping polls give the same keys, and two genuinely
 * identical requests in one answer stay two rows. At most MAX_USAGE_ROWS_PER_POLL are kept, the
 * newest (keys are computed over the whole answer first, so they stay stable); `dropped` counts the
 * rest. Rows that are not objects or have no time are `skipped`; a field of the wrong type reads as
 * absent, and the first such field is named in `problem`.
 */
export function parseUsageRows(body: unknown): { rows: UsageRow[]; skipped: number; dropped: number; problem: string | null } {
  const answer = UsageAnswer.safeParse(body);
  if (!answer.success) throw new Error('usage is not a JSON array');
  if (answer.data === null) return { rows: [], skipped: 0, dropped: 0, problem: null };
  const list = Array.isArray(answer.data) ? answer.data : answer.data.rows;
  const seen = new Map<string, number>();
  const rows: UsageRow[] = [];
  let skipped = 0;
  let problem: string | null = null;
  list.forEach((raw, i) => {
    const parsed = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? parseLenient(UsageRowSchema, raw) : null;
    if (!parsed?.ok) {
      skipped++;
      return;
    }
    const o = parsed.value;
    if (problem === null && parsed.problems.length > 0) problem = `row [${i}]: ${parsed.problems[0]}`;
    const t = first(o.time, o.ts, o.t, o.at, o.start);
    if (t === null) {
      skipped++;
      return;
    }
    const prompt = o.prompt_tokens ?? null;
    const completion = o.completion_tokens ?? null;
    const tokens = first(o.tokens, o.total_tokens) ?? (prompt !== null || completion !== null ? (prompt ?? 0) + (completion ?? 0) : null);
    const err = text(first(o.error, o.err), MAX_ERROR_TEXT);
    const row = {
      t,
      route: text(o.route),
      host: text(o.host),
      model: text(o.model),
      status: text(o.status),
      ttfbMs: first(o.ttfb_ms, o.ttfb, o.ttfbMs),
      tokens,
      error: err === '' ? null : err,
    };
    const id = text(o.id);
    let key: string;
    if (id !== null) key = `id:${id}`;
    else {
      const content = JSON.stringify([row.t, row.route, row.host, row.model, row.status, row.ttfbMs, row.tokens, row.error]);
      const n = seen.get(content) ?? 0;
      seen.set(content, n + 1);
      key = createHash('sha1').update(`${content}#${n}`).digest('base64url');
    }
    rows.push({ key, ...row });
  });
  if (rows.length <= MAX_USAGE_ROWS_PER_POLL) return { rows, skipped, dropped: 0, problem };
  const cutoff = rows.map((r) => r.t).sort((a, b) => b - a)[MAX_USAGE_ROWS_PER_POLL - 1] ?? -Infinity;
  // The newest rows, in the answer's order; ties at the cutoff are kept in order until full.
  const newer = rows.filter((r) => r.t > cutoff);
  let room = MAX_USAGE_ROWS_PER_POLL - newer.length;
  const kept = rows.filter((r) => r.t > cutoff || (r.t === cutoff && room-- > 0));
  return { rows: kept, skipped, dropped: rows.length - kept.length, problem };
}

/** Whether a status counts as an error: one rule with the charts and the incidents (shared/fleet-incidents.ts). */
export { isErrorStatus } from '../../../../shared/fleet-incidents';
