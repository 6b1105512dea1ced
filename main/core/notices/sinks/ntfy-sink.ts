import type { Notice, Problem } from '../../../../shared/domain';
import { messageOf } from '../../../../shared/errors';
import { VERSION } from '../../config/version';
import { readSecret } from '../../config/secret';
import { log } from '../../logging/log';
import { NoticeRows } from '../notice-rows';
import type { NoticeSink, RemoteAck } from '../notice-service';
import { MESSAGE_MAX, noticeLine, TITLE_MAX, truncate, URL_MAX } from '../notice-text';
import type { NotifyConfig, RemoteSinkOptions } from '../notify-config';
import type { NoticeRow } from '../schema';
import { OwedSends, REJECTED } from './owed-sends';

/** How the ntfy sink is made. */
export interface NtfySinkOptions extends RemoteSinkOptions {
  /** Where `env:NAME` secrets are read (default: this process's environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** After a failed send, owed sends wait this long before the next attempt, doubling while sends keep failing (default 15 s, as Pushover's). */
  readonly backoffMs?: number;
  /** The longest wait between attempts during an outage (default 5 min). */
  readonly backoffMaxMs?: number;
  /** Uniform in [0, 1) for the backoff's jitter; tests pin it. */
  readonly random?: () => number;
  /** An attempt without an answer this long fails (default 15 s). */
  readonly timeoutMs?: number;
}

/** The configured server, its token read: what the sink publishes to. */
export interface NtfyTarget {
  /** Where JSON is published: the server's root URL with one trailing slash. */
  readonly endpoint: string;
  /** The URL's host (and port): what messages name. */
  readonly host: string;
  readonly topic: string;
  /** The access token, or null when none is configured (a public topic). Never logged. */
  readonly token: string | null;
}

/** ntfy's priority: 1 (min) … 5 (max). */
export type NtfyPriority = 1 | 2 | 3 | 4 | 5;

/** A `view` action button: opens a URL. */
export interface NtfyViewAction {
  readonly action: 'view';
  readonly label: string;
  readonly url: string;
}

/** The JSON ntfy's publish API takes (docs.ntfy.sh/publish/#publish-as-json), as far as Loopdeck fills it. */
export interface NtfyMessage {
  readonly topic: string;
  readonly title: string;
  readonly message: string;
  readonly priority: NtfyPriority;
  readonly tags?: readonly string[];
  readonly click?: string;
  readonly actions?: readonly NtfyViewAction[];
}

/** The columns of a notice's row this sink writes. */
type RowFields = Partial<Pick<NoticeRow, 'ntfy_owed' | 'ntfy_error'>>;

/** How much of ntfy's answer is read: its published message (which echoes ours) or its error. */
const ANSWER_MAX = 16 * 1024;

/** ntfy's priority for a Loopdeck (Pushover) priority: −2 → 1 (min) … 2 → 5 (max). */
export function ntfyPriority(priority: number): NtfyPriority {
  return Math.max(1, Math.min(5, Math.round(priority) + 3)) as NtfyPriority;
}

/**
 * A notice as ntfy's JSON, for the topic. `quiet` (quiet hours, or priority −1) lowers it to ntfy's
 * low priority (2: no sound, no vibration), as Pushover's −1. Sizes keep to Pushover's, well within
 * ntfy's 4096-byte message: a link longer than URL_MAX, or not http(s), is left out (a cut link
 * leads nowhere); an urgent notice is tagged with an emoji ntfy shows before the title.
 */
export function ntfyMessage(row: NoticeRow, topic: string, quiet: boolean): NtfyMessage {
  const priority = ntfyPriority(quiet ? Math.min(row.priority, -1) : row.priority);
  const tag = priority === 5 ? 'rotating_light' : priority === 4 ? 'warning' : null;
  const link = row.url !== null && row.url.length <= URL_MAX && /^https?:\/\//i.test(row.url) ? row.url : null;
  return {
    topic,
    title: truncate(row.title, TITLE_MAX),
    message: truncate(row.message || row.title, MESSAGE_MAX),
    priority,
    ...(tag ? { tags: [tag] } : {}),
    ...(link ? { click: link, actions: [{ action: 'view', label: truncate(row.url_title ?? 'Open in Loopdeck', TITLE_MAX), url: link }] } : {}),
  };
}

/**
 * `notify.ntfy` with its token read from the environment, and a problem (naming
 * `notify.ntfy.token` and the variable, never the value) when it cannot be: nothing is sent to
 * ntfy until the environment is fixed and Loopdeck restarted (without the token a protected topic
 * refuses every message, and a public one must not get them by accident).
 */
export function ntfyTarget(notify: NotifyConfig, env: NodeJS.ProcessEnv): { target: NtfyTarget | null; problems: Problem[] } {
  const n = notify.ntfy;
  if (!n) return { target: null, problems: [] };
  let token: string | null = null;
  if (n.token !== undefined) {
    const secret = readSecret('notify.ntfy.token', n.token, env);
    if ('error' in secret) return { target: null, problems: [{ source: 'notify.ntfy.token', line: null, message: `${secret.error}; nothing is sent to ntfy until then.` }] };
    token = secret.value;
  }
  const url = new URL(n.url);
  return { target: { endpoint: `${url.origin}${url.pathname.replace(/\/+$/, '')}/`, host: url.host, topic: n.topic, token }, problems: [] };
}

