import type { EventName, EventPayload } from '../../../shared/contract';
import type { Notice, Problem, PullRequest } from '../../../shared/domain';
import type { Store } from '../store/store';
import { AlertmanagerSink } from './sinks/alertmanager-sink';
import { trackIncidentSince } from './rules/fleet-rules';
import { trackDownSince } from './rules/host-rules';
import { NoticeService, type NoticeSink } from './notice-service';
import { ruleOverrides, type NotifyConfig } from './notify-config';
import { NtfySink } from './sinks/ntfy-sink';
import { PushoverSink } from './sinks/pushover-sink';
import type { Reviewed } from './review-mark';
import { deriveNotices, type NoticeInput } from './rules/rules';
import { WebhookSink } from './sinks/webhook-sink';
import { conditionOf, findingKey, isEventRule, ruleOfKey } from './sinks/alertmanager-alert';
import { targetOfSource, type MaintenanceSchedule } from '../maintenance/maintenance-schedule';
import { AlertmanagerSilences } from '../maintenance/alertmanager-silences';
import type { NoticeDraft } from './notice-draft';
import type { EscalateConfig } from '../config/push-config';
import { Escalation } from './escalation';
import { NoticeRows } from './notice-rows';
import { toNotice } from './schema';

const SEEDED = 'notices.seededAt';

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
const DOWN_SINCE = 'notices.hostDownSince';
const INCIDENT_SINCE = 'notices.fleetIncidentSince';

/** The state notices are derived from, minus what the notifier keeps itself. */
export type NoticeState = Omit<NoticeInput, 'hostDownSince' | 'fleetIncidentSince' | 'rules' | 'now' | 'consoleUrl'>;

/** Options of the notifier. */
export interface NotifierOptions {
  readonly store: Store;
  readonly notify: NotifyConfig;
  readonly now: () => Date;
  readonly emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
  /** The review watermark and who set it, which `notices.changed` carries. */
  readonly reviewed: () => Reviewed;
  /** Where `env:NAME` secrets (`notify.webhooks`, `notify.ntfy.token`) are read; default this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** The maintenance windows (`maintenance:`): notices inside one in their scope are held, and Alertmanager gets a silence. */
  readonly maintenance?: MaintenanceSchedule;
  /** Escalation (`escalate:`): a priority 1–2 notice nobody acknowledged in time is sent on. */
  readonly escalate?: EscalateConfig;
}

/**
 * Notices for the engine: derives drafts from the state, raises each stable key once (SQLite),
 * delivers to the sinks — the console (`notice.raised`: toasts, desktop notifications) and, when
 * configured, Pushover, ntfy, Alertmanager and webhooks — and keeps host outages tracked across restarts.
 *
 * The very first update on a fresh database lists what it finds without alerting: pointing
 * Loopdeck at a loop with a year of history must not page the operator for all of it.
 */
export class Notifier {
  /** Where the console is reached, for links in notices (serve mode sets it). */
  consoleUrl: string | undefined;
  private readonly service: NoticeService;
  private readonly pushover: PushoverSink;
  private readonly ntfy: NtfySink;
  private readonly alertmanager: AlertmanagerSink;
  private readonly webhooks: WebhookSink;
  /** Alertmanager's silences for the maintenance windows' occurrences. */
  private readonly silences: AlertmanagerSilences | null;
  /** Sends on what nobody acknowledged in time (`escalate:`). */
  private readonly escalation: Escalation | null;
  private tracked: Record<string, string>;
  /** When each noticed fleet incident began, kept across restarts like the outages. */
  private incidentSince: Record<string, string>;
  private readonly unknownRules: readonly string[];
  /** The whole state has been derived once in this process (later updates take what changed). */
  private sawAll = false;
  /** Keys offered to the service in this process. */
  private readonly offered = new Set<string>();
  /**
   * The PR list the rules last read. Its owner replaces it when a PR changes, so the same list
   * again (every clock-driven update) has no new notice in it: a year of merged PRs is not turned
   * into drafts every five seconds.
   */
  private derivedPrs: readonly PullRequest[] | null = null;

