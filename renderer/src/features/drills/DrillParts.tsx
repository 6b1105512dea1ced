import type { DrillRun } from '../../../../shared/domain';
import { formatDuration } from '../../ui/format';

const STATUS_CLASS: Readonly<Record<DrillRun['status'], string>> = {
  running: 'running',
  ok: 'ok',
  failed: 'failed',
  timeout: 'failed',
  cancelled: 'pending',
  lost: 'incomplete',
};

const GLYPH: Readonly<Record<DrillRun['status'], string>> = {
  running: '◔',
  ok: '✓',
  failed: '✕',
  timeout: '⧗',
  cancelled: '–',
  lost: '?',
};

/** A drill run's status as a badge, in the phase colours (glyph and word, never colour alone). */
export function DrillStatusBadge({ status, testId }: { status: DrillRun['status']; testId?: string }) {
  return (
    <span className={`badge status-${STATUS_CLASS[status]}`} data-testid={testId} data-status={status}>
      <span aria-hidden="true" className="glyph">
        {GLYPH[status]}
      </span>
      {status}
    </span>
  );
}

/** A run's duration: recorded, or elapsed so far while running; null when unknown. */
export function runDuration(run: DrillRun, now: number): string | null {
  if (run.durationMs !== null) return formatDuration(run.durationMs);
  const start = Date.parse(run.startedAt);
  if (!Number.isFinite(start)) return null;
  const end = run.endedAt ? Date.parse(run.endedAt) : run.status === 'running' ? now : NaN;
  return Number.isFinite(end) ? formatDuration(end - start) : null;
}

/** A run's arguments as `k=v` pairs. */
export function argsText(args: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(args).map(([k, v]) => `${k}=${v}`);
  return pairs.length ? pairs.join(' ') : '—';
}