/**
 * Publishes notices (of priority −1 and up) to an ntfy topic when `notify.ntfy` is configured, with
 * the delivery guarantees of the Pushover sink, shared with it (owed-sends.ts): every send is
 * recorded as owed in the notice's row first, retried on later ticks with the shared backoff after
 * a network failure, a 5xx, a 408 or a 429 (and across restarts), dropped when the notice is
 * acknowledged meanwhile, and not retried after a refusal (another 3xx or 4xx: sending it again
 * would be refused again). ntfy keeps no receipts, so an emergency is published again at each of
 * the service's repeats (every `notify.retry` until acknowledged in Loopdeck or `notify.expire`),
 * and a notice acknowledged on the phone is not seen here. Messages name `notify.ntfy` and the
 * server's host, never the token.
 */
export class NtfySink implements NoticeSink {
  private readonly target: NtfyTarget | null;
  private readonly configProblems: Problem[];
  private readonly fetch: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly timeoutMs: number;
  /** Owed sends, their backoff, and what a full disk kept from the rows. */
  private readonly sends: OwedSends<RowFields>;

  constructor(opts: NtfySinkOptions) {
    const { target, problems } = ntfyTarget(opts.notify, opts.env ?? process.env);
    this.target = target;
    this.configProblems = problems;
    this.fetch = opts.fetch ?? fetch;
    this.log = opts.log ?? ((m) => log.error(m));
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    const notices = new NoticeRows(opts.store);
    this.sends = new OwedSends<RowFields>({
      store: opts.store,
      service: 'ntfy',
      owedColumn: 'ntfy_owed',
      storedOwed: () => notices.ntfyOwed(),
      now: opts.now ?? (() => new Date()),
      log: this.log,
      backoff: { baseMs: opts.backoffMs ?? 15_000, maxMs: opts.backoffMaxMs ?? 300_000, random: opts.random ?? Math.random },
    });
  }

  /** Whether ntfy is configured and its token readable (otherwise every call is a no-op). */
  get enabled(): boolean {
    return this.target !== null;
  }

  /** Config problems: the token's variable unset or empty. */
  problems(): Problem[] {
    return this.configProblems;
  }

  /** Publish the notice (quiet: at ntfy's low priority at most); an emergency's repeats are published again. */
  async deliver(notice: Notice, opts: { repeat: boolean; quiet: boolean }): Promise<void> {
    if (!this.target || notice.priority === -2) return;
    const row = this.sends.row(notice.key);
    if (!row) return;
    // An emergency ntfy refused would be refused again at every repeat.
    if (opts.repeat && notice.priority === 2 && row.ntfy_error?.startsWith(REJECTED)) return;
    this.sends.set(notice.key, { ntfy_owed: opts.quiet ? 'quiet' : 'alert' });
    await this.sends.track(this.send(notice.key));
  }

  /** Retry owed sends once the backoff has passed; ntfy reports no acknowledgements. */
  async tick(): Promise<RemoteAck[]> {
    if (!this.target) return [];
    this.sends.recordUnrecorded();
    for (const key of this.sends.due()) await this.send(key);
    return [];
  }

  /** Wait for every request in flight (before closing the store, and in tests). */
  flush(): Promise<void> {
    return this.sends.flush();
  }

  private send(key: string): Promise<void> {
    return this.sends.attempt(key, () => this.sendOnce(key));
  }

  private async sendOnce(key: string): Promise<void> {
    const target = this.target as NtfyTarget;
    const row = this.sends.row(key);
    if (!row || row.ntfy_owed === null) return;
    // Acknowledged while the send was owed: the operator already knows.
    if (row.acknowledged_at !== null) return this.sends.set(key, { ntfy_owed: null });
    const body = JSON.stringify(ntfyMessage(row, target.topic, row.ntfy_owed === 'quiet'));
    let status: number;
    let answer: { id?: unknown; event?: unknown; error?: unknown } | null;
    try {
      const res = await this.fetch(target.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': `Loopdeck/${VERSION}`, ...(target.token !== null ? { authorization: `Bearer ${target.token}` } : {}) },
        body,
        // A redirect is refused, not followed: it would carry the token elsewhere, or turn the POST into a GET.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      answer = parseAnswer(await readHead(res, ANSWER_MAX));
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      return this.failed(key, `${messageOf(err)}${cause}`);
    }
    if (status >= 200 && status < 300 && answer?.event === 'message' && typeof answer.id === 'string') {
      this.sends.succeeded();
      this.sends.set(key, { ntfy_owed: null, ntfy_error: null });
    } else if (status >= 300 && status < 500 && status !== 408 && status !== 429) {
      const why = typeof answer?.error === 'string' ? `HTTP ${status}: ${truncate(noticeLine(answer.error), 200)}` : `HTTP ${status}`;
      this.sends.set(key, { ntfy_owed: null, ntfy_error: `${REJECTED}${why}` });
      this.log(`ntfy at ${target.host} refused notice ${key} (${why}); not retried. Check notify.ntfy.url, notify.ntfy.topic and notify.ntfy.token (and the variable it names) in the config.`);
    } else {
      this.failed(key, status >= 200 && status < 300 ? `HTTP ${status} without a published message: is notify.ntfy.url an ntfy server?` : `HTTP ${status}`);
    }
  }

  private failed(key: string, why: string): void {
    this.sends.set(key, { ntfy_error: why });
    this.sends.failed();
    this.log(`ntfy send of notice ${key} to ${this.target?.host ?? 'ntfy'} failed (${why}); it stays owed and is retried.`);
  }
}

/** At most `max` bytes of a response's body, as text; the rest is not read. */
async function readHead(res: Response, max: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** ntfy's answer as JSON (its published message, or `{ code, http, error, link }`), or null. */
function parseAnswer(text: string): { id?: unknown; event?: unknown; error?: unknown } | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' ? (v as { id?: unknown; event?: unknown; error?: unknown }) : null;
  } catch {
    return null;
  }
}