  constructor(private readonly options: NotifierOptions) {
    const { store, notify, now } = options;
    // The schedule, even empty: the console can add a window at any time (maintenance-windows.ts).
    const schedule = options.maintenance;
    this.pushover = new PushoverSink({ store, notify, now });
    this.ntfy = new NtfySink({ store, notify, now, ...(options.env ? { env: options.env } : {}) });
    this.alertmanager = new AlertmanagerSink({ store, notify, now });
    this.webhooks = new WebhookSink({ store, notify, now, consoleUrl: () => this.consoleUrl, ...(options.env ? { env: options.env } : {}) });
    const console: NoticeSink = {
      deliver: (notice, { repeat, quiet }) => {
        if (!quiet) options.emit('notice.raised', { notice, repeat });
      },
    };
    this.service = new NoticeService({
      store,
      notify,
      now,
      sinks: [console, this.pushover, this.ntfy, this.alertmanager, this.webhooks],
      // The notices that changed, not the list: a night with many new P0 findings sends those.
      onChange: (changed) => options.emit('notices.changed', { notices: changed, ...options.reviewed() }),
      ...(schedule ? { silence: (source: string, at: Date) => schedule.markAt(targetOfSource(source), at.getTime()) } : {}),
    });
    const rows = new NoticeRows(store);
    this.escalation = options.escalate
      ? new Escalation({
          escalate: options.escalate,
          notify,
          store,
          now,
          ...(options.env ? { env: options.env } : {}),
          changed: (keys) => options.emit('notices.changed', { notices: keys.flatMap((k) => { const row = rows.byKey(k); return row ? [toNotice(row)] : []; }), ...options.reviewed() }),
        })
      : null;
    this.silences = schedule ? new AlertmanagerSilences({ url: notify.alertmanager?.url ?? null, store, schedule, now }) : null;
    this.tracked = JSON.parse(store.getMeta(DOWN_SINCE) ?? '{}') as Record<string, string>;
    this.incidentSince = JSON.parse(store.getMeta(INCIDENT_SINCE) ?? '{}') as Record<string, string>;
    this.unknownRules = ruleOverrides(notify.rules).unknown;
  }

  /**
   * Derive notices from what changed and raise the new ones. `changed` holds the loops (with only
   * their changed cycles), the findings that changed, and the small slices whole; `full` gives the
   * whole state, taken on the first update of a process (anything may have happened while it was
   * not running) and for the seed. `caughtUp` says every follower has read its backlog: on a fresh
   * database nothing is raised before that, then everything found is listed once without alerting
   * (the seed), and only what changes afterwards alerts.
   */
  update(caughtUp: boolean, changed: NoticeState, full: () => NoticeState = () => changed): void {
    const seeded = this.options.store.getMeta(SEEDED) !== null;
    if (!seeded && !caughtUp) return;
    try {
      this.derive(seeded, changed, full);
    } catch (err) {
      // A write failed (a full disk): what this update held may not be stored, so the next one
      // derives from the whole state again, and a notice that was not stored is raised then.
      this.sawAll = false;
      this.derivedPrs = null;
      throw err;
    }
  }

