import { posix } from 'node:path';
import type { AuditMark, BacklogItem, Finding, Lesson, Task } from '../../../shared/domain';
import type { LoopConfig } from '../config/schema';
import { followDocument } from '../follow/document-follower';
import { followOnce } from '../follow/line-follower';
import { flushLedger, ledgerParser } from './ledger-parser';
import type { ContractBreach } from '../../../shared/contract-breach';
import { anchorCount, duplicateIds, idsOutOfOrder, rewriteBreach } from './ledger-contract';
import { LedgerTrail } from './ledger-trail';
import type { LedgerRecord, LedgerState } from './ledger-records';
import { deriveFindings } from './findings';
import { parseDeliverRecord, type DeliverRecord } from '../prs/pull-requests';
import type { FileSource } from '../sources/file-source';
import type { ReadChanges, ReadScope } from '../loops/loop-poll';
import { auditKey, backlogKey, diffKeyed, findingKey, isEmptyDelta, lessonKey, taskKey, type KeyedDelta } from '../../../shared/deltas';
import type { Store } from '../store/store';
import { firstSeen } from '../store/first-seen';

/** Everything read from one loop's ledgers and deliver record. */
export interface LoopLedgers {
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
  readonly tasks: readonly Task[];
  readonly lessons: readonly Lesson[];
  readonly audits: readonly AuditMark[];
  readonly deliverRecord: DeliverRecord | null;
}

const EMPTY: LoopLedgers = { findings: [], backlog: [], tasks: [], lessons: [], audits: [], deliverRecord: null };

interface DeliverRecordRow {
  readonly line: number;
  readonly record: DeliverRecord;
}

/** What one poll of a loop's ledgers changed (each slice a keyed delta), and whether its deliver record did. */
export interface LedgerPoll {
  readonly changed: boolean;
  readonly deliverChanged: boolean;
  readonly findings: KeyedDelta<Finding>;
  readonly backlog: KeyedDelta<BacklogItem>;
  readonly tasks: KeyedDelta<Task>;
  readonly lessons: KeyedDelta<Lesson>;
  readonly audits: KeyedDelta<AuditMark>;
}

const NONE: KeyedDelta<never> = { upserted: [], removed: [] };

/** The normalised id findings and backlog items are matched by (as deriveFindings does). */
const norm = (id: string): string => id.trim().toUpperCase();

interface LedgerFile {
  /** Complete records read so far, appended to in place as the file grows. */
  records: LedgerRecord[];
  /** A lesson still open at the end of what was read (shown: as far as anyone knows it is complete). */
  pending: LedgerRecord | null;
}

/**
 * Follows one loop's ledgers (RELIABILITY_AUDIT.md, RELIABILITY_LOG.md, the implementer log) as
 * append-mostly line files — an appended section costs work proportional to what was appended,
 * and a ledger rewritten in place is noticed and read again — and its deliver record as a whole
 * document replaced atomically. What was read stays in memory (never re-read from the store after
 * an append), and each poll reports what changed as keyed deltas: a section of 50 findings is
 * those 50 (and the rows its backlog and log lines touch), compared only where they can differ.
 */
export class LedgerFollower {
  private current: LoopLedgers = EMPTY;
  private readonly files = new Map<string, LedgerFile>();
  private firstSeenAt: Map<string, string> | null = null;
  private derivedOnce = false;
  private leftUnread = false;
  /** The audit's and the log's lines as read in this process (to name a rewrite's first changed line). */
  private readonly trails = new Map<string, LedgerTrail>();
  /** Rewrites noticed in this process, kept until it ends. */
  private readonly rewrites: ContractBreach[] = [];
  private breaches: { of: LoopLedgers; list: readonly ContractBreach[] } | null = null;

  /** Derived once: a quiet poll (the host watches the ledgers, nothing woke) reads and changes nothing. */
  get settled(): boolean {
    return this.derivedOnce;
  }

  /** The last poll left a backlog unread (a large ledger is read over several polls). */
  get behind(): boolean {
    return this.leftUnread;
  }

  constructor(
    readonly loop: string,
    private readonly config: LoopConfig,
    private readonly source: FileSource,
    private readonly store: Store,
  ) {}

