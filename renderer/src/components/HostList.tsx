import type { HostConnState } from '../../../shared/domain';
import { useDeck } from '../store';

const HEALTH: Readonly<Record<HostConnState, 'good' | 'busy' | 'warn' | 'bad'>> = {
  connected: 'good',
  connecting: 'busy',
  reconnecting: 'busy',
  untrusted: 'warn',
  'hostkey-mismatch': 'bad',
  'auth-failed': 'bad',
  unreachable: 'bad',
};

/** The configured hosts with their connection state and last error. */
export function HostList() {
  const hosts = useDeck((s) => s.hosts);
  if (hosts.length === 0) return <p className="muted small">No hosts configured.</p>;
  return (
    <ul className="hosts">
      {hosts.map((h) => (
        <li key={h.name} className="host" data-testid={`host-${h.name}`} data-state={h.state}>
          <div className="host-line">
            <span className={`dot health-${HEALTH[h.state]}`} aria-hidden="true" />
            <span className="host-name">{h.name}</span>
            <span className="host-kind">{h.kind}</span>
          </div>
          <div className="host-state">{h.state}</div>
          {h.error ? <div className="host-error">{h.error}</div> : null}
        </li>
      ))}
    </ul>
  );
}
