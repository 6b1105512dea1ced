import { CronExpressionParser } from 'cron-parser';
import { reviewDigest } from '../../../../shared/review-digest';
import type { ReviewSummary } from '../../../../shared/review-summary';
import { messageOf } from '../../../../shared/errors';
import type { DigestConfig, PushSink } from '../../config/push-config';
import { log } from '../../logging/log';
import type { Store } from '../../store/store';
import type { NotifyConfig } from '../notify-config';
import { sendPush, type PushMessage } from '../push-senders';

/** Where the digest's progress is kept (store meta): which occurrence, and which sinks have it. */
export const DIGEST_META = 'digest.state';

/** A digest missed by more than this (Loopdeck closed all morning) is not sent late: the next one is. */
export const DIGEST_GRACE_MS = 12 * 3_600_000;

/** A sink that failed is tried again after this, doubling to DIGEST_RETRY_MAX_MS, until the grace ends. */
export const DIGEST_RETRY_MS = 60_000;
export const DIGEST_RETRY_MAX_MS = 15 * 60_000;

/** One occurrence's progress, as kept across restarts. */
export interface DigestState {
  /** The occurrence (ISO, UTC): `at` on `date` in the time zone. */
  readonly for: string;
  /** Its local date (YYYY-MM-DD in `digest.timezone`). */
  readonly date: string;
  /** Each sink that has it, and when it was sent. */
  readonly sent: Partial<Record<PushSink, string>>;
  /** Each sink that failed, when, why (never a secret), and how often. */
  readonly failed: Partial<Record<PushSink, { at: string; error: string; attempts: number }>>;
}

/** How a DigestService is made. */
export interface DigestServiceOptions {
  readonly digest: DigestConfig;
  readonly notify: NotifyConfig;
  readonly store: Store;
  readonly now: () => Date;
  /** The Review as it stands (the same summary `review --markdown` renders). */
  readonly review: (now: Date) => ReviewSummary;
  /** The console's address, for the link (serve mode knows it). */
  readonly consoleUrl: () => string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly fetch?: typeof fetch;
}

/** The occurrences of `at` in the time zone around `nowMs`: the latest at or before it, and the next after it (ms). */
export function digestOccurrences(digest: Pick<DigestConfig, 'at' | 'timezone'>, nowMs: number): { latest: number; next: number } {
  const [hh, mm] = digest.at.split(':').map(Number);
  // Walked forward from a day and more before: cron-parser's next() puts a time a spring-forward
  // day skips at the first minute after the gap, where its prev() from later that day skips the day.
  const walk = CronExpressionParser.parse(`${mm} ${hh} * * *`, { currentDate: new Date(nowMs - 26 * 3_600_000), tz: digest.timezone });
  let latest = Number.NEGATIVE_INFINITY;
  for (;;) {
    const t = walk.next().getTime();
    if (t > nowMs) return { latest, next: t };
    latest = t;
  }
}

/** The local date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
}

/**
 * The morning summary, pushed (`digest:`): at `at` in its time zone, the Review's headline, Waiting
 * on you and Broken contract go to each sink `to` names, once per day. What was sent is kept in the
 * store after each sink, so a restart sends nothing twice; a sink that failed is tried again with
 * backoff (it may have been down at 7:30) until the grace ends. Asked on the notices' tick: between
 * occurrences a tick compares two numbers and does nothing else.
 */
export class DigestService {
  /** Nothing is due before this (ms): the next occurrence, or a failed sink's next try. */
  private nextCheckMs = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly options: DigestServiceOptions) {}

  /** Send what is due; resolves when it has been tried. Never throws: a failure is logged and kept. */
  tick(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const now = this.options.now().getTime();
    if (now < this.nextCheckMs) return Promise.resolve();
    this.inFlight = this.run(now)
      .catch((err: unknown) => log.error(`digest: ${messageOf(err)}`))
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** This occurrence's progress as kept (null before the first one). */
  state(): DigestState | null {
    const raw = this.options.store.getMeta(DIGEST_META);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as DigestState;
    } catch {
      return null;
    }
  }

  private async run(now: number): Promise<void> {
    const { digest } = this.options;
    const { latest, next } = digestOccurrences(digest, now);
    if (now - latest >= DIGEST_GRACE_MS) {
      this.nextCheckMs = next;
      return;
    }
    const kept = this.state();
    // Keyed by the local date: on the night clocks go back, a time between 2 and 3 comes twice, the digest once.
    const date = localDate(latest, digest.timezone);
    const state: DigestState = kept?.date === date ? { ...kept, sent: { ...kept.sent }, failed: { ...kept.failed } } : { for: new Date(latest).toISOString(), date, sent: {}, failed: {} };
    const owed = digest.to.filter((s) => state.sent[s] === undefined);
    const retryAt = (s: PushSink): number => {
      const f = state.failed[s];
      return f ? Date.parse(f.at) + Math.min(DIGEST_RETRY_MAX_MS, DIGEST_RETRY_MS * 2 ** (f.attempts - 1)) : now;
    };
    const due = owed.filter((s) => retryAt(s) <= now);
    if (due.length > 0) {
      const at = new Date(now);
      const d = reviewDigest(this.options.review(at), state.date, this.options.consoleUrl());
      const message: PushMessage = { kind: 'digest', subject: d.subject, text: d.text, url: d.url, priority: 0, data: { date: state.date, subject: d.subject, text: d.text, quiet: d.quiet, url: d.url } };
      const context = { notify: this.options.notify, env: this.options.env ?? process.env, fetch: this.options.fetch ?? fetch, at, id: `loopdeck-digest-${state.date}` };
      for (const sink of due) {
        try {
          await sendPush[sink](message, context);
          (state.sent as Record<string, string>)[sink] = new Date(this.options.now().getTime()).toISOString();
          delete (state.failed as Record<string, unknown>)[sink];
          log.info(`digest ${state.date}: sent to ${sink}`);
        } catch (err) {
          const attempts = (state.failed[sink]?.attempts ?? 0) + 1;
          (state.failed as Record<string, unknown>)[sink] = { at: at.toISOString(), error: messageOf(err).slice(0, 500), attempts };
          log.warn(`digest ${state.date}: sending to ${sink} failed (attempt ${attempts}): ${messageOf(err)}`);
        }
        // After each sink: a restart sends again only what did not go.
        this.keep(state);
      }
    }
    const still = digest.to.filter((s) => state.sent[s] === undefined);
    const soonest = Math.min(...still.map(retryAt));
    // Past the grace, the sinks still owed are given up (the failure stays in the state, and logged).
    this.nextCheckMs = still.length === 0 || soonest - latest >= DIGEST_GRACE_MS ? next : Math.max(soonest, now + 1000);
  }

  private keep(state: DigestState): void {
    try {
      this.options.store.setMeta(DIGEST_META, JSON.stringify(state));
    } catch (err) {
      log.error(`digest ${state.date}: could not record what was sent (${messageOf(err)}); a restart may send it again`);
    }
  }
}