  /** What was read, as of the last poll. */
  get ledgers(): LoopLedgers {
    return this.current;
  }

  /** Whether a watcher's report names a ledger, the deliver record, or a folder holding one. */
  private touchedBy(only: ReadChanges): boolean {
    return this.followedFiles().some((f) => only.files.has(f) || only.dirs.has(posix.dirname(f)));
  }

  /** The ledgers and the deliver record, as paths (the config does not change under a follower). */
  private followed: string[] | null = null;
  private watched: string[] | null = null;

  private followedFiles(): string[] {
    this.followed ??= [...this.paths().map((p) => p.path), ...(this.config.deliverRecord ? [this.config.deliverRecord] : [])];
    return this.followed;
  }

  /** The folders holding the ledgers and the deliver record (watched, so an append wakes a poll); worked out once. */
  watchDirs(): string[] {
    this.watched ??= [...new Set(this.followedFiles().map((f) => posix.dirname(f)))];
    return this.watched;
  }

  /** The ledger files to follow, by role. */
  private paths(): readonly { role: 'audit' | 'log' | 'implementer'; path: string }[] {
    this.pathList ??= this.ledgerPaths();
    return this.pathList;
  }

  private pathList: readonly { role: 'audit' | 'log' | 'implementer'; path: string }[] | null = null;

  private ledgerPaths(): { role: 'audit' | 'log' | 'implementer'; path: string }[] {
    const dir = this.config.dir;
    if (!dir) return [];
    const roles = ['audit', 'log', 'implementer'] as const;
    return roles.flatMap((role) => {
      const rel = this.config.ledgers[role];
      return rel ? [{ role, path: posix.isAbsolute(rel) ? rel : posix.join(dir, rel) }] : [];
    });
  }

  /**
   * Read what changed and derive what it feeds. On the first poll everything stored is reported
   * (what was read before a restart is news to whoever shows it).
   */
  async poll(now: Date, options: ReadScope = {}): Promise<LedgerPoll> {
    // The host watches the ledgers' folders: nothing changed there, or nothing this follower reads.
    if (this.derivedOnce && (options.quiet || (options.only && !this.touchedBy(options.only)))) {
      return { changed: false, deliverChanged: false, findings: NONE, backlog: NONE, tasks: NONE, lessons: NONE, audits: NONE };
    }
    let changed = false;
    let reset = false;
    const appended: LedgerRecord[] = [];
    this.leftUnread = false;
    for (const { role, path } of this.paths()) {
      const trail = this.trail(role, path);
      trail?.drop();
      const out = await followOnce(this.source, this.store, path, trail?.parser ?? ledgerParser, { verifyTail: true });
      this.leftUnread ||= out.more;
      const rewrite = out.changed && trail ? trail.settle(out.reset !== null, out.more) : null;
      if (rewrite) this.noteRewrite(rewriteBreach(this.loop, path, role === 'log' ? 'append-only' : 'frozen-sections', rewrite, now));
      let file = this.files.get(path);
      if (!file) {
        // First sight in this process: what the store holds, then what this poll appended to it.
        file = { records: this.store.records<LedgerRecord>(this.store.file(this.source.host, path).id), pending: null };
        this.files.set(path, file);
        changed = true;
        reset = true;
      } else if (out.changed) {
        changed = true;
        if (out.reset) {
          file.records = [...out.records];
          reset = true;
        } else {
          for (const r of out.records) file.records.push(r);
          appended.push(...out.records);
        }
      }
      if (out.changed || reset) {
        const state = this.store.file(this.source.host, path).parserState as LedgerState | null;
        const pending = state ? flushLedger(state) : null;
        if (pending) appended.push(pending);
        file.pending = pending;
      }
    }
    let deliverChanged = false;
    if (this.config.deliverRecord) {
      const out = await followDocument(this.source, this.store, this.config.deliverRecord, (text, source) => {
        const parsed = parseDeliverRecord(text, source);
        return { records: parsed.record ? [{ line: 1, record: parsed.record }] : [], problems: parsed.problems };
      });
      deliverChanged = out.changed || !this.derivedOnce;
    }
    if (!changed && !deliverChanged && this.derivedOnce) return { changed: false, deliverChanged: false, findings: NONE, backlog: NONE, tasks: NONE, lessons: NONE, audits: NONE };
    return this.report(now, changed, reset, appended, deliverChanged);
  }

