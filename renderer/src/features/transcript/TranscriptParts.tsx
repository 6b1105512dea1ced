import type { TranscriptInfo, TranscriptMark } from '../../../../shared/transcript-domain';
import { navigate } from '../../ui/react-hooks';

// The transcript view's header and its list of the lines that matter.

/** What each kind of mark is called on the scrollbar and in the list. */
export const MARK_LABEL: Readonly<Record<TranscriptMark['kind'], string>> = {
  verdict: 'Verdict',
  stop: 'Stop point',
  watchdog: 'Watchdog kill',
  refused: 'Refused',
  failure: 'Failure',
};

/** The lines that matter (verdict, stop, watchdog, refused, failures), each a jump to its line. */
export function MarkList({ marks, onJump }: { marks: readonly TranscriptMark[]; onJump: (line: number) => void }) {
  if (marks.length === 0) return null;
  return (
    <details className="transcript-mark-list" open data-testid="transcript-marks">
      <summary>
        What matters here <span className="muted small">({marks.length})</span>
      </summary>
      <ul>
        {marks.map((m) => (
          <li key={`${m.kind}-${m.n}`}>
            <button type="button" className="link" onClick={() => onJump(m.n)} data-testid={`transcript-mark-${m.n}`}>
              <span className={`mark-kind mark-${m.kind}`}>{MARK_LABEL[m.kind]}</span> line {m.n}
            </button>{' '}
            <span className="mono small muted">{m.text}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Which transcript, where it is, how big, and the way back to its loop. */
export function TranscriptHeader({ loop, date, phase, info, lines }: { loop: string; date: string; phase: string; info?: TranscriptInfo; lines?: number }) {
  return (
    <header className="transcript-head">
      <button type="button" className="link" onClick={() => navigate({ view: 'loops', loop })}>
        ← {loop}
      </button>
      <h2>
        {phase} <span className="muted">· {date}</span>
      </h2>
      {info ? (
        <span className="muted small mono" title={`${info.host}:${info.path}`}>
          {info.host}:{info.path} · {lines?.toLocaleString('en')} lines · {formatBytes(info.size)}
          {info.running ? ' · running' : ''}
        </span>
      ) : null}
    </header>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
