import type { EscalateConfig, PushSink } from '../config/push-config';
import { formatDuration } from '../config/duration';
import { log } from '../logging/log';
import { messageOf } from '../../../shared/errors';
import type { Store } from '../store/store';
import type { NotifyConfig } from './notify-config';
import { sendPush, type PushMessage } from './push-senders';
import { toNotice, type EscalationState, type NoticeRow } from './schema';

/** A sink that failed is tried again after this, doubling to RETRY_MAX_MS, at most MAX_ATTEMPTS times. */
export const ESCALATION_RETRY_MS = 60_000;
const RETRY_MAX_MS = 15 * 60_000;
const MAX_ATTEMPTS = 8;

/** How an Escalation is made. */
export interface EscalationOptions {
  readonly escalate: EscalateConfig;
  readonly notify: NotifyConfig;
  readonly store: Store;
  readonly now: () => Date;
  /** Something changed on these notices (the console shows the escalation). */
  readonly changed: (keys: readonly string[]) => void;
  readonly env?: NodeJS.ProcessEnv;
  readonly fetch?: typeof fetch;
}

/**
 * Escalation (`escalate:`): a notice of priority 1 or 2, delivered, that nobody acknowledged (nor
 * snoozed) within `after` of its delivery is sent on to the sinks `escalate.to` names, once. What
 * each sink did is kept on the notice's row as it goes, so a restart sends it on neither twice nor
 * never; a sink that failed is tried again with backoff until the notice is acknowledged.
 * Acknowledging before `after` stops it; the notice says where it went. Asked on the notices' tick,
 * through two small indexes.
 */
export class Escalation {
  private readonly q;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly options: EscalationOptions) {
    const { store } = options;
    this.q = {
      // Delivered (sent once at least, or released by its maintenance window), unacknowledged, not snoozed now.
      due: store.query<[now: string, cutoff: string], NoticeRow>(
        `SELECT * FROM notices WHERE priority >= 1 AND acknowledged_at IS NULL AND seeded = 0 AND escalated_at IS NULL AND sends > 0
           AND (silence_state IS NULL OR silence_state = 'delivered') AND (snoozed_until IS NULL OR snoozed_until <= ?)
           AND COALESCE(CASE WHEN silence_state = 'delivered' THEN silenced_until END, created_at) <= ?
         ORDER BY created_at, key`,
      ),
      owed: store.query<[], NoticeRow>('SELECT * FROM notices WHERE escalation_owed = 1 AND acknowledged_at IS NULL ORDER BY escalated_at, key'),
      keep: store.query<[at: string, state: string, owed: number, key: string]>('UPDATE notices SET escalated_at = ?, escalation = ?, escalation_owed = ? WHERE key = ?'),
      acknowledged: store.query<[key: string], { acknowledged_at: string | null }>('SELECT acknowledged_at FROM notices WHERE key = ?'),
    };
  }

  /** Send on what is due and retry what failed; never throws (a failure is logged and kept on the notice). */
  tick(): Promise<void> {
    this.inFlight ??= this.run()
      .catch((err: unknown) => log.error(`escalation: ${messageOf(err)}`))
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async run(): Promise<void> {
    const now = this.options.now();
    const { after, to } = this.options.escalate;
    const due = this.q.due.all(now.toISOString(), new Date(now.getTime() - after).toISOString());
    const owed = this.q.owed.all();
    const touched: string[] = [];
    for (const row of [...due, ...owed]) {
      const began = row.escalated_at ?? now.toISOString();
      const state: EscalationState = row.escalation ? (JSON.parse(row.escalation) as EscalationState) : { to, afterMs: after, sent: {}, failed: {} };
      const sent = { ...state.sent };
      const failed = { ...state.failed };
      const message = this.message(row, state);
      let tried = false;
      for (const sink of state.to as PushSink[]) {
        if (sent[sink] !== undefined) continue;
        const f = failed[sink];
        if (f && (f.attempts >= MAX_ATTEMPTS || Date.parse(f.at) + Math.min(RETRY_MAX_MS, ESCALATION_RETRY_MS * 2 ** (f.attempts - 1)) > now.getTime())) continue;
        // Acknowledged while an earlier sink was being sent to: the rest are not.
        if (this.q.acknowledged.get(row.key)?.acknowledged_at) break;
        tried = true;
        try {
          await sendPush[sink](message, { notify: this.options.notify, env: this.options.env ?? process.env, fetch: this.options.fetch ?? fetch, at: now, id: `loopdeck-escalation-${row.key}` });
          sent[sink] = this.options.now().toISOString();
          delete failed[sink];
          log.info(`notice ${row.key}: not acknowledged within ${formatDuration(state.afterMs)}, sent on to ${sink}`);
        } catch (err) {
          failed[sink] = { at: now.toISOString(), error: messageOf(err).slice(0, 500), attempts: (f?.attempts ?? 0) + 1 };
          log.warn(`notice ${row.key}: escalating to ${sink} failed (attempt ${failed[sink].attempts}): ${messageOf(err)}`);
        }
        // After each sink: a restart sends on only what did not go.
        const retry = Object.values(failed).some((x) => x.attempts < MAX_ATTEMPTS);
        this.q.keep.run(began, JSON.stringify({ ...state, sent, failed }), retry ? 1 : 0, row.key);
      }
      // An owed sink whose next try is not due yet changed nothing: no event every tick while it waits.
      if (tried) touched.push(row.key);
    }
    if (touched.length > 0) this.options.changed(touched);
  }

  /** The notice as pushed on: its title and message, the link to its evidence, and why it came again. */
  private message(row: NoticeRow, state: EscalationState): PushMessage {
    const after = formatDuration(state.afterMs);
    const subject = `Loopdeck P${row.priority}: ${row.title} — not acknowledged in ${after}`;
    const text = [row.message, ...(row.url ? ['', row.url] : []), '', `Raised ${row.created_at} (${row.source}); nobody acknowledged it within ${after}, so it is sent on to ${state.to.join(', ')}.`].join('\n');
    return { kind: 'escalation', subject, text, url: row.url, priority: 1, data: { notice: toNotice(row), afterMs: state.afterMs, to: state.to } };
  }
}
