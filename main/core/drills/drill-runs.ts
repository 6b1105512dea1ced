import type { DrillRun } from '../../../shared/domain';
import type { Store } from '../store/store';

/** A row of `drill_runs`: the audit trail of drill runs. */
export interface RunRow {
  id: string;
  drill: string;
  host: string;
  args: string;
  user: string;
  started_at: string;
  ended_at: string | null;
  rc: number | null;
  status: DrillRun['status'];
  override: number;
  dir: string;
  duration_ms: number | null;
}

/** A run as it starts. */
export interface NewRun {
  readonly id: string;
  readonly drill: string;
  readonly host: string;
  /** JSON of the run's arguments. */
  readonly args: string;
  readonly user: string;
  readonly startedAt: string;
  readonly override: boolean;
  readonly dir: string;
}

/**
 * The `drill_runs` table: its SQL and row types, for the drill service. Declaring the queries
 * prepares nothing; the store prepares each once, on first use.
 */
export class DrillRuns {
  private readonly q;

  constructor(store: Store) {
    this.q = {
      newest: store.query<[limit: number], RunRow>('SELECT * FROM drill_runs ORDER BY started_at DESC LIMIT ?'),
      insert: store.query<[id: string, drill: string, host: string, args: string, user: string, startedAt: string, override: 0 | 1, dir: string]>(
        `INSERT INTO drill_runs (id, drill, host, args, user, started_at, status, override, dir)
         VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)`,
      ),
      running: store.query<[], RunRow>("SELECT * FROM drill_runs WHERE status = 'running'"),
      finish: store.query<[status: DrillRun['status'], rc: number | null, endedAt: string, durationMs: number, id: string]>(
        'UPDATE drill_runs SET status = ?, rc = ?, ended_at = ?, duration_ms = ? WHERE id = ?',
      ),
      byId: store.query<[id: string], RunRow>('SELECT * FROM drill_runs WHERE id = ?'),
    };
  }

  /** The newest `limit` runs, newest first. */
  newest(limit: number): RunRow[] {
    return this.q.newest.all(limit);
  }

  /** Record a run started (status 'running'). */
  insert(r: NewRun): void {
    this.q.insert.run(r.id, r.drill, r.host, r.args, r.user, r.startedAt, r.override ? 1 : 0, r.dir);
  }

  /** The runs in flight. */
  running(): RunRow[] {
    return this.q.running.all();
  }

  /** Record how a run ended. */
  finish(id: string, status: DrillRun['status'], rc: number | null, endedAt: string, durationMs: number): void {
    this.q.finish.run(status, rc, endedAt, durationMs, id);
  }

  /** The run with this id. */
  byId(id: string): RunRow | undefined {
    return this.q.byId.get(id);
  }
}