  /** The audit's and the log's trail, made at first sight knowing how many lines the store holds (not known here). */
  private trail(role: 'audit' | 'log' | 'implementer', path: string): LedgerTrail | null {
    if (role === 'implementer') return null;
    let trail = this.trails.get(path);
    if (!trail) {
      trail = new LedgerTrail(role === 'log' ? 'append-only' : 'frozen-sections', this.store.file(this.source.host, path).lineNo);
      this.trails.set(path, trail);
    }
    return trail;
  }

  private noteRewrite(breach: ContractBreach): void {
    if (this.rewrites.some((b) => b.id === breach.id && b.date === breach.date)) return;
    this.rewrites.push(breach);
    this.breaches = null;
  }

  /**
   * The rules of the loop's manual its ledgers show broken, as of the last poll (pure over what
   * was read): `ledger-rewritten` (each rewrite noticed since this process started, at its first
   * changed line), `duplicate-id`, `id-order`, and the count half of `anchor`. Evidence names the
   * ledger's path and line.
   */
  contractBreaches(): readonly ContractBreach[] {
    if (this.breaches?.of !== this.current) {
      const reads = this.paths().map(({ role, path }) => ({ role, path, records: this.records(path) }));
      const list = [...this.rewrites, ...duplicateIds(this.loop, reads), ...idsOutOfOrder(this.loop, reads), ...anchorCount(this.loop, reads)];
      this.breaches = { of: this.current, list };
    }
    return this.breaches.list;
  }

  /**
   * Before the first read, while the host cannot be reached: the ledgers as the store holds them
   * from the last run, reported as a first poll reports them (no request to the host). Null once
   * anything was read or restored; the next poll that reaches the host reads what was appended since.
   */
  restore(now: Date): LedgerPoll | null {
    if (this.derivedOnce || this.files.size > 0) return null;
    for (const { path } of this.paths()) {
      const row = this.store.file(this.source.host, path);
      const state = row.parserState as LedgerState | null;
      this.files.set(path, { records: this.store.records<LedgerRecord>(row.id), pending: state ? flushLedger(state) : null });
    }
    return this.report(now, true, true, [], this.config.deliverRecord !== undefined);
  }

  /** Derive again and report what changed against the last derive (whole, after a reset). */
  private report(now: Date, changed: boolean, reset: boolean, appended: readonly LedgerRecord[], deliverChanged: boolean): LedgerPoll {
    const before = this.current;
    this.current = this.derive(now, changed || !this.derivedOnce, before);
    this.derivedOnce = true;
    // Appended rows can only change the findings and backlog items they name; anything else is
    // compared whole (a ledger read again from the start, or the first derive).
    const full = reset;
    const touched = new Set<string>();
    const touchedItems = new Set<string>();
    for (const r of appended) {
      if (r.kind === 'finding') touched.add(norm(r.id));
      else if (r.kind === 'backlog') {
        touchedItems.add(norm(r.id));
        for (const f of r.findings) touched.add(norm(f));
      } else if (r.kind === 'outcome') touchedItems.add(norm(r.id));
    }
    for (const item of this.current.backlog) if (touchedItems.has(norm(item.id))) for (const f of item.findings) touched.add(norm(f));
    const findings = diffKeyed(before.findings, this.current.findings, findingKey, full ? undefined : (f) => touched.has(norm(f.id)));
    const backlog = diffKeyed(before.backlog, this.current.backlog, backlogKey, full ? undefined : (b) => touchedItems.has(norm(b.id)) || b.findings.some((f) => touched.has(norm(f))));
    const tasks = diffKeyed(before.tasks, this.current.tasks, taskKey);
    const lessons = diffKeyed(before.lessons, this.current.lessons, lessonKey);
    const audits = diffKeyed(before.audits, this.current.audits, auditKey);
    const any = [findings, backlog, tasks, lessons, audits].some((d) => !isEmptyDelta(d));
    return { changed: any, deliverChanged, findings, backlog, tasks, lessons, audits };
  }

