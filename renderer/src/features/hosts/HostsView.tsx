import { useDeck } from '../../store';
import { HostList } from './HostList';

/** The hosts Loopdeck reads, full width, opened on one: where a notice about a host lands. */
export function HostsView({ host }: { host: string | null }) {
  const known = useDeck((s) => (host === null ? true : s.hosts.some((h) => h.name === host)));
  return (
    <section className="card hosts-view" data-testid="hosts-view">
      <h2>Hosts</h2>
      {known ? null : (
        <p className="callout callout-muted" role="status">
          No host named {host} in the config now.
        </p>
      )}
      <HostList focus={host} />
    </section>
  );
}
