import { useDeck } from '../store';

const LABEL = { open: 'Live', connecting: 'Connecting…', closed: 'Disconnected, retrying' } as const;

/** The connection state in the header: live, connecting, or disconnected and retrying. */
export function ConnectionIndicator() {
  const state = useDeck((s) => s.connection);
  return (
    <span className={`connection conn-${state}`} data-testid="connection" data-state={state} role="status">
      <span className="dot" aria-hidden="true" />
      {LABEL[state]}
    </span>
  );
}
