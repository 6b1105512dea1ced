import { createHash } from 'node:crypto';
import { clip, MAX_ERROR_TEXT, MAX_USAGE_ROWS_PER_POLL } from './limits';
import { int, num, obj, pick, type UsageRow } from './poll-types';

/** Parse a time as ISO text or epoch seconds/ms; null when it is neither. */
export function parseTime(v: unknown): number | null {
  const n = num(v);
  if (n !== null) return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

const str = (v: unknown, max?: number): string | null => (typeof v === 'string' ? clip(v, max) : typeof v === 'number' ? String(v) : null);

/**
 * Accounting rows from a usage answer (a JSON array; `null` from old crossbars counts as empty).
 * The key is the row's `id` when it has one, else a hash of its fields plus the occurrence index
 * among identical rows of the same answer: overlapping polls give the same keys, and two genuinely
 * identical requests in one answer stay two rows. At most MAX_USAGE_ROWS_PER_POLL are kept, the
 * newest (keys are computed over the whole answer first, so they stay stable); `dropped` counts the rest.
 */
export function parseUsageRows(body: unknown): { rows: UsageRow[]; skipped: number; dropped: number } {
  if (body === null) return { rows: [], skipped: 0, dropped: 0 };
  const list = Array.isArray(body) ? body : Array.isArray(obj(body)?.rows) ? (obj(body)?.rows as unknown[]) : null;
  if (!list) throw new Error('usage is not a JSON array');
  const seen = new Map<string, number>();
  const rows: UsageRow[] = [];
  let skipped = 0;
  for (const raw of list) {
    const o = obj(raw);
    if (!o) {
      skipped++;
      continue;
    }
    const t = parseTime(pick(o, ['time', 'ts', 't', 'at', 'start'])?.value) ?? null;
    if (t === null) {
      skipped++;
      continue;
    }
    const prompt = int(o.prompt_tokens);
    const completion = int(o.completion_tokens);
    const tokens = int(pick(o, ['tokens', 'total_tokens'])?.value) ?? (prompt !== null || completion !== null ? (prompt ?? 0) + (completion ?? 0) : null);
    const err = str(pick(o, ['error', 'err'])?.value, MAX_ERROR_TEXT);
    const row = {
      t,
      route: str(o.route),
      host: str(o.host),
      model: str(o.model),
      status: str(o.status),
      ttfbMs: num(pick(o, ['ttfb_ms', 'ttfb', 'ttfbMs'])?.value),
      tokens,
      error: err === '' ? null : err,
    };
    const id = str(o.id);
    let key: string;
    if (id !== null) key = `id:${id}`;
    else {
      const content = JSON.stringify([row.t, row.route, row.host, row.model, row.status, row.ttfbMs, row.tokens, row.error]);
      const n = seen.get(content) ?? 0;
      seen.set(content, n + 1);
      key = createHash('sha1').update(`${content}#${n}`).digest('base64url');
    }
    rows.push({ key, ...row });
  }
  if (rows.length <= MAX_USAGE_ROWS_PER_POLL) return { rows, skipped, dropped: 0 };
  const cutoff = rows.map((r) => r.t).sort((a, b) => b - a)[MAX_USAGE_ROWS_PER_POLL - 1] ?? -Infinity;
  // The newest rows, in the answer's order; ties at the cutoff are kept in order until full.
  const newer = rows.filter((r) => r.t > cutoff);
  let room = MAX_USAGE_ROWS_PER_POLL - newer.length;
  const kept = rows.filter((r) => r.t > cutoff || (r.t === cutoff && room-- > 0));
  return { rows: kept, skipped, dropped: rows.length - kept.length };
}

/** Whether a status counts as an error (>= 400, or not a number at all but present). */
export function isErrorStatus(status: string | null): boolean {
  if (status === null) return false;
  const n = Number(status);
  return Number.isFinite(n) ? n >= 400 : true;
}
