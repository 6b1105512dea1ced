import type { Store } from '../store/store';
import { ownEntry } from '../config/schema';
import type { CostsConfig, ModelPrice } from '../config/costs-config';
import { MINUTE_MS, RETENTION_MS, TEN_MINUTES_MS, USAGE_RETENTION_MS } from '../capacity/history/history-store';
import { mergeSpans, type Span } from '../state/spans';
import { formatAmount, MAX_BASIS_CHARS, MAX_BASIS_LINES, roundAmount, type Cost } from '../../../shared/night-cost';

export { monthPace, monthDays, type MonthPace } from '../../../shared/night-cost';

// What a window cost, from what Loopdeck already keeps (issue "Night against night", item 5):
//
// - Tokens: the proxies' accounting rows (`usage_rows`, kept 30 days) carry ONE token count per
//   request — crossbar's `tokens`, or `prompt_tokens + completion_tokens` summed when a proxy gives
//   both (capacity/sources/usage-rows.ts) — so input and output are never known apart. A model is
//   priced with its `tokens` price (one blended price per million); with only an `output` price,
//   every token at that price, said as an upper bound; with input and output equal, at that price.
//   Anything else (only `input`, which would understate; or input and output that differ) is not
//   priced, and the basis says so: no split is invented.
// - Hosts: price per hour × the hours of the window the host was SEEN, i.e. Loopdeck stored
//   capacity samples of it (up or down: a rented or powered box costs either way). Chosen over "the
//   window's hours whenever configured" because it is evidence: a host retired mid-month, or a
//   night Loopdeck did not watch, is not billed from a guess, and the basis says what was not seen.
//   Seen time is read from the minute rollups (ten-minute ones past their week), each bucket with a
//   sample counting whole; gaps up to SEEN_GAP_MS between buckets count as seen (a proxy polled
//   every few minutes leaves empty minutes, not absence).
//
// Both reads are range queries on the time indexes (usage_rows_t, capacity_samples_t): the cost of
// a window is its rows, never the history.

/** A gap between a host's samples up to this long counts as seen: a slow poll, not an absence. */
export const SEEN_GAP_MS = 15 * 60_000;

/** The SQL of the two reads (exported for the query-plan test: both must use the time indexes). */
export const COST_SQL = {
  /** Tokens by proxy and model over `from <= t <= to` (the night summary's window convention). */
  usage:
    'SELECT proxy, model, SUM(tokens) AS tokens, COUNT(tokens) AS counted, COUNT(*) AS rows FROM usage_rows WHERE t >= ? AND t <= ? GROUP BY proxy, model',
  /** The buckets of one resolution with a sample of a (proxy, host), over a window. */
  samples: 'SELECT proxy, host, t FROM capacity_samples WHERE resolution_ms = ? AND t >= ? AND t <= ?',
} as const;

/** What windowCost reads: the store (its `query`, prepared once) and the time. */
export interface CostDeps {
  /** The data folder's store: usage_rows and capacity_samples (migration 5) are read through it. */
  readonly store: Pick<Store, 'query'>;
  /** Now (ms): which rollups still cover the window, and what is past retention. */
  readonly now: number;
}

/** Which proxies a window's cost counts; absent: every proxy (as the night summary's tokens). */
export interface CostScope {
  readonly proxies?: readonly string[];
}

interface UsageGroup {
  proxy: string;
  model: string | null;
  tokens: number | null;
  counted: number;
  rows: number;
}

/** A basis line: what was priced, or why not. */
type Line = { readonly order: number; readonly text: string };

const int = (n: number): string => n.toLocaleString('en-US');
const rowsOf = (n: number): string => `${int(n)} usage row${n === 1 ? '' : 's'}`;
const hours = (ms: number): string => (ms / 3_600_000).toLocaleString('en-US', { maximumFractionDigits: 2 });
const clip = (text: string): string => (text.length <= MAX_BASIS_CHARS ? text : `${text.slice(0, MAX_BASIS_CHARS - 1)}…`);

