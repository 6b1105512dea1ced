import type { Capacity, ModelCapacity } from '../../../../shared/domain';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../limits';
import { messageOf } from '../../../../shared/errors';

/** What a GET answered: the status and the whole body. */
export interface GetReply {
  readonly status: number;
  readonly body: string;
}

/** GET a path (e.g. `/_crossbar/hosts`) on one proxy; rejects on a network failure or timeout. */
export type Getter = (path: string) => Promise<GetReply>;

/** Cumulative request counters as a server exposes them (Prometheus counters, status counts). */
export interface Counters {
  readonly requests: number;
  /** Cumulative count per error status (>= 400, or e.g. `shed`). */
  readonly errors: Readonly<Record<string, number>>;
}

/** One observation of a (proxy, host), as stored in the history. */
export interface Sample {
  readonly proxy: string;
  readonly host: string;
  /** ms since the epoch. */
  readonly t: number;
  readonly up: boolean;
  readonly slotsTotal: number | null;
  readonly slotsBusy: number | null;
  readonly inflight: number | null;
  readonly queued: number | null;
  /** Cumulative counters when the server exposes them; the poller turns them into deltas. */
  readonly counters: Counters | null;
  /** KV-cache in use, 0–100 %, where the server exposes it. */
  readonly kvCachePct?: number | null;
  /** Cumulative generated tokens (a server's counter); the poller turns it into a rate. */
  readonly generatedTokens?: number | null;
}

/** One accounting row of a proxy's usage store, with a key stable across polls. */
export interface UsageRow {
  readonly key: string;
  /** ms since the epoch. */
  readonly t: number;
  readonly route: string | null;
  readonly host: string | null;
  readonly model: string | null;
  readonly status: string | null;
  readonly ttfbMs: number | null;
  readonly tokens: number | null;
  readonly error: string | null;
}

/** What one poll of one proxy produced. */
export interface PollResult {
  readonly capacity: Capacity[];
  readonly samples: Sample[];
  readonly usage: UsageRow[];
}

/** A proxy adapter: poll every endpoint it knows, never throwing. `base` only names URLs in errors. */
export type Adapter = (get: Getter, proxy: string, now: Date, base?: string) => Promise<PollResult>;

/** A Capacity with every figure unknown, to fill in. */
export function blankCapacity(proxy: string, kind: Capacity['kind'], host: string, now: Date): Capacity {
  return {
    proxy,
    kind,
    host,
    up: false,
    since: null,
    slotsTotal: null,
    slotsBusy: null,
    inflight: null,
    queued: null,
    nCtx: null,
    models: [],
    shedThreshold: null,
    highWater: null,
    totalShed: null,
    missing: [],
    error: null,
    polledAt: now.toISOString(),
  };
}

/** The result of a poll that failed outright: one down entry named for the proxy itself. */
export function downResult(proxy: string, kind: Capacity['kind'], now: Date, error: string): PollResult {
  const capacity = { ...blankCapacity(proxy, kind, proxy, now), error };
  const sample: Sample = { proxy, host: proxy, t: now.getTime(), up: false, slotsTotal: null, slotsBusy: null, inflight: null, queued: null, counters: null };
  return { capacity: [capacity], samples: [sample], usage: [] };
}

/** A short, printable excerpt of a body for an error message. */
export function excerpt(body: string): string {
  // Only the head: the tag-stripping regex is quadratic on a long run of unclosed `<`.
  const flat = body.slice(0, 2000).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat || '(empty body)';
}

/** True when a body looks like an HTML page (a reverse proxy's error page, a login wall). */
export function looksLikeHtml(body: string): boolean {
  return /^\s*(<!doctype|<html|<head|<body|<\?xml|<h1|<title)/i.test(body);
}

/** A failed fetch or decode, with the message a person should read. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** GET a path and return its body text when the status is 2xx; else a FetchError naming what was wrong. */
export async function getText(get: Getter, label: string, path: string): Promise<string> {
  let reply: GetReply;
  try {
    reply = await get(path);
  } catch (e) {
    throw new FetchError(`${label}${path}: ${messageOf(e) || String(e)}`, null);
  }
  if (reply.status < 200 || reply.status > 299) {
    throw new FetchError(`${label}${path} answered HTTP ${reply.status}: ${excerpt(reply.body)}`, reply.status);
  }
  if (looksLikeHtml(reply.body)) throw new FetchError(`${label}${path} answered an HTML page, not the API: ${excerpt(reply.body)}`, reply.status);
  return reply.body;
}

/** GET a path and decode its JSON body; a FetchError on anything else. */
export async function getJson(get: Getter, label: string, path: string): Promise<unknown> {
  const body = await getText(get, label, path);
  // JSON.parse of megabytes of `[` builds as many nested arrays; refuse deep answers unparsed.
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
    throw new FetchError(`${label}${path} answered JSON nested deeper than ${MAX_JSON_DEPTH} levels; refused unparsed (an admin API answers a few levels deep)`, 200);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new FetchError(`${label}${path} answered something that is not JSON: ${excerpt(body)}`, 200);
  }
}

/** `proxy "name": GET http://base` — the prefix of every error, naming the proxy and URL. */
export function errorLabel(proxy: string, base: string | undefined): string {
  return `proxy "${proxy}": GET ${base ?? ''}`;
}

/** Sum per-model figures, null when none is known. */
export function sumKnown(models: readonly ModelCapacity[], field: 'inflight' | 'queued'): number | null {
  const known = models.map((m) => m[field]).filter((v): v is number => v !== null);
  return known.length ? known.reduce((a, b) => a + b, 0) : null;
}
