import { useDeck } from '../../store';
import '../../capacity.css';
import { CapacityCharts } from './CapacityCharts';
import { CapacityHosts } from './CapacityHosts';

const EXAMPLE = `proxies:
  crossbar:
    host: runner
    kind: crossbar
    url: "http://127.0.0.1:8080"
    every: 10s`;

/** The inference fleet: every host behind every proxy now, and its history with the loops' phases. */
export function CapacityView() {
  const capacity = useDeck((s) => s.capacity);
  const configPath = useDeck((s) => s.info?.config.path);
  if (capacity.length === 0) {
    return (
      <div className="empty card cap-empty" data-testid="capacity">
        <h2>No inference proxies configured</h2>
        <p>
          Add a proxy under <code>proxies:</code> in <code>{configPath ?? 'the config file'}</code>. Loopdeck polls it every{' '}
          <code>every</code> and shows each inference host behind it: slots, queue, context and loaded models, with their
          history next to the loops&apos; phases. Loopdeck picks the change up when you save.
        </p>
        <pre className="block mono" data-testid="capacity-example">
          {EXAMPLE}
        </pre>
        <p className="muted small">
          <code>kind</code> is <code>crossbar</code> (a routing proxy with backends), <code>llama-server</code> (one server
          polled directly) or <code>gateway</code> (a load-shedding gateway).
        </p>
      </div>
    );
  }
  return (
    <div className="capacity" data-testid="capacity">
      <CapacityHosts capacity={capacity} />
      <CapacityCharts capacity={capacity} />
    </div>
  );
}