/**
 * How a model's tokens are priced given that the rows carry only their total: the price per
 * million and how it is said, or why they are not priced.
 */
export function totalTokenPrice(name: string, p: ModelPrice): { readonly price: number; readonly how: string } | { readonly unpriced: string } {
  const key = `costs.models.${name}`;
  if (p.tokens !== undefined) return { price: p.tokens, how: `${key}.tokens` };
  if (p.input !== undefined && p.output !== undefined && p.input === p.output) return { price: p.output, how: `${key}.input and .output, the same` };
  if (p.output !== undefined && p.input === undefined) {
    return { price: p.output, how: `${key}.output, the only price: an upper bound, as the proxy's rows carry input and output tokens together` };
  }
  const why = p.input !== undefined && p.output !== undefined ? 'input and output prices differ' : 'only an input price is given, which would understate them';
  return { unpriced: `the proxy's rows carry input and output tokens together and ${why}; give ${key}.tokens, one price per million` };
}

/**
 * What the window `fromMs`–`toMs` (ms, both ends included) cost under `costs`: its models' tokens
 * at their prices per million and its hosts' seen hours at their prices per hour (see the comment
 * at the top for both rules), with a basis naming what was priced and what was not. Null when no
 * price is configured. Reads only the window's rows.
 */
export function windowCost(deps: CostDeps, fromMs: number, toMs: number, costs: CostsConfig | undefined, scope: CostScope = {}): Cost | null {
  if (!costs || (Object.keys(costs.models).length === 0 && Object.keys(costs.hosts).length === 0)) return null;
  if (!(toMs >= fromMs)) throw new RangeError(`windowCost: the window ends (${toMs}) before it starts (${fromMs})`);
  const inScope = (proxy: string): boolean => scope.proxies === undefined || scope.proxies.includes(proxy);
  const cur = costs.currency;
  const lines: Line[] = [];
  const notes: string[] = [];
  let amount = 0;

  // Tokens, by model (every proxy in scope summed).
  const groups = deps.store.query<[number, number], UsageGroup>(COST_SQL.usage).all(fromMs, toMs).filter((g) => inScope(g.proxy));
  const byModel = new Map<string | null, { tokens: number; counted: number; rows: number }>();
  for (const g of groups) {
    const m = byModel.get(g.model) ?? { tokens: 0, counted: 0, rows: 0 };
    m.tokens += g.tokens ?? 0;
    m.counted += g.counted;
    m.rows += g.rows;
    byModel.set(g.model, m);
  }
  let tokens: number | null = null;
  for (const [model, use] of [...byModel].sort(([, a], [, b]) => b.tokens - a.tokens)) {
    if (use.counted > 0) tokens = (tokens ?? 0) + use.tokens;
    const label = model === null ? 'rows naming no model' : model;
    if (use.counted === 0) {
      lines.push({ order: 1, text: `${label}: ${rowsOf(use.rows)} without a token count: not priced` });
      continue;
    }
    const uncounted = use.rows > use.counted ? ` (${rowsOf(use.rows - use.counted)} without a token count left out)` : '';
    const p = model === null ? undefined : ownEntry(costs.models, model);
    if (p === undefined) {
      lines.push({ order: 1, text: `${label}: ${int(use.tokens)} tokens not priced (${model === null ? 'no model to price them by' : 'no price under costs.models'})${uncounted}` });
      continue;
    }
    const how = totalTokenPrice(model as string, p);
    if ('unpriced' in how) {
      lines.push({ order: 1, text: `${label}: ${int(use.tokens)} tokens not priced: ${how.unpriced}${uncounted}` });
      continue;
    }
    const cost = (use.tokens / 1e6) * how.price;
    amount += cost;
    lines.push({ order: 0, text: `${label}: ${int(use.tokens)} tokens × ${how.price} ${cur} per million (${how.how}) = ${formatAmount(roundAmount(cost), cur)}${uncounted}` });
  }
  if (Object.keys(costs.models).length > 0) {
    if (groups.length === 0) notes.push('no usage rows in the window (the proxies wrote none, or Loopdeck was not polling them): no tokens priced');
    if (fromMs < deps.now - USAGE_RETENTION_MS) notes.push(`usage rows are kept ${USAGE_RETENTION_MS / 86_400_000} days: tokens before ${new Date(deps.now - USAGE_RETENTION_MS).toISOString()} are not known`);
  }

  // Hosts, by their seen hours.
  let hostMs: number | null = null;
  const hostKeys = Object.keys(costs.hosts);
  if (hostKeys.length > 0) {
    const res = fromMs >= deps.now - (RETENTION_MS[MINUTE_MS] ?? 0) ? MINUTE_MS : TEN_MINUTES_MS;
    const spans = new Map<string, Span[]>();
    for (const s of deps.store.query<[number, number, number], { proxy: string; host: string; t: number }>(COST_SQL.samples).iterate(res, Math.floor(fromMs / res) * res, toMs)) {
      if (!inScope(s.proxy)) continue;
      const pair = `${s.proxy}/${s.host}`;
      // `proxy/host` names one proxy's host; a host name alone, that host wherever it is seen.
      const key = Object.hasOwn(costs.hosts, pair) ? pair : Object.hasOwn(costs.hosts, s.host) ? s.host : null;
      if (key === null) continue;
      const list = spans.get(key) ?? [];
      list.push({ since: Math.max(s.t, fromMs), until: Math.min(s.t + res, toMs) });
      spans.set(key, list);
    }
    for (const key of hostKeys.sort()) {
      const price = costs.hosts[key] as number;
      const seen = seenMs(spans.get(key) ?? []);
      if (seen === 0) {
        lines.push({ order: 3, text: `${key}: not seen in the window (no capacity samples of it): not priced` });
        continue;
      }
      hostMs = (hostMs ?? 0) + seen;
      const cost = (seen / 3_600_000) * price;
      amount += cost;
      lines.push({ order: 2, text: `${key}: seen ${hours(seen)} h of the window's ${hours(toMs - fromMs)} h × ${price} ${cur} per hour = ${formatAmount(roundAmount(cost), cur)}` });
    }
    const kept = RETENTION_MS[TEN_MINUTES_MS] ?? 0;
    if (fromMs < deps.now - kept) notes.push(`capacity samples are kept ${kept / 86_400_000} days: host hours before ${new Date(deps.now - kept).toISOString()} are not known`);
  }

  return {
    amount: roundAmount(amount),
    currency: cur,
    tokens,
    hostHours: hostMs === null ? null : Math.round((hostMs / 3_600_000) * 1000) / 1000,
    basis: boundBasis(lines, notes),
  };
}

/** The time the spans cover, joined, with gaps up to SEEN_GAP_MS between them counted as seen. */
function seenMs(spans: readonly Span[]): number {
  let total = 0;
  let last: Span | null = null;
  for (const s of mergeSpans(spans)) {
    total += s.until - s.since;
    if (last && s.since - last.until <= SEEN_GAP_MS) total += s.since - last.until;
    last = s;
  }
  return total;
}

/**
 * The basis within MAX_BASIS_LINES: what was priced, then what was not (models, then hosts), then
 * the notes on what is not known; past the limit the last priced or unpriced lines become a count,
 * the notes always stay.
 */
function boundBasis(lines: readonly Line[], notes: readonly string[]): string[] {
  const ordered = [...lines].sort((a, b) => a.order - b.order).map((l) => clip(l.text));
  const room = MAX_BASIS_LINES - notes.length;
  const kept = ordered.length <= room ? ordered : [...ordered.slice(0, room - 1), `… and ${ordered.length - room + 1} more models and hosts`];
  return [...kept, ...notes.map(clip)];
}