  /** When each id was first read, stamping new ones `at`: loaded once, then only new ids are written. */
  private firstSeen(ids: readonly string[], at: string): Map<string, string> {
    if (this.firstSeenAt === null) {
      this.firstSeenAt = firstSeen(this.store, this.loop, ids, at);
      return this.firstSeenAt;
    }
    const fresh = ids.filter((id) => !this.firstSeenAt?.has(id));
    if (fresh.length > 0) for (const [id, when] of firstSeen(this.store, this.loop, fresh, at, { only: true })) this.firstSeenAt.set(id, when);
    return this.firstSeenAt;
  }

  private records(path: string): LedgerRecord[] {
    const file = this.files.get(path);
    if (!file) return [];
    return file.pending ? [...file.records, file.pending] : file.records;
  }

  private derive(now: Date, ledgersChanged: boolean, before: LoopLedgers): LoopLedgers {
    const deliver = this.config.deliverRecord ? this.store.records<DeliverRecordRow>(this.store.file(this.source.host, this.config.deliverRecord).id)[0] : undefined;
    if (!ledgersChanged) return { ...before, deliverRecord: deliver?.record ?? null };
    const byRole = new Map(this.paths().map(({ role, path }) => [role, { path, records: this.records(path) }]));
    const all = [...byRole.values()];
    const of = <K extends LedgerRecord['kind']>(kind: K) =>
      all.flatMap(({ path, records }) => records.filter((r): r is Extract<LedgerRecord, { kind: K }> => r.kind === kind).map((r) => ({ path, r })));
    const auditSource = byRole.get('audit')?.path ?? byRole.get('log')?.path ?? '';
    const findingRows = of('finding').map(({ r }) => r);
    const reviewRows = of('review-finding');
    const outcomeRows = of('outcome').map(({ r }) => r);
    const taskRows = of('task');
    // Log and task rows are known by what they say (a task log gains rows at the top, so not by position).
    const outcomeId = (r: { readonly id: string; readonly date: string | null; readonly outcome: string }): string => `log:${norm(r.id)}:${r.date ?? ''}:${r.outcome}`;
    const taskId = (r: { readonly task: string; readonly date: string | null; readonly status: string }): string => `task:${r.task}:${r.date ?? ''}:${r.status}`;
    const seen = this.firstSeen(
      [...findingRows.map((r) => r.id), ...reviewRows.map(({ r }) => `${r.section}#${r.number}`), ...outcomeRows.map(outcomeId), ...taskRows.map(({ r }) => taskId(r))],
      now.toISOString(),
    );
    const firstSeen = (id: string): string => seen.get(id) ?? now.toISOString();
    const derived = deriveFindings({
      loop: this.loop,
      source: auditSource,
      findings: findingRows,
      backlog: of('backlog').map(({ r }) => r),
      outcomes: outcomeRows,
      firstSeen,
      outcomeSeen: (r) => firstSeen(outcomeId(r)),
    });
    const reviews: Finding[] = reviewRows.map(({ path, r }) => ({
      id: `${r.section}#${r.number}`,
      loop: this.loop,
      source: path,
      section: r.section,
      severity: null,
      category: r.severity,
      where: r.fault,
      text: r.text,
      status: 'open',
      backlog: [],
      firstSeenAt: firstSeen(`${r.section}#${r.number}`),
      line: r.line,
    }));
    return {
      findings: [...derived.findings, ...reviews],
      backlog: derived.backlog,
      tasks: taskRows.map(({ path, r }) => ({
        loop: this.loop,
        source: path,
        task: r.task,
        date: r.date,
        status: r.status,
        gateRuns: r.gateRuns,
        firstGate: r.firstGate,
        deviations: r.deviations,
        notes: r.notes,
        model: r.model,
        line: r.line,
        firstSeenAt: firstSeen(taskId(r)),
      })),
      lessons: of('lesson').map(({ path, r }) => ({ loop: this.loop, source: path, date: r.date, tag: r.tag, text: r.text, line: r.line })),
      audits: of('audit-mark').map(({ r }) => ({ loop: this.loop, sha: r.sha, date: r.date, newFindings: r.newFindings, line: r.line })),
      deliverRecord: deliver?.record ?? null,
    };
  }
}