  private derive(seeded: boolean, changed: NoticeState, full: () => NoticeState): void {
    // A maintenance window holding notices ended: whether each still holds is judged on the whole state.
    const releasing = seeded && this.service.releaseDue(this.options.now());
    const wholeState = !this.sawAll || releasing;
    const state = wholeState ? full() : changed;
    this.sawAll = true;
    const now = this.options.now();
    const tracked = trackDownSince(this.tracked, state.hosts, state.capacity, now);
    if (!sameRecord(tracked, this.tracked)) {
      this.options.store.setMeta(DOWN_SINCE, JSON.stringify(tracked));
      this.tracked = tracked;
    }
    const incidentSince = trackIncidentSince(this.incidentSince, state.capacity, now);
    if (!sameRecord(incidentSince, this.incidentSince)) {
      this.options.store.setMeta(INCIDENT_SINCE, JSON.stringify(incidentSince));
      this.incidentSince = incidentSince;
    }
    const prsDerived = wholeState || state.prs !== this.derivedPrs;
    this.derivedPrs = state.prs;
    const drafts = deriveNotices({
      ...state,
      prs: prsDerived ? state.prs : [],
      currentPrs: state.prs,
      hostDownSince: this.tracked,
      fleetIncidentSince: this.incidentSince,
      rules: ruleOverrides(this.options.notify.rules).rules,
      now,
      ...(this.consoleUrl ? { consoleUrl: this.consoleUrl } : {}),
    });
    // Alertmanager alerts fire while their condition holds: what this state no longer calls for resolves.
    this.alertmanager.observe({ ...state, prsDerived }, drafts, wholeState);
    this.webhooks.observe(state);
    if (!seeded) {
      new NoticeService({ store: this.options.store, notify: this.options.notify, now: this.options.now, sinks: [] }).update(drafts, { seed: true });
      this.options.store.setMeta(SEEDED, now.toISOString());
      this.options.emit('notices.changed', { notices: this.list(), ...this.options.reviewed() });
      return;
    }
    if (releasing) this.release(state, drafts);
    // A key is raised once ever (the store keeps it): one already offered need not be again. A
    // draft that waits for another (`requires`, a recovery for an outage) is offered until it lands.
    const fresh = drafts.filter((d) => d.requires !== undefined || !this.offered.has(d.key));
    if (fresh.length === 0) return;
    this.service.update(fresh);
    for (const d of fresh) if (d.requires === undefined) this.offered.add(d.key);
  }

  /** A maintenance window was added or ended: the held notices follow the windows in force now, Alertmanager's silences too. */
  rescheduled(): void {
    this.service.rescheduleHeld();
    void this.silences?.tick();
  }

  /** Emergency repeats, snooze ends, owed Pushover sends and receipt polls, maintenance silences; rejects when a write failed (done by a later tick). */
  async tick(): Promise<void> {
    await Promise.all([this.service.tick(), this.silences?.tick()]);
    // After the service's tick: an acknowledgement made on the phone is recorded before anything is sent on.
    await this.escalation?.tick();
  }

  /**
   * Deliver, once, the held notices whose window ended and whose condition the whole state still
   * calls for; the rest are marked cleared. An event (a host back, a drill finished) is news of its
   * moment, not a condition: it is not delivered after the window.
   */
  private release(state: NoticeState, drafts: readonly NoticeDraft[]): void {
    const scope = {
      full: true,
      derived: new Set(drafts.map((d) => d.key)),
      loops: new Map(state.loops.map((l) => [l.name, l])),
      findings: new Set(state.findings.map(findingKey)),
      prs: true,
    };
    this.service.release((row) => (isEventRule(ruleOfKey(row.key)) || conditionOf(row, scope) === 'cleared' ? 'clear' : 'deliver'));
  }

  list(): Notice[] {
    return this.service.list();
  }

  acknowledge(key: string, by: string): string {
    return this.service.acknowledge(key, by);
  }

  snooze(key: string, minutes: number, by: string): string {
    return this.service.snooze(key, minutes, by);
  }

  /** The review was marked done: the console gets the notices with the new watermark. */
  reviewed(): void {
    this.options.emit('notices.changed', { notices: this.list(), ...this.options.reviewed() });
  }

  /** Config problems: rule names under `notify.rules` that no rule has, webhooks and ntfy whose secret cannot be read. */
  problems(): Problem[] {
    const rules = this.unknownRules.map((name) => ({ source: `notify.rules.${name}`, line: null, message: `No notice rule is named ${name}.` }));
    return [...rules, ...this.webhooks.problems(), ...this.ntfy.problems()];
  }

  /** Wait for Pushover, ntfy, Alertmanager and webhook requests in flight (before the store closes). */
  async close(): Promise<void> {
    await this.pushover.flush();
    await this.ntfy.flush();
    await this.alertmanager.flush();
    await this.webhooks.flush();
    await this.silences?.flush();
  }
}
