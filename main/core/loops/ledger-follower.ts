import { posix } from 'node:path';
import type { AuditMark, BacklogItem, Finding, Lesson, Task } from '../../../shared/domain';
import type { LoopConfig } from '../config/schema';
import { followDocument } from '../follow/document-follower';
import { followOnce } from '../follow/line-follower';
import { flushLedger, ledgerParser } from '../ledgers/ledger-parser';
import type { LedgerRecord, LedgerState } from '../ledgers/ledger-records';
import { deriveFindings } from '../model/findings';
import { parseDeliverRecord, type DeliverRecord } from '../model/pull-requests';
import type { FileSource } from '../sources/file-source';
import type { Store } from '../store/store';

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

/**
 * Follows one loop's ledgers (RELIABILITY_AUDIT.md, RELIABILITY_LOG.md, the implementer log) as
 * append-mostly line files — an appended section costs work proportional to what was appended,
 * and a ledger rewritten in place is noticed and read again — and its deliver record as a whole
 * document replaced atomically.
 */
export class LedgerFollower {
  private current: LoopLedgers = EMPTY;
  /** The last poll left a backlog unread (a large ledger is read over several polls). */
  behind = false;

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

  /** The ledger files to follow, by role. */
  private paths(): { role: 'audit' | 'log' | 'implementer'; path: string }[] {
    const dir = this.config.dir;
    if (!dir) return [];
    const roles = ['audit', 'log', 'implementer'] as const;
    return roles.flatMap((role) => {
      const rel = this.config.ledgers[role];
      return rel ? [{ role, path: posix.isAbsolute(rel) ? rel : posix.join(dir, rel) }] : [];
    });
  }

  /**
   * Read what changed; true when the loop's ledgers or deliver record changed, and on the first
   * poll: what was stored before a restart is news to whoever shows it.
   */
  async poll(now: Date): Promise<boolean> {
    let changed = false;
    this.behind = false;
    for (const { path } of this.paths()) {
      const out = await followOnce(this.source, this.store, path, ledgerParser, { verifyTail: true });
      changed ||= out.changed;
      this.behind ||= out.more;
    }
    if (this.config.deliverRecord) {
      const out = await followDocument(this.source, this.store, this.config.deliverRecord, (text, source) => {
        const parsed = parseDeliverRecord(text, source);
        return { records: parsed.record ? [{ line: 1, record: parsed.record }] : [], problems: parsed.problems };
      });
      changed ||= out.changed;
    }
    const first = this.current === EMPTY;
    if (changed || first) this.current = this.derive(now);
    return changed || first;
  }

  private records(path: string): LedgerRecord[] {
    const row = this.store.file(this.source.host, path);
    const records = this.store.records<LedgerRecord>(row.id);
    // A lesson at the very end of a ledger is complete as far as anyone can tell: show it.
    const pending = row.parserState ? flushLedger(row.parserState as LedgerState) : null;
    return pending ? [...records, pending] : records;
  }

  private derive(now: Date): LoopLedgers {
    const byRole = new Map(this.paths().map(({ role, path }) => [role, { path, records: this.records(path) }]));
    const all = [...byRole.values()];
    const of = <K extends LedgerRecord['kind']>(kind: K) =>
      all.flatMap(({ path, records }) => records.filter((r): r is Extract<LedgerRecord, { kind: K }> => r.kind === kind).map((r) => ({ path, r })));
    const auditSource = byRole.get('audit')?.path ?? byRole.get('log')?.path ?? '';
    const findingRows = of('finding').map(({ r }) => r);
    const reviewRows = of('review-finding');
    const seen = this.store.firstSeen(
      this.loop,
      [...findingRows.map((r) => r.id), ...reviewRows.map(({ r }) => `${r.section}#${r.number}`)],
      now.toISOString(),
    );
    const firstSeen = (id: string): string => seen.get(id) ?? now.toISOString();
    const derived = deriveFindings({
      loop: this.loop,
      source: auditSource,
      findings: findingRows,
      backlog: of('backlog').map(({ r }) => r),
      outcomes: of('outcome').map(({ r }) => r),
      firstSeen,
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
    const deliver = this.config.deliverRecord ? this.store.records<DeliverRecordRow>(this.store.file(this.source.host, this.config.deliverRecord).id)[0] : undefined;
    return {
      findings: [...derived.findings, ...reviews],
      backlog: derived.backlog,
      tasks: of('task').map(({ path, r }) => ({
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
      })),
      lessons: of('lesson').map(({ path, r }) => ({ loop: this.loop, source: path, date: r.date, tag: r.tag, text: r.text, line: r.line })),
      audits: of('audit-mark').map(({ r }) => ({ loop: this.loop, sha: r.sha, date: r.date, newFindings: r.newFindings, line: r.line })),
      deliverRecord: deliver?.record ?? null,
    };
  }
}
