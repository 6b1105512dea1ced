import { useEffect, useState } from 'react';
import { describeError } from '../../client';
import { useDeck } from '../../store';
import type { CapacityHistory, CapacityRange } from './capacity';

/** At most this many points per series: main downsamples with LTTB, the charts draw what it sends. */
export const HISTORY_MAX_POINTS = 1000;

/** How often the charts refetch while shown. */
export const HISTORY_REFRESH_MS = 30_000;

/** The history for the shown range, the range it is for, and why the last fetch failed. */
export interface HistoryState {
  readonly history: CapacityHistory | null;
  /** The range `history` covers (the previous range's data stays shown while the next loads). */
  readonly range: CapacityRange | null;
  readonly loading: boolean;
  readonly error: string | null;
}

/** Fetch `capacity.history` for `range` now, on every range change, and every 30 s; late answers for an old range are dropped. */
export function useCapacityHistory(range: CapacityRange): HistoryState {
  const fetchHistory = useDeck((s) => s.capacityHistory);
  const connection = useDeck((s) => s.connection);
  const [state, setState] = useState<HistoryState>({ history: null, range: null, loading: true, error: null });

  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    let inFlight = false;
    const run = () => {
      if (inFlight) return;
      inFlight = true;
      setState((s) => (s.loading ? s : { ...s, loading: true }));
      fetchHistory({ range, maxPoints: HISTORY_MAX_POINTS }).then(
        (history) => {
          inFlight = false;
          if (live) setState({ history, range, loading: false, error: null });
        },
        (err: unknown) => {
          inFlight = false;
          if (live) setState((s) => ({ ...s, loading: false, error: describeError(err) }));
        },
      );
    };
    run();
    const id = window.setInterval(run, HISTORY_REFRESH_MS);
    return () => {
      live = false;
      window.clearInterval(id);
    };
  }, [fetchHistory, range, connection]);

  return state;
}
